/**
 * How a push fails against a server that stops cooperating half-way (a loopback server answering
 * the ping, then failing uploads as it is told): the failure names the server and its cause.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pushSessions } from '../../src/server/push.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type LoopbackServer, type RecordedRequest, startRecordingServer, writeJson } from '../helpers/loopback-server.js';
import { oneMessageSession } from '../helpers/sessions.js';

let dir: string;
let server: LoopbackServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-push-failures-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A server whose ping answers 200 and whose uploads `upload` answers. */
async function serverAnswering(upload: (req: RecordedRequest, res: ServerResponse, n: number) => void): Promise<string> {
  let uploads = 0;
  server = await startRecordingServer((req, res) => {
    if (req.path === '/api/v1/ping') return writeJson(res, 200, { code: 0, data: 'pong', msg: 'ok' });
    upload(req, res, ++uploads);
  });
  return `http://127.0.0.1:${server.port}`;
}

/** A local store of `n` sessions, one message each. */
async function sessions(n: number): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (let i = 1; i <= n; i++)
    await store.writeSession(
      { ...oneMessageSession(`s${i}`, `session ${i}`), updatedAt: `2026-11-20T10:00:0${i}.000Z` },
      { keepId: true },
    );
  return store;
}

describe('push: an upload that fails', () => {
  it('names the server and the cause, not only "fetch failed"', async () => {
    const url = await serverAnswering((_req, res) => res.socket?.destroy());
    const report = await pushSessions({ from: await sessions(1), to: url, key: 'tb_k', statePath: join(dir, 'state.json') });
    expect(report.failed).toEqual([{ id: 's1', error: `cannot reach ${url}: UND_ERR_SOCKET (other side closed)` }]);
  });
});

const uploadsTo = (s: LoopbackServer | undefined) => (s?.requests ?? []).filter((r) => r.method === 'PUT').length;

/** The local session ids the push state holds as sent (one server and key in it). */
async function sentIn(statePath: string): Promise<string[]> {
  const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, Record<string, unknown>>;
  return Object.values(state)
    .flatMap((sent) => Object.keys(sent))
    .sort();
}

describe('push: a key revoked during the push', () => {
  it('stops at the first 401 and says so once, keeping what was sent', async () => {
    const url = await serverAnswering((req, res, n) =>
      n === 1
        ? writeJson(res, 201, { code: 0, data: { id: req.path.split('/').pop(), created: true }, msg: 'ok' })
        : writeJson(res, 401, { code: 401, msg: 'invalid API key', error: 'invalid API key' }, { 'www-authenticate': 'Bearer' }),
    );
    const statePath = join(dir, 'state.json');
    const push = pushSessions({ from: await sessions(4), to: url, key: 'tb_k', statePath });
    await expect(push).rejects.toThrow(
      new RegExp(
        `^${url} refused the key during the push \\(401 invalid API key\\): stopped at session s\\d, after 1 session pushed$`,
      ),
    );
    // not one refused upload per remaining session
    expect(uploadsTo(server)).toBe(2);
    expect((await sentIn(statePath)).length).toBe(1);
  });
});

describe('push: interrupted', () => {
  it('has saved the sessions already sent while the push still runs (Ctrl-C loses none of them)', async () => {
    const url = await serverAnswering((req, res, n) => {
      // the third upload never answers: the push is stopped there
      if (n <= 2) writeJson(res, 201, { code: 0, data: { id: req.path.split('/').pop(), created: true }, msg: 'ok' });
    });
    const statePath = join(dir, 'state.json');
    const push = pushSessions({ from: await sessions(3), to: url, key: 'tb_k', statePath }).catch((e: unknown) => e);
    await expect.poll(() => sentIn(statePath).catch(() => []), { timeout: 5000, interval: 100 }).toHaveLength(2);
    expect(uploadsTo(server)).toBe(3);
    // the hanging upload fails when the server goes; the push ends
    await server?.close();
    server = undefined;
    await push;
  });
});
