/**
 * A team server's answer that takes longer to download than the remote store's timeout (a 50 MB
 * session over a modest link) is read whole as long as it keeps coming; the timeout was one limit on
 * the whole request and cut it off. A server that does not answer, or stops sending, still times out.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { type LoopbackServer, startRecordingServer } from '../helpers/loopback-server.js';
import { helloSession } from '../helpers/sessions.js';

const TIMEOUT_MS = 400;
let server: LoopbackServer;

beforeAll(async () => {
  server = await startRecordingServer(async (req, res) => {
    const id = decodeURIComponent(req.path.split('/').pop() ?? '');
    if (id === 'silent') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' });
    const text = JSON.stringify({ code: 0, data: helloSession(id), msg: 'ok' });
    const parts = 6;
    const size = Math.ceil(text.length / parts);
    for (let i = 0; i < parts; i++) {
      res.write(text.slice(i * size, (i + 1) * size));
      // the whole answer takes 6 × 150 ms, over twice the timeout; 'stalls' stops after its first part
      if (id === 'stalls') return;
      await sleep(150);
    }
    res.end();
  });
});

afterAll(async () => {
  await server?.close();
});

describe('remote store timeout', () => {
  const store = () => new RemoteStore(`http://key@127.0.0.1:${server.port}`, { timeoutMs: TIMEOUT_MS });

  it('reads an answer that keeps coming for longer than the timeout', async () => {
    const s = await store().getSession('slow');
    expect(s?.entries[0]?.id).toBe('slow-e1');
  });

  it('gives up on a server that does not answer or stops sending', async () => {
    await expect(store().getSession('silent')).rejects.toThrow(/no answer from .* in 400 ms/);
    await expect(store().getSession('stalls')).rejects.toThrow(/no answer from .* in 400 ms/);
  });
});
