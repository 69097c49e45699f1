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

/** Calls one method after another (each with its params) on one app-server in `where`; their results in order. */
export async function codexAppServer(
  where: { cwd: string; home: string; codexHome: string },
  calls: readonly (readonly [method: string, params: unknown])[],
): Promise<unknown[]> {
  const child = spawn(CODEX_BIN, ['app-server'], {
    cwd: where.cwd,
    env: { PATH: process.env.PATH, HOME: where.home, CODEX_HOME: where.codexHome, RUST_LOG: 'error', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const replies = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();
  createInterface({ input: child.stdout }).on('line', (l) => {
    try {
      const m = JSON.parse(l) as { id?: number; result?: unknown; error?: unknown };
      if (typeof m.id === 'number') replies.get(m.id)?.(m);
    } catch {
      // not a reply
    }
  });
  let next = 0;
  const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const call = (method: string, p: unknown) =>
    new Promise<unknown>((done, fail) => {
      const id = ++next;
      const timer = setTimeout(() => fail(new Error(`codex app-server: no reply to ${method}\n${stderr}`)), 30_000);
      replies.set(id, (r) => {
        clearTimeout(timer);
        if (r.error) fail(new Error(`codex app-server ${method}: ${JSON.stringify(r.error)}`));
        else done(r.result);
      });
      send({ id, method, params: p });
    });
  try {
    await call('initialize', { clientInfo: { name: 'threadbase-test', title: null, version: '0' } });
    send({ method: 'initialized' });
    const results: unknown[] = [];
    for (const [method, params] of calls) results.push(await call(method, params));
    return results;
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
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
