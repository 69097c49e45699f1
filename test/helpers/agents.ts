/**
 * Launch helpers for the real agents (Claude Code, pi, OpenCode) against the loopback Anthropic
 * stand-in, all three in one temp HOME and one project directory, so a session one agent
 * recorded can be converted by threadbase and resumed by another agent in the same project.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type AnthropicRequest, type Rule, type StandIn, startAnthropicStandIn } from './anthropic-standin.js';
import {
  isCodexInjected,
  type ResponsesItem,
  type ResponsesRule,
  type ResponsesStandIn,
  startResponsesStandIn,
} from './openai-responses-standin.js';

export const CLAUDE_BIN = resolve('node_modules/.bin/claude');
export const PI_BIN = resolve('node_modules/.bin/pi');
export const OPENCODE_BIN = resolve('node_modules/.bin/opencode');
export const CODEX_BIN = resolve('node_modules/.bin/codex');

/** pi's custom provider and model (in $HOME/.pi/agent/models.json). */
export const PI_PROVIDER = 'standin';
export const PI_MODEL = 'claude-standin';
/** OpenCode's provider/model (in $HOME/.config/opencode/opencode.json). */
export const OPENCODE_MODEL = 'standin/claude-test';
/** An OpenCode model with a tiny context window, so OpenCode compacts by itself. */
export const OPENCODE_TINY_MODEL = 'standin/claude-tiny';

export interface AgentHome {
  root: string;
  project: string;
  env: DriverEnv;
  standIn: StandIn;
  close(): Promise<void>;
}

