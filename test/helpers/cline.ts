/**
 * The real Cline CLI (node_modules/.bin/cline, 3.0.65) in a temp HOME against the loopback Anthropic
 * stand-in: the anthropic provider with the stand-in's base URL in `<data>/settings/providers.json`
 * (`cline auth -b` takes a base URL only for OpenAI-compatible providers). `cline --id <id>` resumes
 * only in its interactive UI, which wants a terminal: it runs under `script` (util-linux) for a
 * pseudo-terminal, the prompt typed once the UI shows its input line, and Ctrl-C twice once the
 * stand-in has answered it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { shellQuote } from '../../src/formats/shared/shell.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runBinary } from './agents.js';
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  type Rule,
  type StandIn,
  startAnthropicStandIn,
  textOf,
} from './anthropic-standin.js';

export const CLINE_BIN = resolve('node_modules/.bin/cline');

export interface ClineHome {
  root: string;
  project: string;
  /** Cline's data dir (`--data-dir`): sessions, settings */
  data: string;
  env: DriverEnv;
  standIn: StandIn;
  close(): Promise<void>;
}

export async function setupClineHome(opts: { rules?: Rule[] } = {}): Promise<ClineHome> {
  const standIn = await startAnthropicStandIn(opts);
  const root = await fs.mkdtemp(join(tmpdir(), 'tb-cline-home-'));
  const project = join(root, 'proj');
  const data = join(root, '.cline', 'data');
  await fs.mkdir(project, { recursive: true });
  await fs.mkdir(join(data, 'settings'), { recursive: true });
  await fs.writeFile(
    join(data, 'settings', 'providers.json'),
    JSON.stringify({
      version: 1,
      lastUsedProvider: 'anthropic',
      modes: {},
      providers: {
        anthropic: {
          settings: { provider: 'anthropic', apiKey: 'offline', model: 'claude-sonnet-4-5', baseUrl: standIn.url },
          updatedAt: new Date().toISOString(),
          tokenSource: 'manual',
        },
      },
    }),
  );
  const env: DriverEnv = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
  return {
    root,
    project,
    data,
    env,
    standIn,
    close: async () => {
      // a launch the test's own timeout cut short is still running: every process with this HOME ends
      for (const pid of await pidsWithEnv(`HOME=${root}`))
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      await standIn.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * A variable in each launch's environment naming that launch, so every process it started can be
 * found and ended: `script` puts cline in a session of its own (not its process group), and cline
 * catches SIGHUP and SIGTERM, so killing `script` could leave cline running.
 */
const LAUNCH_MARK = 'THREADBASE_TEST_CLINE_LAUNCH';

function childEnv(home: ClineHome, launch?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: home.root, TERM: 'xterm-256color', NO_COLOR: '1' };
  return launch ? { ...env, [LAUNCH_MARK]: launch } : env;
}

/** The pids of the processes whose environment holds `needle` (`NAME=value`), read from /proc (our own processes only). */
export async function pidsWithEnv(needle: string): Promise<number[]> {
  const pids = (await fs.readdir('/proc')).filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  const found = await Promise.all(
    pids.map(async (pid) => {
      try {
        const env = await fs.readFile(`/proc/${pid}/environ`);
        return env.includes(`${needle}\0`) ? [Number(pid)] : [];
      } catch {
        return []; // gone, or not ours
      }
    }),
  );
  return found.flat();
}

/** SIGKILL to every process of a launch, until none is left (one may start another meanwhile). */
async function endLaunch(launch: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const pids = await pidsWithEnv(`${LAUNCH_MARK}=${launch}`);
    if (!pids.length) return;
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `cmd` under `script` (a pseudo-terminal), marked as launch `launch`, in a process group of its own. */
function spawnInTerminal(cmd: string, cwd: string, home: ClineHome, launch: string): ChildProcessWithoutNullStreams {
  return spawn('script', ['-qfec', cmd, '/dev/null'], { cwd, env: childEnv(home, launch), stdio: 'pipe', detached: true });
}

/** Ends a `script` launch: its process group, then every process marked with the launch (cline in its own session). */
async function endTerminal(p: ChildProcessWithoutNullStreams, launch: string): Promise<void> {
  try {
    if (p.pid) process.kill(-p.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  await endLaunch(launch);
}

/** Runs `cline <args>` headless (a new session from a prompt); rejects with its output when it fails. */
export async function runCline(home: ClineHome, args: string[], cwd = home.project): Promise<string> {
  const launch = randomUUID();
  try {
    const r = await runBinary(CLINE_BIN, ['-P', 'anthropic', '--data-dir', home.data, ...args], cwd, childEnv(home, launch));
    return r.stdout + r.stderr;
  } finally {
    // runBinary's timeout ends cline alone, with SIGTERM; what it started goes too
    await endLaunch(launch);
  }
}

/** The terminal output without its escape sequences. */
const plain = (s: string): string => stripVTControlCharacters(s);

/**
 * `cline --id <id>` in the project (`args` before it), `probe` typed into its UI; resolves once the stand-in has
 * answered a request ending with the probe and Cline has shown the answer and exited. `loaded`: a text of the
 * session's transcript, typed only once the UI shows it (a big session's transcript comes seconds after its
 * input line, and a probe typed before is lost).
 */
export function resumeCline(
  home: ClineHome,
  id: string,
  probe: string,
  cwd = home.project,
  args: string[] = [],
  loaded?: string,
  timeoutMs = 120_000,
): Promise<string> {
  const cmd = [CLINE_BIN, '-P', 'anthropic', '--data-dir', home.data, ...args, '--id', id].map(shellQuote).join(' ');
  const launch = randomUUID();
  return new Promise((done, fail) => {
    const p = spawnInTerminal(cmd, cwd, home, launch);
    let out = '';
    let typed = false;
    let typedAt = 0;
    let answered = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, f: () => void) => timers.push(setTimeout(f, ms));
    const onData = (d: Buffer) => {
      out += String(d);
      const text = plain(out);
      if (!typed && text.includes('Ask anything') && (loaded === undefined || text.includes(loaded))) {
        typed = true;
        typedAt = out.length;
        later(1000, () => p.stdin.write(probe));
        later(1600, () => p.stdin.write('\r'));
      }
      if (typed && !answered && sentProbe(home, probe) && plain(out.slice(typedAt)).includes('ok:')) {
        answered = true;
        // Ctrl-C twice: the first clears the input, the second quits (Cline saves the session before)
        later(1500, () => p.stdin.write('\x03'));
        later(2000, () => p.stdin.write('\x03'));
      }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void endTerminal(p, launch);
    }, timeoutMs);
    p.on('close', async () => {
      clearTimeout(timer);
      for (const t of timers) clearTimeout(t);
      // `script` gone: what it started may not be
      await endTerminal(p, launch);
      if (answered && !timedOut) done(plain(out));
      else
        fail(
          new Error(
            `cline --id ${id} did not answer ${probe}${timedOut ? ` in ${timeoutMs} ms` : ''}:\n${plain(out).slice(-3000)}`,
          ),
        );
    });
  });
}

/** A message's content as blocks (a string content one text block). */
export const blocksOf = (m: AnthropicMessage | undefined): AnthropicBlock[] =>
  !m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;

/** "RUN: <command>" in the last message (not yet answered): Cline's run_commands tool runs it. */
export const runCommandRule: Rule = (req) => {
  const m = /RUN: (.+)/.exec(textOf(req.messages.at(-1)));
  const last = req.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  const tool = req.tools?.find((t) => t.name === 'run_commands');
  if (!m || !tool || answered) return undefined;
  return { toolUse: { name: tool.name, input: { commands: [(m[1] as string).trim()] } } };
};

/**
 * `cline --id <id>` in its terminal UI, `probe` typed: the request it sends (the probe in its last
 * message, last), `settleMs` after it came (for Cline to save what it answered), then Ctrl-C twice.
 * For a session whose last turn ended with a call or a result, where resumeCline's wait for a probe
 * sent alone and for the shown answer does not hold.
 */
export function resumedWithProbe(home: ClineHome, id: string, probe: string, settleMs = 0): Promise<AnthropicRequest> {
  const cmd = [CLINE_BIN, '-P', 'anthropic', '--data-dir', home.data, '--id', id].map(shellQuote).join(' ');
  const launch = randomUUID();
  const p = spawnInTerminal(cmd, home.project, home, launch);
  const closed = new Promise((done) => p.on('close', done));
  let out = '';
  p.stdout.on('data', (d) => {
    out += String(d);
  });
  const request = () =>
    home.standIn.messageRequests().find((r) => {
      const t = blocksOf(r.messages.at(-1)).at(-1);
      return t?.type === 'text' && String(t.text).trim() === probe;
    });
  const until = async (ok: () => boolean, what: string) => {
    for (const stop = Date.now() + 60_000; !ok(); await new Promise((r) => setTimeout(r, 200)))
      if (Date.now() > stop) throw new Error(`cline --id ${id}: ${what} not seen:\n${plain(out).slice(-3000)}`);
  };
  return (async () => {
    try {
      await until(() => out.includes('Ask anything'), 'its input line');
      await new Promise((r) => setTimeout(r, 1000));
      p.stdin.write(probe);
      await new Promise((r) => setTimeout(r, 600));
      p.stdin.write('\r');
      await until(() => request() !== undefined, `a request ending with ${probe}`);
      if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
      return request() as AnthropicRequest;
    } finally {
      // Ctrl-C twice: the first clears the input, the second quits (Cline saves the session before)
      p.stdin.write('\x03');
      await new Promise((r) => setTimeout(r, 500));
      p.stdin.write('\x03');
      const stuck = setTimeout(() => void endTerminal(p, launch), 30_000);
      await closed;
      clearTimeout(stuck);
      await endTerminal(p, launch);
    }
  })();
}

/** Whether the stand-in got a request whose last user message is the probe. */
function sentProbe(home: ClineHome, probe: string): boolean {
  return home.standIn.messageRequests().some((r) => textOf(r.messages.at(-1)).trim() === probe);
}

/** The request Cline sent with the probe last, its messages without the probe turn. */
export function resumedRequest(home: ClineHome, probe: string): AnthropicRequest {
  const req = home.standIn.messageRequests().find((r) => textOf(r.messages.at(-1)).trim() === probe);
  if (!req) throw new Error(`cline sent no request ending with ${probe}`);
  return { ...req, messages: req.messages.slice(0, -1) };
}

/** A message Cline sent, its blocks as comparable items: texts, calls, results (their whole text). */
export function messageItems(m: AnthropicMessage): string[] {
  const blocks: AnthropicBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  return blocks.flatMap((b) => {
    if (b.type === 'text') return [`${m.role}:${String(b.text)}`];
    if (b.type === 'tool_use') return [`call:${String(b.id)}:${String(b.name)}:${JSON.stringify(b.input)}`];
    if (b.type === 'tool_result') return [`result:${String(b.tool_use_id)}:${textOf({ role: 'user', content: [b] })}`];
    return [];
  });
}
