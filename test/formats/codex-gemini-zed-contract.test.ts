/**
 * The driver contract, checked over the Codex, Gemini and Zed fixtures until the shared
 * conformance suite exists: what listSessions names, getSession returns; every entry is found by
 * getEntry; ancestry runs from a root to the entry; the context is built from that path only;
 * filters and unknown ids behave.
 */

import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { ZedDriver } from '../../src/formats/zed/index.js';
import type { SessionDriver } from '../../src/model/driver.js';
import { NotFoundError } from '../../src/model/errors.js';
import { currentLeaf, pathToLeaf } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { runCliOk } from '../helpers/cli.js';

const drivers: [string, () => SessionDriver][] = [
  ['codex', () => new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: resolve('test/fixtures/codex/home') } })],
  [
    'codex sub-agents',
    () => new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: resolve('test/fixtures/codex/subagent-home') } }),
  ],
  ['gemini', () => new GeminiDriver({ home: resolve('test/fixtures/gemini/home'), env: {} })],
  ['gemini 0.61.0', () => new GeminiDriver({ home: resolve('test/fixtures/gemini/real-0.61.0'), env: {} })],
  ['zed', () => new ZedDriver({ home: resolve('test/fixtures/zed/home'), env: {} })],
];

describe.each(drivers)('driver contract: %s', (_name, make) => {
  it('lists sessions newest first, each one readable with the same facts', async () => {
    const driver = make();
    const list = await driver.listSessions();
    expect(list.length).toBeGreaterThan(0);
    expect(
      [...list].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)).map((s) => s.id),
    ).toEqual(list.map((s) => s.id));
    expect(new Set(list.map((s) => s.id)).size).toBe(list.length);
    for (const info of list) {
      expect(info.source).toBe(driver.name);
      expect(info).not.toHaveProperty('entries');
      const s = (await driver.getSession(info.id)) as Session;
      expect(s.id).toBe(info.id);
      expect(s.messageCount).toBe(info.messageCount);
      expect(s.title).toBe(info.title);
      expect(s.project).toBe(info.project);
      expect(s.parentId ?? null).toBe(info.parentId ?? null);
    }
  });

  it('finds every entry, builds ancestry from a root and the context from the path only', async () => {
    const driver = make();
    for (const info of await driver.listSessions()) {
      const s = (await driver.getSession(info.id)) as Session;
      const ids = new Set(s.entries.map((e) => e.id));
      expect(ids.size).toBe(s.entries.length);
      for (const e of s.entries) {
        expect((await driver.getEntry(s.id, e.id))?.id).toBe(e.id);
        const ancestry = await driver.getAncestry(s.id, e.id);
        expect(ancestry.at(-1)?.id).toBe(e.id);
        expect(ancestry[0]?.parentId === null || !ids.has(ancestry[0]?.parentId ?? '')).toBe(true);
        for (let i = 1; i < ancestry.length; i++) expect(ancestry[i]?.parentId).toBe(ancestry[i - 1]?.id);
      }
      const leaf = currentLeaf(s);
      if (!leaf) continue;
      const onPath = new Set(pathToLeaf(s).flatMap((e) => (e.kind === 'message' ? e.message.parts : [])));
      const ctx = await driver.getContext(s.id);
      // Every part the context shows is one on the path, unless the agent's resume builds it (summaries, replacement history).
      for (const m of ctx.messages) {
        if (m.meta?.compactionSummary || m.meta?.branchSummary || m.meta?.compactionReplacement) continue;
        for (const p of m.parts) expect(onPath.has(p)).toBe(true);
      }
      expect((await driver.getMessages(s.id)).length).toBe(ctx.messages.length);
    }
  });

  it('totals usage as the sessions count it, filters, and says so for unknown ids', async () => {
    const driver = make();
    const list = await driver.listSessions();
    const totals = await driver.usage();
    let output = 0;
    // The sessions' own totals (Zed's come from its running total, the others' from their responses).
    for (const info of list) {
      const s = (await driver.getSession(info.id)) as Session;
      output += (s.usage ?? summarizeUsage(s.entries).usage).output;
    }
    expect(totals.output).toBe(output);
    const [first] = list;
    expect(await driver.listSessions({ limit: 1 })).toHaveLength(1);
    if (first?.project)
      expect((await driver.listSessions({ project: first.project })).every((s) => s.project === first.project)).toBe(true);
    expect(await driver.listSessions({ since: '2999-01-01T00:00:00Z' })).toEqual([]);
    expect(await driver.getSession('no-such-session')).toBeUndefined();
    await expect(driver.getContext('no-such-session')).rejects.toBeInstanceOf(NotFoundError);
    if (first) await expect(driver.getAncestry(first.id, 'no-such-entry')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('codex, gemini and zed through sync, search and stats', () => {
  it('indexes all three from one home; search finds each, stats counts their models', async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-three-'));
    try {
      await fs.cp(resolve('test/fixtures/codex/home'), join(home, '.codex'), { recursive: true });
      await fs.cp(resolve('test/fixtures/gemini/home/.gemini'), join(home, '.gemini'), { recursive: true });
      await fs.cp(resolve('test/fixtures/zed/home/.local'), join(home, '.local'), { recursive: true });
      const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
      const run = (args: string[]) => runCliOk(env, args);
      await run(['sync']);
      const sources = async (q: string) => [
        ...new Set((JSON.parse(await run(['search', q, '--json'])) as { source: string }[]).map((h) => h.source)),
      ];
      expect(await sources('hello-from-tool')).toEqual(['codex']);
      expect(await sources('package.json')).toEqual(['gemini']);
      expect(await sources('flake')).toEqual(['zed']);
      const byModel = JSON.parse(await run(['stats', '--by', 'model', '--json'])) as { key: string; outputTokens: number }[];
      const keys = byModel.map((r) => r.key);
      for (const k of ['gpt-5-codex', 'standin-model', 'gemini-2.5-pro', 'claude-sonnet-4-5']) expect(keys).toContain(k);
      expect(byModel.find((r) => r.key === 'gpt-5-codex')?.outputTokens).toBe(90);
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});
