/**
 * A Claude Code session converted into Cline, Gemini CLI and GitHub Copilot CLI: each copy starts when
 * its original did and keeps each reply's response id and time, so the copies tie with the original.
 * On the tie the original counts over a session threadbase wrote (SessionInfo.writtenBy, which each
 * of those formats records and reads back): `stats --by source` credits every reply to Claude Code,
 * and the local index, PostgreSQL and the TypeScript rule agree. Without the rule, a copy with a
 * recorded cost (Cline's) or a lower session id took replies from the original.
 */
import { appendFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyChoice, type CopySession, CountedResponses, copyKeyOf, copyRankOf, preferredCopy } from '../../src/model/copies.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { countedUsage } from '../../src/model/usage.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { settleStoredCopies } from '../../src/stores/sqlite/copies.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const TARGETS = ['cline', 'gemini', 'qwen', 'claude', 'opencode', 'kilo', 'continue', 'pi'] as const;

interface StatsRow {
  key: string;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  messages: number;
}

let home: string;
let env: DriverEnv;
let index: SqliteStore;
let pg: TestSchema;
let before: StatsTotals;
let bySourceBefore: StatsRow[];
/** the project each copy is written under, so `--by project` tells a copy's replies from the original's */
const projects: Record<string, string> = {};
const copyIds: string[] = [];

/** every session the index holds, whole */
async function indexed(): Promise<Session[]> {
  const sessions: Session[] = [];
  for (const info of await index.listSessions()) {
    const s = await index.getSession(info.id);
    if (s) sessions.push(s);
  }
  return sessions;
}

const stats = async (by: string): Promise<StatsRow[]> =>
  JSON.parse(await runCliOk(env, ['stats', '--by', by, '--json', '--no-sync'])) as StatsRow[];

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-copy-origin-', fixtures: ['claude', 'opencode', 'kilo'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  // OpenCode and Kilo are written into their real databases (the fixtures'), beside their own sessions
  await runCliOk(env, ['sync']);
  before = await localStatsTotals(env);
  bySourceBefore = await stats('source');
  expect(before.messages).toBeGreaterThan(0);
  for (const to of TARGETS) {
    projects[to] = join(home, `into-${to}`);
    await mkdir(projects[to] as string);
    const written = JSON.parse(
      await runCliOk(env, ['convert', CLAUDE_ID, '--to', to, '--project', projects[to] as string, '--json']),
    ) as { id: string };
    copyIds.push(written.id);
  }
  await runCliOk(env, ['sync']);
  index = openSqliteStore(indexPath(env), { readonly: true });
  pg = await freshSchema('tb_copy_origin');
}, 240_000);

