/**
 * The local index through the library: an author reads every agent's sessions into one SQLite store
 * (IndexSync, as `threadbase sync`), searches them and counts tokens and cost by model (stats).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexSync, indexPath, loadPrices, openSqliteStore, Sources, type StatsRow, stats } from '../../src/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tb-lib-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the local index from the library', () => {
  it('syncs a Claude Code home, finds its sessions by a word and counts them by model', async () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    cpSync(join(root, 'test/fixtures/claude/real/projects'), join(home, '.claude', 'projects'), { recursive: true });
    const env = { home, env: {} };
    const sources = new Sources(env);
    const listed = (await sources.driver('claude').listSessions()).map((s) => s.id).sort();

    expect(indexPath(env)).toBe(join(home, '.threadbase', 'index.db'));
    const store = openSqliteStore(join(dir, 'index.db'));
    try {
      const report = await new IndexSync(store).sync(sources, { formats: ['claude'], workers: 0 });
      expect(report).toMatchObject({ units: listed.length, failed: 0 });
      expect((await store.listSessions({ source: 'claude' })).map((s) => s.id).sort()).toEqual(listed);
      const hits = await store.search('file', { source: 'claude' });
      expect(hits.length).toBeGreaterThan(0);
      expect(listed).toContain(hits[0]?.sessionId);

      const byModel: StatsRow[] = stats(store, loadPrices(), { by: 'model', source: 'claude' });
      expect(byModel.length).toBeGreaterThan(0);
      const total = byModel.reduce((n, r) => n + r.messages, 0);
      expect(total).toBe((await store.usage({ source: 'claude' })).messages);
      // Claude Code records no cost: the bundled table prices its models
      expect(byModel.some((r) => r.cost > 0)).toBe(true);
    } finally {
      await store.close();
      await sources.close();
    }
  });
});
