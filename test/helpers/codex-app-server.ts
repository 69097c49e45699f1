/**
 * Codex's own app-server (`codex app-server`, JSON-RPC lines on stdio) over a CODEX_HOME: what codex's
 * resume picker, `codex resume --last` and the desktop app ask it (`thread/list`, `thread/archive`, …).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CODEX_BIN } from './agents.js';

/** A thread as `thread/list` gives it (the fields the tests read). */
export interface ListedThread {
  id: string;
  name: string | null;
  modelProvider: string;
  preview: string;
  parentThreadId: string | null;
  agentNickname: string | null;
  agentRole: string | null;
  source: unknown;
}

/** Every source kind `codex exec` and the interactive clients record (`thread/list` lists the interactive ones by default). */
export const ALL_SOURCES = ['cli', 'vscode', 'exec', 'appServer'];

/** A JSON-RPC line of the app-server: a reply (id), a notification (method) or a request to the client (both). */
export interface AppServerMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

/** An initialized app-server: methods called, notifications awaited, closed at the end. */
export interface AppServerSession {
  call(method: string, params: unknown): Promise<Record<string, unknown>>;
  /** the next notification of `method` (ask before what brings it) */
  notice(method: string): Promise<AppServerMessage>;
  close(): Promise<void>;
}

/**
 * `codex app-server` in `where`, initialized. A request from the server (an approval: a command's
 * decision, an MCP elicitation's action) is answered with `onRequest`'s result; without it, left unanswered.
 * A call not answered within `replyTimeoutMs` (when given) fails with the server's stderr.
 */
export async function openCodexAppServer(
  where: { cwd: string; home: string; codexHome: string },
  opts: { onRequest?: (request: AppServerMessage) => unknown; replyTimeoutMs?: number } = {},
): Promise<AppServerSession> {
  const child = spawn(CODEX_BIN, ['app-server'], {
    cwd: where.cwd,
    env: { PATH: process.env.PATH, HOME: where.home, CODEX_HOME: where.codexHome, RUST_LOG: 'error', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const replies = new Map<number, (reply: AppServerMessage) => void>();
  const waiting: { method: string; done: (m: AppServerMessage) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    let m: AppServerMessage;
    try {
      m = JSON.parse(l) as AppServerMessage;
    } catch {
      return; // not a message
    }
    if (m.method && m.id !== undefined) {
      if (opts.onRequest) send({ id: m.id, result: opts.onRequest(m) });
    } else if (m.method) {
      const i = waiting.findIndex((w) => w.method === m.method);
      if (i >= 0) waiting.splice(i, 1)[0]?.done(m);
    } else if (typeof m.id === 'number') replies.get(m.id)?.(m);
  });
  let next = 0;
  const call = (method: string, p: unknown) =>
    new Promise<Record<string, unknown>>((done, fail) => {
      const id = ++next;
      const timer =
        opts.replyTimeoutMs === undefined
          ? undefined
          : setTimeout(() => fail(new Error(`codex app-server: no reply to ${method}\n${stderr}`)), opts.replyTimeoutMs);
      replies.set(id, (r) => {
        clearTimeout(timer);
        if (r.error) fail(new Error(`codex app-server ${method}: ${JSON.stringify(r.error)}`));
        else done(r.result as Record<string, unknown>);
      });
      send({ id, method, params: p });
    });
  const close = async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await call('initialize', { clientInfo: { name: 'threadbase-test', title: null, version: '0' } });
    send({ method: 'initialized' });
  } catch (err) {
    await close();
    throw err;
  }
  return { call, notice: (method) => new Promise((done) => waiting.push({ method, done })), close };
}

/** Calls one method after another (each with its params) on one app-server in `where`; their results in order. */
export async function codexAppServer(
  where: { cwd: string; home: string; codexHome: string },
  calls: readonly (readonly [method: string, params: unknown])[],
): Promise<unknown[]> {
  const server = await openCodexAppServer(where, { replyTimeoutMs: 30_000 });
  try {
    const results: unknown[] = [];
    for (const [method, params] of calls) results.push(await server.call(method, params));
    return results;
  } finally {
    await server.close();
  }
}

/** `thread/list` with `params`: the listing codex's resume picker, `codex resume --last` and the desktop app read. */
export async function codexThreadList(
  where: { cwd: string; home: string; codexHome: string },
  params: Record<string, unknown>,
): Promise<ListedThread[]> {
  const [listed] = (await codexAppServer(where, [['thread/list', params]])) as [{ data: ListedThread[] }];
  return listed.data;
}
