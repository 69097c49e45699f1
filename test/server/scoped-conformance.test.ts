/**
 * The per-project view the server puts over a store that has no tenant column of its own (the
 * SQLite index) passes the same driver conformance suite, and a second project sees none of it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectScopedDriver } from '../../src/server/scope.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { describeDriverConformance, sampleSession } from '../conformance/driver-suite.js';

describeDriverConformance('sqlite, project-scoped', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tb-conf-scoped-'));
  const inner = openSqliteStore(join(dir, 'store.db'));
  return {
    driver: new ProjectScopedDriver(inner, 'project-1'),
    cleanup: async () => {
      await inner.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('project-scoped sqlite', () => {
  it('another project neither lists, reads, searches nor changes the session', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-scoped-'));
    const inner = openSqliteStore(join(dir, 'store.db'));
    try {
      const mine = new ProjectScopedDriver(inner, 'p1');
      const theirs = new ProjectScopedDriver(inner, 'p2');
      const info = await mine.writeSession(sampleSession());
      expect((await mine.listSessions()).map((s) => s.id)).toEqual([info.id]);
      expect(await theirs.listSessions()).toEqual([]);
      expect(await theirs.getSession(info.id)).toBeUndefined();
      expect(await theirs.search('zanzibarquokka')).toEqual([]);
      expect((await mine.search('zanzibarquokka')).length).toBeGreaterThan(0);
      await expect(theirs.deleteSession(info.id)).rejects.toThrow(/not found/);
      await expect(theirs.setTitle(info.id, 'x')).rejects.toThrow(/not found/);
      expect(await mine.getSession(info.id)).toBeDefined();
    } finally {
      await inner.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("finds a project's hits however many other projects' rank before them", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-scoped-'));
    const inner = openSqliteStore(join(dir, 'store.db'));
    try {
      const mine = new ProjectScopedDriver(inner, 'p1');
      const theirs = new ProjectScopedDriver(inner, 'p2');
      for (let i = 0; i < 70; i++) await theirs.writeSession(sampleSession());
      const info = await mine.writeSession(sampleSession());
      const hits = await mine.search('zanzibarquokka');
      expect(hits.length).toBeGreaterThan(0);
      expect(new Set(hits.map((h) => h.sessionId))).toEqual(new Set([info.id]));
      expect(await mine.search('zanzibarquokka', { limit: 1 })).toHaveLength(1);
    } finally {
      await inner.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