/** pi's `models.json` in HOME `root`: one provider at a loopback stand-in with one model (offline key). */
export async function writePiProvider(
  root: string,
  id: string,
  provider: { baseUrl: string; api: string; model: { id: string; name: string; reasoning: boolean; input: string[] } },
): Promise<void> {
  await fs.mkdir(join(root, '.pi', 'agent'), { recursive: true });
  await fs.writeFile(
    join(root, '.pi', 'agent', 'models.json'),
    JSON.stringify({
      providers: {
        [id]: {
          baseUrl: provider.baseUrl,
          api: provider.api,
          apiKey: 'offline',
          models: [{ ...provider.model, contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    }),
  );
}

/**
 * OpenCode's `opencode.json` in HOME `root`: one `@ai-sdk/openai` provider at a loopback Responses
 * stand-in with one reasoning model, the default model (offline key, no updates, no sharing).
 */
export async function writeOpencodeOpenAiProvider(
  root: string,
  id: string,
  provider: { baseUrl: string; model: string },
): Promise<void> {
  await fs.mkdir(join(root, '.config', 'opencode'), { recursive: true });
  await fs.writeFile(
    join(root, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        [id]: {
          npm: '@ai-sdk/openai',
          name: 'OpenAI stand-in',
          options: { baseURL: provider.baseUrl, apiKey: 'x' },
          models: { [provider.model]: { name: 'OpenAI stand-in', reasoning: true } },
        },
      },
      model: `${id}/${provider.model}`,
      autoupdate: false,
      share: 'disabled',
    }),
  );
}

/** A temp HOME with pi's and OpenCode's provider config pointing at a fresh stand-in. */
export async function setupAgentHome(opts: { rules?: Rule[] } = {}): Promise<AgentHome> {
  const standIn = await startAnthropicStandIn({ rules: opts.rules });
  const root = await fs.mkdtemp(join(tmpdir(), 'tb-agents-home-'));
  const project = join(root, 'project');
  await fs.mkdir(project, { recursive: true });
  await writePiProvider(root, PI_PROVIDER, {
    baseUrl: standIn.url,
    api: 'anthropic-messages',
    model: { id: PI_MODEL, name: 'stand-in', reasoning: false, input: ['text', 'image'] },
  });
  await fs.mkdir(join(root, '.config', 'opencode'), { recursive: true });
  const ocModel = (name: string, context?: number) => ({
    name,
    attachment: true,
    // Image input declared, else OpenCode replaces images with an error text for the model.
    modalities: { input: ['text', 'image'], output: ['text'] },
    ...(context ? { limit: { context, output: 200 } } : {}),
  });
  await fs.writeFile(
    join(root, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        standin: {
          npm: '@ai-sdk/anthropic',
          name: 'Stand-in',
          options: { baseURL: `${standIn.url}/v1`, apiKey: 'x' },
          models: { 'claude-test': ocModel('Claude Test'), 'claude-tiny': ocModel('Claude Tiny', 400) },
        },
      },
      model: OPENCODE_MODEL,
      autoupdate: false,
      share: 'disabled',
    }),
  );
  return {
    root,
    project,
    env: { home: root, env: {} },
    standIn,
    close: async () => {
      await standIn.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * A home for this test file (or the describe block it is called in): set up by setupAgentHome with
 * `rules` before its tests (then OpenCode's database made in it if `opencodeDatabase`), within `timeout`
 * ms if given, and closed after them. The object returned is filled in place, as copilotHomeForFile's
 * is, so a test reads it as it is then.
 */
export function agentHomeForFile(opts: { rules?: Rule[]; opencodeDatabase?: boolean; timeout?: number } = {}): AgentHome {
  const home = {} as AgentHome;
  beforeAll(async () => {
    Object.assign(home, await setupAgentHome({ rules: opts.rules }));
    if (opts.opencodeDatabase) await createOpencodeDatabase(home);
  }, opts.timeout);
  // (no close when set-up failed before the home was made)
  afterAll(() => home.close?.());
  return home;
}

interface Run {
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin` to its end and collects what it prints; rejects on a non-zero exit unless `mayFail`.
 * With `input`, that is written to its stdin, which is then closed; else stdin is closed at once.
 */
export function runBinary(
  bin: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
  opts: { mayFail?: boolean; input?: string } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, {
      cwd,
      env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 || opts.mayFail
        ? done({ stdout, stderr })
        : fail(new Error(`${bin} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`)),
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export interface ClaudeResult {
  session_id: string;
  is_error?: boolean;
  /** what Claude Code itself priced the run at, in all and per model */
  total_cost_usd?: number;
  modelUsage?: Record<string, ClaudeModelUsage>;
}

export interface ClaudeModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests?: number;
  costUSD: number;
}

/** Claude Code's usage of one model (result `modelUsage`, `cost-state` records) as `stats --json` names the tokens. */
export function statsTokensOfClaude(u: ClaudeModelUsage) {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadInputTokens,
    cacheWriteTokens: u.cacheCreationInputTokens,
  };
}

function claudeEnv(home: AgentHome) {
  return {
    PATH: process.env.PATH,
    HOME: home.root,
    ANTHROPIC_BASE_URL: home.standIn.url,
    ANTHROPIC_API_KEY: 'x',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/**
 * `claude -p … -- prompt` in the project, offline against the stand-in (as root: --allowedTools, never
 * skip permissions); `env` adds variables (switches of Claude Code's own).
 */
export async function runClaude(
  home: AgentHome,
  args: string[],
  prompt: string,
  env: Record<string, string> = {},
): Promise<ClaudeResult> {
  const r = await runBinary(CLAUDE_BIN, ['-p', '--output-format', 'json', ...args, '--', prompt], home.project, {
    ...claudeEnv(home),
    ...env,
  });
  try {
    return JSON.parse(r.stdout) as ClaudeResult;
  } catch {
    throw new Error(`claude printed no JSON:\n${r.stdout}\n${r.stderr}`);
  }
}

/**
 * `claude -p` with one user message given as Messages API content blocks on stdin (stream-json),
 * which is how a prompt carries an image non-interactively; returns the final result record.
 */
export async function runClaudeContent(
  home: AgentHome,
  args: string[],
  content: Record<string, unknown>[],
): Promise<ClaudeResult> {
  const r = await runBinary(
    CLAUDE_BIN,
    ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args],
    home.project,
    claudeEnv(home),
    { input: `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n` },
  );
  const result = r.stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((record) => record.type === 'result');
  if (!result) throw new Error(`claude ${args.join(' ')} (stream-json) printed no result:\n${r.stdout}\n${r.stderr}`);
  return result as unknown as ClaudeResult;
}

/** What launching pi or OpenCode needs of a home: any temp HOME with a project, whatever its model API. */
type AgentDirs = Pick<AgentHome, 'root' | 'project'>;

function piEnv(home: AgentDirs) {
  return { PATH: process.env.PATH, HOME: home.root, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', NO_COLOR: '1' };
}

/**
 * `pi --provider standin --model … <args>` in the project (or `cwd`), stdin closed (pi reads piped
 * stdin as a prompt); `mayFail` for a turn that ends in an API error; `provider`/`model` for another
 * provider of the home's models.json. Returns stdout and stderr.
 */
export async function runPi(
  home: AgentDirs,
  args: string[],
  opts: { cwd?: string; mayFail?: boolean; provider?: string; model?: string } = {},
): Promise<string> {
  const model = ['--provider', opts.provider ?? PI_PROVIDER, '--model', opts.model ?? PI_MODEL];
  const r = await runBinary(PI_BIN, [...model, ...args], opts.cwd ?? home.project, piEnv(home), { mayFail: opts.mayFail });
  return r.stdout + r.stderr;
}

/** `pi --session <file> -p <probe>` in the home's project: the first request pi then sent (the one carrying the resumed context). */
export async function piResumeRequest(home: AgentHome, file: string, probe: string): Promise<AnthropicRequest> {
  const mark = home.standIn.messageRequests().length;
  await runPi(home, ['--session', file, '-p', probe]);
  const req = home.standIn.messageRequests()[mark];
  if (!req) throw new Error('pi sent no request');
  return req;
}

/** pi in RPC mode (what a front end drives): prompts and `compact`, one JSON command per line. */
export class PiRpc {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  readonly events: Record<string, unknown>[] = [];
  private waiters: { test: (e: Record<string, unknown>) => boolean; done: (e: Record<string, unknown>) => void }[] = [];

  /** `args`: more of pi's flags (`--session <file>` to work on a session pi recorded before). */
  constructor(home: AgentHome, cwd = home.project, args: string[] = []) {
    this.child = spawn(PI_BIN, ['--mode', 'rpc', '--provider', PI_PROVIDER, '--model', PI_MODEL, ...args], {
      cwd,
      env: piEnv(home),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let nl = this.buffer.indexOf('\n');
      while (nl >= 0) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, '');
        this.buffer = this.buffer.slice(nl + 1);
        nl = this.buffer.indexOf('\n');
        if (!line.trim()) continue;
        const e = JSON.parse(line) as Record<string, unknown>;
        this.events.push(e);
        for (const w of [...this.waiters])
          if (w.test(e)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.done(e);
          }
      }
    });
  }

  private send(cmd: Record<string, unknown>, end: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const p = new Promise<Record<string, unknown>>((done) => this.waiters.push({ test: end, done }));
    this.child.stdin.write(`${JSON.stringify(cmd)}\n`);
    return p;
  }

  /** A prompt, with images attached as pi's RPC takes them ({type: 'image', data, mimeType}). */
  prompt(message: string, images?: { type: 'image'; data: string; mimeType: string }[]): Promise<Record<string, unknown>> {
    return this.send({ type: 'prompt', message, ...(images ? { images } : {}) }, (e) => e.type === 'agent_end');
  }

  /** Resolves with pi's response to `compact` ({success, data: {firstKeptEntryId, …}}). */
  compact(): Promise<Record<string, unknown>> {
    return this.send({ type: 'compact' }, (e) => e.type === 'response' && e.command === 'compact');
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

/** `opencode <args>` in the project (or `cwd`), offline (npm registry pointed at a closed port); `mayFail`: as runBinary's. */
export function runOpencode(home: AgentDirs, args: string[], cwd = home.project, opts: { mayFail?: boolean } = {}): Promise<Run> {
  return runBinary(
    OPENCODE_BIN,
    args,
    cwd,
    {
      PATH: process.env.PATH,
      HOME: home.root,
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      npm_config_registry: 'http://127.0.0.1:9/',
      NO_COLOR: '1',
    },
    opts,
  );
}

/**
 * `codex exec --skip-git-repo-check <args>` in `cwd`, with HOME `home` and its CODEX_HOME (whose
 * config.toml points codex at the Responses stand-in); stdin closed, as codex otherwise waits to
 * read more prompt from it. Returns stdout and stderr.
 */
export async function runCodex(where: { cwd: string; home: string; codexHome: string }, args: string[]): Promise<string> {
  const r = await runBinary(CODEX_BIN, ['exec', '--skip-git-repo-check', ...args], where.cwd, {
    PATH: process.env.PATH,
    HOME: where.home,
    CODEX_HOME: where.codexHome,
    RUST_LOG: 'error',
    NO_COLOR: '1',
  });
  return r.stdout + r.stderr;
}

/** What writeCodexConfig may set besides the stand-in's URL. */
export interface CodexConfig {
  model?: string;
  provider?: string;
  providerName?: string;
  extra?: string[];
}

/**
 * A CODEX_HOME whose config.toml points codex at a Responses stand-in as its model provider, running
 * commands without asking; `extra` lines go into the top table (e.g. `model_reasoning_summary`).
 */
export async function writeCodexConfig(codexHome: string, baseUrl: string, opts: CodexConfig = {}): Promise<void> {
  const provider = opts.provider ?? 'standin';
  await fs.mkdir(codexHome, { recursive: true });
  await fs.writeFile(
    join(codexHome, 'config.toml'),
    [
      `model = "${opts.model ?? 'standin-model'}"`,
      `model_provider = "${provider}"`,
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      ...(opts.extra ?? []),
      '',
      `[model_providers.${provider}]`,
      `name = "${opts.providerName ?? 'Loopback stand-in'}"`,
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
}

/** An agents home (setupAgentHome) where codex runs too, on a Responses stand-in of its own. */
export interface CodexAgentHome extends AgentHome {
  responses: ResponsesStandIn;
  /** `<root>/.codex`, its config.toml pointing codex at `responses` */
  codexHome: string;
  /** `codex exec … <args>` in the project with this HOME and CODEX_HOME (runCodex). */
  codex(args: string[]): Promise<string>;
}

/**
 * setupAgentHome (`rules`: the Anthropic stand-in's) plus a Responses stand-in (`responsesRules`) and
 * a CODEX_HOME whose config points codex at it (`codexConfig`: writeCodexConfig's options); closing
 * it closes both stand-ins.
 */
export async function setupCodexAgentHome(
  opts: { rules?: Rule[]; responsesRules?: ResponsesRule[]; codexConfig?: CodexConfig } = {},
): Promise<CodexAgentHome> {
  const home = await setupAgentHome({ rules: opts.rules });
  const responses = await startResponsesStandIn({ rules: opts.responsesRules }).catch(async (e: unknown) => {
    await home.close();
    throw e;
  });
  const codexHome = join(home.root, '.codex');
  await writeCodexConfig(codexHome, responses.baseUrl, opts.codexConfig);
  return {
    ...home,
    responses,
    codexHome,
    codex: (args) => runCodex({ cwd: home.project, home: home.root, codexHome }, args),
    close: async () => {
      await responses.close();
      await home.close();
    },
  };
}

/** `codex exec resume <id> <probe>`: the whole input of the last request codex sent for it. */
export async function codexResumeInput(home: CodexAgentHome, id: string, probe: string): Promise<ResponsesItem[]> {
  const mark = home.responses.responseRequests().length;
  await home.codex(['resume', id, probe]);
  const req = home.responses.responseRequests().slice(mark).at(-1);
  if (!req) throw new Error('codex sent no request');
  return req.input;
}

/** codexResumeInput without what codex adds itself (isCodexInjected). */
export async function resumedByCodex(home: CodexAgentHome, id: string, probe: string): Promise<ResponsesItem[]> {
  return (await codexResumeInput(home, id, probe)).filter((i) => !isCodexInjected(i));
}

/** OpenCode creates its database (which `convert --to opencode` writes into) when it first runs: a `session list` does. */
export async function createOpencodeDatabase(home: AgentDirs): Promise<void> {
  await runOpencode(home, ['session', 'list']);
}

/** The Messages API requests the stand-in received from index `mark` on. */
export function requestsSince(home: AgentHome, mark: number): AnthropicRequest[] {
  return home.standIn.messageRequests().slice(mark);
}

/**
 * GitHub Copilot CLI's environment for a run offline against the Anthropic stand-in at `url`, in home
 * `home` (its sessions under `home/.copilot`); the package the binary unpacks on its first run is kept
 * between runs. `path`: the PATH it runs with.
 */
export function copilotOfflineEnv(home: string, url: string, path = process.env.PATH ?? ''): NodeJS.ProcessEnv {
  return {
    PATH: path,
    HOME: home,
    COPILOT_HOME: join(home, '.copilot'),
    COPILOT_PKG_CACHE_HOME: join(tmpdir(), 'threadbase-copilot-pkg'),
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_BASE_URL: url,
    COPILOT_PROVIDER_API_KEY: 'test',
    COPILOT_MODEL: 'claude-sonnet-4.5',
    NO_COLOR: '1',
  };
}
