/**
 * How a push fails against a server that stops cooperating half-way (a loopback server answering
 * the ping, then failing uploads as it is told): the failure names the server and its cause.
 */
import { mkdtemp, rm } from 'node:fs/promises';
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
