/** The library surface an Agent SDK app uses: everything from the package root, against openStore(). */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as lib from '../../src/index.js';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-lib-'));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('library API', () => {
  it('exports the converters, ClaudeAgentStorage, MemoryStore and openStore', () => {
    for (const name of [
      'contextToAnthropic',
      'messagesFromAnthropic',
      'messagesToAnthropic',
      'contextToOpenAI',
      'messagesFromOpenAI',
      'messagesToOpenAI',
      'contextToAiSdk',
      'messagesFromAiSdk',
      'messagesToAiSdk',
      'ClaudeAgentStorage',
      'MemoryStore',
      'openStore',
    ] as const) {
      // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test looks the exports up by name
      expect(typeof lib[name], name).toBe('function');
    }
    expect(lib.contextFormatNames()).toEqual(expect.arrayContaining(['anthropic', 'openai', 'ai-sdk', 'markdown']));
  });

  it('openStore() gives the default local store under THREADBASE_HOME, and ClaudeAgentStorage stores into it', async () => {
    const tbHome = join(home, 'tb');
    const warnings: string[] = [];
    const store = await lib.openStore(undefined, {
      env: { home, env: { THREADBASE_HOME: tbHome } },
      warn: (m) => warnings.push(m),
    });
    try {
      expect(store.writeSession).toBeTypeOf('function');
      expect(store.appendEntries).toBeTypeOf('function');
      if (store.name === 'memory') expect(warnings.join('\n')).toMatch(/SQLite store is not available/);
      else expect(existsSync(join(tbHome, 'index.db'))).toBe(true);
      const errors: unknown[] = [];
      const storage = new lib.ClaudeAgentStorage({ store, onError: (e) => errors.push(e) });
      await storage.saveMessage({ type: 'system', subtype: 'init', session_id: 'lib-session-1' });
      await storage.saveMessage({ type: 'user', message: { role: 'user', content: 'hello' }, session_id: 'lib-session-1' });
      await storage.saveMessage({
        type: 'assistant',
        message: { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }] },
        session_id: 'lib-session-1',
      });
      expect(errors).toEqual([]);
      const req = lib.contextToAnthropic(await store.getContext('lib-session-1'));
      expect(req.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      ]);
      expect((await store.getSession('lib-session-1'))?.source).toBe('threadbase');
    } finally {
      await store.close?.();
    }
  });
});
