/**
 * The real Kilo CLI (`@kilocode/cli` 7.7.7, its native binary) offline against the loopback Anthropic
 * stand-in: a home of setupAgentHome with `~/.config/kilo/kilo.json` declaring the stand-in as an
 * OpenCode-style provider (`npm: @ai-sdk/anthropic` is bundled in the binary), Kilo's model fetch,
 * updates, daemon, telemetry, session ingest and sharing turned off, the npm registry at a closed port.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { type AgentHome, runBinary, setupAgentHome } from './agents.js';
import type { AnthropicRequest, Rule } from './anthropic-standin.js';

export const KILO_BIN = resolve('node_modules/.bin/kilo');
/** Kilo's provider/model (in ~/.config/kilo/kilo.json). */
export const KILO_MODEL = 'standin/claude-test';
/** The model of the Claude Code fixtures, served by the stand-in as Kilo's `anthropic` provider, so a converted session resumes on its own model. */
export const CLAUDE_FIXTURE_MODEL = 'claude-opus-5-5';

export async function setupKiloHome(opts: { rules?: Rule[] } = {}): Promise<AgentHome> {
  const home = await setupAgentHome(opts);
  const model = (name: string) => ({ name, attachment: true, modalities: { input: ['text', 'image'], output: ['text'] } });
  await fs.mkdir(join(home.root, '.config', 'kilo'), { recursive: true });
  await fs.writeFile(
    join(home.root, '.config', 'kilo', 'kilo.json'),
    JSON.stringify({
      $schema: 'https://app.kilo.ai/config.json',
      provider: {
        standin: {
          npm: '@ai-sdk/anthropic',
          name: 'Stand-in',
          options: { baseURL: `${home.standIn.url}/v1`, apiKey: 'x' },
          models: { 'claude-test': model('Claude Test') },
        },
        anthropic: {
          npm: '@ai-sdk/anthropic',
          options: { baseURL: `${home.standIn.url}/v1`, apiKey: 'x' },
          models: { [CLAUDE_FIXTURE_MODEL]: model('Claude fixture model') },
        },
      },
      model: KILO_MODEL,
      autoupdate: false,
      share: 'disabled',
    }),
  );
  return home;
}

/** The environment kilo runs offline in with `home` as HOME. */
function kiloEnv(home: Pick<AgentHome, 'root'>): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: home.root,
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_NO_DAEMON: '1',
    KILO_TELEMETRY_LEVEL: 'off',
    KILO_DISABLE_SESSION_INGEST: '1',
    KILO_DISABLE_SHARE: '1',
    KILO_DISABLE_LSP_DOWNLOAD: '1',
    KILO_DISABLE_CLAUDE_CODE: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
    NO_COLOR: '1',
  };
}

/** `kilo <args>` in `cwd` (the home's project), offline: what it printed on stdout; rejects with all its output when it fails. */
export async function runKilo(home: Pick<AgentHome, 'root' | 'project'>, args: string[], cwd = home.project): Promise<string> {
  const r = await runBinary(KILO_BIN, args, cwd, kiloEnv(home));
  return r.stdout;
}

export interface KiloServer {
  /** where it listens, e.g. http://127.0.0.1:4096 */
  url: string;
  close: () => Promise<void>;
}

/**
 * `kilo serve` (the headless server Kilo's clients, VS Code's and the desktop app, talk to) in `cwd`,
 * offline, once it says where it listens; `close` ends it.
 */
export function startKiloServer(home: Pick<AgentHome, 'root' | 'project'>, cwd = home.project): Promise<KiloServer> {
  const child = spawn(KILO_BIN, ['serve', '--port', '0', '--hostname', '127.0.0.1'], {
    cwd,
    env: kiloEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => {
      void close();
      fail(new Error(`kilo serve said nothing of where it listens:\n${out}`));
    }, 60_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/[^\s]+)/.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', read);
      done({ url, close });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`kilo serve exited ${code}:\n${out}`));
    });
  });
}

/** Kilo creates its database (which `convert --to kilo` writes into) when it first runs: a `session list` does. */
export async function createKiloDatabase(home: Pick<AgentHome, 'root' | 'project'>): Promise<void> {
  await runKilo(home, ['session', 'list']);
}

/** Kilo adds this text to each user message when it sends it; it is not stored. */
export function isEnvironmentDetails(b: { type: string; text?: unknown }): boolean {
  return b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('\n\n<environment_details>');
}

/**
 * A stand-in rule answering every request `ok: <the last text of its last message>` (the probe; Kilo's
 * environment details aside), but a `RUN: <command>` prompt, which the default rules answer with a bash call.
 */
export const kiloProbeRule: Rule = (req) => {
  const last = req.messages.at(-1);
  const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
  const texts = blocks.filter((b) => b.type === 'text' && !isEnvironmentDetails(b)).map((b) => String(b.text ?? ''));
  if (texts.at(-1)?.startsWith('RUN: ')) return undefined;
  return { text: `ok: ${texts.at(-1) ?? ''}` };
};

/** The last conversation request (with tools) whose last message holds the text `probe`. */
export function kiloRequestEndingWith(home: AgentHome, probe: string): AnthropicRequest {
  const req = home.standIn
    .messageRequests()
    .filter((r) => (r.tools?.length ?? 0) > 0)
    .filter((r) => {
      const last = r.messages.at(-1);
      const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
      return last?.role === 'user' && blocks.some((b) => b.type === 'text' && b.text === probe);
    })
    .at(-1);
  if (!req) throw new Error(`kilo sent no request ending with ${probe}`);
  return req;
}
