/**
 * A session converted into threadbase's own store (`convert --to threadbase`, kept in the index's
 * database with source `threadbase`) copies its original's responses (same response ids and times):
 * the local index, PostgreSQL, the TypeScript rule and the web viewer's charts each count them once, so `stats` gives the
 * same totals whatever holds the pair. Claude Code's 0afea31a splits responses over several lines
 * (one message.id): each response still counts once.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { WebData } from '../../src/server/web/data.js';
import { PRICES, statsOfSessions } from '../../src/stores/index-sync/prices.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

type Totals = StatsTotals;

let home: string;
let env: DriverEnv;
let index: SqliteStore;
let pg: TestSchema;
let copyId: string;
let before: Totals;
let beforeOriginal: number;

/** `threadbase stats --json` summed */
async function localIndex(): Promise<Totals> {
  return localStatsTotals(env);
}

const rounded = (t: Totals) => ({ ...t, cost: Math.round(t.cost * 1e9) / 1e9 });

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-copy-rule-tb-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync', '--source', 'claude']);
  before = await localIndex();
  beforeOriginal =
    (
      JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync'])) as {
        key: string;
        inputTokens: number;
      }[]
    ).find((r) => r.key === CLAUDE_ID)?.inputTokens ?? -1;
  expect(beforeOriginal).toBeGreaterThan(0);
  // the session and its sub-agent's, each written as a new session of the store
  const written = JSON.parse(await runCliOk(env, ['convert', CLAUDE_ID, '--to', 'threadbase', '--json'])) as {
    id: string;
    children: unknown[];
  };
  expect(written.children).toHaveLength(1);
  copyId = written.id;
  expect(copyId).not.toBe('');
  expect(copyId).not.toBe(CLAUDE_ID);
  index = openSqliteStore(indexPath(env), { readonly: true });
  pg = await freshSchema('tb_copy_rule_tb');
}, 180_000);

afterAll(async () => {
  await pg?.drop();
  await index?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

it('a copy in threadbase’s own store counts once: the index, PostgreSQL and the TypeScript rule agree', async () => {
  const listed = await index.listSessions();
  expect(listed.find((s) => s.id === copyId)?.source).toBe('threadbase');
  const sessions: Session[] = [];
  for (const info of listed) {
    const s = await index.getSession(info.id);
    if (s) sessions.push(s);
  }
  const local = await localIndex();
  // the copy adds nothing: its responses are the original's
  expect(rounded(local)).toEqual(rounded(before));
  const ts = statsOfSessions(sessions, PRICES);
  const { input, output, messages } = ts.usage;
  expect(rounded({ cost: ts.recordedCost + ts.cost, input, output, messages })).toEqual(rounded(local));
  for (const s of sessions) await pg.store.writeSession(s, { keepId: true });
  const p = await pg.store.costSummary({}, PRICES);
  expect(
    rounded({ cost: p.recordedCost + p.cost, input: p.usage.input, output: p.usage.output, messages: p.usage.messages }),
  ).toEqual(rounded(local));
  // the web viewer's charts over the local index, per message, count it once too
  const web = await new WebData(index).stats({});
  expect(web.granularity).toBe('message');
  expect(
    rounded({ cost: web.totals.cost, input: web.totals.input, output: web.totals.output, messages: web.totals.responses }),
  ).toEqual(rounded(local));
  // the pair counts what the original alone did, in the original: the copy, which started when it did, says
  // threadbase wrote it (its id, random, decided it before)
  expect(listed.find((s) => s.id === copyId)?.writtenBy).toBe('threadbase');
  const bySession = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync'])) as {
    key: string;
    inputTokens: number;
  }[];
  const inputOf = (id: string) => bySession.find((r) => r.key === id)?.inputTokens ?? 0;
  expect(inputOf(CLAUDE_ID)).toBe(beforeOriginal);
  expect(inputOf(copyId)).toBe(0);
  // each session's own listing still shows what it records
  expect(listed.find((s) => s.id === copyId)?.usage?.input).toBe(listed.find((s) => s.id === CLAUDE_ID)?.usage?.input);
});

it('an index of schema 11 settles the copies in threadbase’s own sessions when it opens', async () => {
  const settled = await localIndex();
  const writable = openSqliteStore(indexPath(env));
  // as schema 11 left them: the copies in threadbase's own sessions counted
  const unsettled = writable.db
    .prepare(
      "UPDATE entries SET counted = 1 WHERE counted = 2 AND session_id IN (SELECT id FROM sessions WHERE source = 'threadbase')",
    )
    .run().changes;
  expect(unsettled).toBeGreaterThan(0);
  writable.db.pragma('user_version = 11');
  const countedInput = () => writable.db.prepare('SELECT sum(input) FROM entries WHERE counted = 1').pluck().get() as number;
  expect(countedInput()).toBeGreaterThan(settled.input);
  await writable.close();
  // the CLI opens it again: schema 12 settles them
  expect(rounded(await localIndex())).toEqual(rounded(settled));
});
