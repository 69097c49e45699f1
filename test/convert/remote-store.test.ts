/** ClaudeAgentStorage into a remote `threadbase serve` through openStore('http://KEY@host'), when the server is in the build. */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { contextToOpenAI } from '../../src/convert/openai.js';
import type { SessionDriver } from '../../src/model/driver.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openStore } from '../../src/stores/open.js';
import { RemoteError, RemoteStore } from '../../src/stores/remote/index.js';

const hasServer = existsSync(new URL('../../src/server/index.ts', import.meta.url));

interface Running {
  url: string;
  close(): Promise<void>;
}

describe.skipIf(!hasServer)('remote store over threadbase serve', () => {
  let server: Running;
  let key: string;
  let otherKey: string;
  const backing = new MemoryStore();

  beforeAll(async () => {
    const mod = (await import('../../src/server/index.js')) as {
      startServer(o: { store: SessionDriver; tokens: unknown; port?: number; log?: (l: string) => void }): Promise<Running>;
      MemoryTokenStore: new () => { createToken(p: string): Promise<{ key: string }> };
    };
    const tokens = new mod.MemoryTokenStore();
    key = (await tokens.createToken('team-a')).key;
    otherKey = (await tokens.createToken('team-b')).key;
    server = await mod.startServer({ store: backing, tokens, port: 0, log: () => {} });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('stores an SDK stream on the server under the SDK session id, and reads it back', async () => {
    const u = new URL(server.url);
    const store = await openStore(`http://${key}@${u.host}`);
    expect(store).toBeInstanceOf(RemoteStore);
    const errors: unknown[] = [];
    const storage = new ClaudeAgentStorage({ store, onError: (e) => errors.push(e) });
    const sid = 'sdk-remote-1';
    await storage.saveMessage({ type: 'system', subtype: 'init', session_id: sid, cwd: '/team/app' });
    await storage.saveMessage({ type: 'user', message: { role: 'user', content: 'RUN: ls' }, session_id: sid });
    await storage.saveMessage({
      type: 'assistant',
      message: {
        id: 'r1',
        role: 'assistant',
        model: 'claude-x',
        content: [{ type: 'tool_use', id: 'tu', name: 'Bash', input: { command: 'ls' } }],
      },
      session_id: sid,
    });
    await storage.saveMessage({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu', content: 'a\nb' }] },
      session_id: sid,
    });
    expect(errors).toEqual([]);

    const s = await store.getSession(sid);
    expect(s?.source).toBe('threadbase');
    expect(s?.entries).toHaveLength(3);
    expect(contextToOpenAI(await store.getContext(sid)).messages).toEqual([
      { role: 'user', content: 'RUN: ls' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'tu', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: 'tu', content: 'a\nb' },
    ]);
    expect((await store.listSessions()).map((i) => i.id)).toContain(sid);
    expect((await (store as RemoteStore).search('RUN')).some((h) => h.sessionId === sid)).toBe(true);
    const fork = await store.forkSession?.(sid, {});
    expect(fork?.parentId).toBe(sid);

    // another project's key sees nothing of it
    const other = new RemoteStore(server.url, { key: otherKey });
    expect(await other.getSession(sid)).toBeUndefined();
    expect((await other.listSessions()).map((i) => i.id)).not.toContain(sid);
  });

  it('a wrong key fails every save through onError, and the loop goes on', async () => {
    const store = new RemoteStore(server.url, { key: 'tb_wrong' });
    const errors: unknown[] = [];
    const storage = new ClaudeAgentStorage({ store, onError: (e) => errors.push(e) });
    await storage.saveMessage({ type: 'system', subtype: 'init', session_id: 'x' });
    expect(await storage.saveMessage({ type: 'user', message: { role: 'user', content: 'a' }, session_id: 'x' })).toBe('failed');
    expect(await storage.saveMessage({ type: 'user', message: { role: 'user', content: 'b' }, session_id: 'x' })).toBe('failed');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(RemoteError);
    expect((errors[0] as RemoteError).status).toBe(401);
  });
});