afterAll(async () => {
  await pg?.drop();
  await index?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('a copy threadbase wrote never wins over its original', () => {
  it('each written copy reads back as written by threadbase, the original not', async () => {
    const original = await index.getSession(CLAUDE_ID);
    expect(original?.writtenBy).toBeUndefined();
    for (const id of copyIds) {
      const copy = await index.getSession(id);
      expect({ id, source: copy?.source, writtenBy: copy?.writtenBy }).toEqual({
        id,
        source: copy?.source,
        writtenBy: 'threadbase',
      });
    }
    expect(new Set(await Promise.all(copyIds.map(async (id) => (await index.getSession(id))?.source)))).toEqual(new Set(TARGETS));
  });

  it('`stats --by source` credits every reply to claude, totals unchanged', async () => {
    expect(bySourceBefore.map((r) => r.key)).toContain('claude');
    expect(await stats('source')).toEqual(bySourceBefore);
    expect(await localStatsTotals(env)).toEqual(before);
    const byProject = await stats('project');
    for (const to of TARGETS) expect(byProject.find((r) => r.key === projects[to])).toBeUndefined();
  });

  it('the TypeScript rule credits the same replies to the original', async () => {
    const sessions = await indexed();
    expect(sessions.filter((s) => s.writtenBy === 'threadbase').length).toBeGreaterThanOrEqual(TARGETS.length);
    // in memory: the preferred copy of every counted reply is in the original (or its sub-agent)
    const choice = new CopyChoice<string>();
    for (const s of sessions) {
      const byId = new Map(s.entries.map((e) => [e.id, e]));
      for (const [id, c] of countedUsage(s.entries)) {
        const e = byId.get(id);
        if (e) choice.offer(copyKeyOf(e, s.id), s, copyRankOf(c), s.writtenBy ? `copy ${s.source}` : 'original');
      }
    }
    expect(new Set(choice.values())).toEqual(new Set(['original']));
    const counted = new CountedResponses();
    for (const s of sessions) counted.add(s);
    expect(counted.totals().messages).toBe(before.messages);
  });

  it('PostgreSQL credits the same replies to the original', async () => {
    const sessions = await indexed();
    // the same sessions written there, grouped by project
    for (const s of sessions) await pg.store.writeSession(s, { keepId: true });
    const pgByProject = await pg.store.costBuckets('project', {}, PRICES);
    for (const to of TARGETS) expect(pgByProject.find((b) => b.key === projects[to])).toBeUndefined();
    expect(pgByProject.reduce((a, b) => a + b.responses, 0)).toBe(before.messages);
  });

  it('preferredCopy: on the same start an original wins over a session threadbase wrote, whatever its rank or id', () => {
    const original: CopySession = { id: 'z-original', createdAt: '2026-01-01T00:00:00.000Z' };
    const copy: CopySession = { id: 'a-copy', createdAt: original.createdAt, writtenBy: 'threadbase' };
    // the copy has a recorded cost (rank 0), the original none (rank 1), and the copy's id is lower
    expect(preferredCopy(original, 1, copy, 0)).toBe(true);
    expect(preferredCopy(copy, 0, original, 1)).toBe(false);
    // an earlier start still wins first
    const earlierCopy = { ...copy, createdAt: '2025-12-31T00:00:00.000Z' };
    expect(preferredCopy(earlierCopy, 1, original, 0)).toBe(true);
  });

  it('a copy the agent appended to, read from where the index left it, stays marked', async () => {
    // twice: the first sync after a write may read the file whole, the second goes on from its offset
    for (const [n, name] of ['renamed', 'renamed again'].entries()) {
      const appended: string[] = [];
      for (const id of copyIds) {
        const s = await index.getSession(id);
        const leaf = s?.leafId ?? s?.entries.at(-1)?.id ?? null;
        // a line each agent appends as it goes on (a rename), after the copy's own
        if (s?.source === 'claude') {
          await appendFile(s.path as string, `${JSON.stringify({ type: 'custom-title', customTitle: name, sessionId: id })}\n`);
          appended.push(id);
        } else if (s?.source === 'pi') {
          const line = { type: 'session_info', id: `renamed${n}`, parentId: leaf, timestamp: new Date().toISOString(), name };
          await appendFile(s.path as string, `${JSON.stringify(line)}\n`);
          appended.push(id);
        }
      }
      expect(appended).toHaveLength(2);
      await runCliOk(env, ['sync']);
      for (const id of appended) {
        const s = await index.getSession(id);
        expect({ id, title: s?.title, writtenBy: s?.writtenBy }).toEqual({ id, title: name, writtenBy: 'threadbase' });
      }
    }
    expect(await stats('source')).toEqual(bySourceBefore);
  });

  // last: it rewrites the index as one made before the mark held it
  it('an index made before the mark reads the copies again and credits the original', async () => {
    const db = new Database(indexPath(env));
    db.prepare("UPDATE sessions SET written_by = NULL, info_json = json_remove(info_json, '$.writtenBy')").run();
    // the copies settled by the rule without the mark, and read by the readers before it
    settleStoredCopies(db);
    for (const to of TARGETS) db.prepare("UPDATE index_meta SET value = value || '-old' WHERE key = ?").run(`reader:${to}`);
    db.close();
    // the bug: copies credited with the original's replies
    expect((await stats('source')).map((r) => r.key)).not.toEqual(bySourceBefore.map((r) => r.key));
    await runCliOk(env, ['sync']);
    expect(await stats('source')).toEqual(bySourceBefore);
    expect((await index.getSession(copyIds[0] as string))?.writtenBy).toBe('threadbase');
  }, 120_000);
});
