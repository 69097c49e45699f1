/**
 * "A copied response counts once, in the preferred copy" is defined in three places: SQL for the
 * local index and PostgreSQL (preferredCopyOrder, src/stores/sqlite/copies.ts), and TypeScript for
 * what counts loaded sessions (CopyChoice, src/model/copies.ts: a server's /stats on SQLite or
 * memory, the web viewer's charts). This cross-check runs them all on the same copies and expects
 * the same totals. The copies are made so that each step of the rule decides something:
 * - Claude Code: 0afea31a's fork bcdac43d (created later: the original's copies count), and a
 *   resumed copy of 0afea31a started at the same time whose copy of one response records more
 *   output tokens and whose id sorts first (a tie on start and rank: the lower id's copy counts);
 * - pi: a copy of a session started at the same time, whose id sorts first, that records a cost of
 *   0 for the tokens of one response (a converted copy): the original's recorded 0.05 counts, not the copy's 0.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { WebData } from '../../src/server/web/data.js';
import { PRICES, statsOfSessions } from '../../src/stores/index-sync/prices.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { type TeamServer, teamServer, teamServerStats } from '../server/pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** the resumed copy: sorts before CLAUDE_ID */
const CLAUDE_COPY_ID = '00000000-0000-4000-8000-0000000000c1';
const PI_ID = '0190cccc-3333-7000-8000-000000000003';
/** the converted copy: sorts before PI_ID */
const PI_COPY_ID = '0190cccc-0000-7000-8000-000000000009';

type Totals = StatsTotals;

let home: string;
let env: DriverEnv;
let index: SqliteStore;
let team: TeamServer;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-copy-rule-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  const claudeDir = join(home, '.claude/projects/-tmp-cc-proj');
  const original = await readFile(join(claudeDir, `${CLAUDE_ID}.jsonl`), 'utf8');
  const lines = original.replaceAll(CLAUDE_ID, CLAUDE_COPY_ID).split('\n');
  // the copy of msg_standin_0008 records 3,400 output tokens where the original records 34
  const at = lines.findIndex((l) => l.includes('"id":"msg_standin_0008"') && l.includes('"output_tokens":34'));
  expect(at).toBeGreaterThan(0);
  lines[at] = (lines[at] ?? '').replace('"output_tokens":34', '"output_tokens":3400');
  await writeFile(join(claudeDir, `${CLAUDE_COPY_ID}.jsonl`), lines.join('\n'));

  const piDir = join(home, '.pi/agent/sessions/--work-all--');
  await mkdir(piDir, { recursive: true });
  const pi = await readFile('test/fixtures/pi/v3-all-types.jsonl', 'utf8');
  await writeFile(join(piDir, `2026-01-01T10-00-00-000Z_${PI_ID}.jsonl`), pi);
  // the copy records 0 for the tokens of the response that cost 0.05
  const copy = pi.replaceAll(PI_ID, PI_COPY_ID).replace('"total":0.05', '"total":0');
  expect(copy).not.toContain('"total":0.05');
  await writeFile(join(piDir, `2026-01-01T10-00-00-000Z_${PI_COPY_ID}.jsonl`), copy);

  await runCliOk(env, ['sync']);
  index = openSqliteStore(indexPath(env), { readonly: true });

  team = await teamServer('tb_copy_rule');
  await runCliOk(env, ['push', '--to', team.server.url, '--key', team.key, '--json']);
}, 180_000);

afterAll(async () => {
  await team?.close();
  await index?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** the local index's SQL (settleCopies): `threadbase stats --json` summed */
async function localIndex(): Promise<Totals> {
  return localStatsTotals(env);
}

/** PostgreSQL's SQL (costSummary), through the team server's /stats */
function postgres(): Promise<Totals> {
  return teamServerStats(team);
}

/** the TypeScript rule (CopyChoice) over the sessions as loaded */
async function loaded(): Promise<Totals> {
  const sessions: Session[] = [];
  for (const info of await index.listSessions()) {
    const s = await index.getSession(info.id);
    if (s) sessions.push(s);
  }
  const s = statsOfSessions(sessions, PRICES);
  return { cost: s.recordedCost + s.cost, input: s.usage.input, output: s.usage.output, messages: s.usage.messages };
}

/** the web viewer's charts over the local index (its totals, counted per message) */
async function viewer(): Promise<Totals> {
  const stats = await new WebData(index).stats({});
  expect(stats.granularity).toBe('message');
  const t = stats.totals;
  return { cost: t.cost, input: t.input, output: t.output, messages: t.responses };
}

describe('the copy rule', () => {
  it('the local index counts each copied response once, in the copy each step of the rule picks', async () => {
    const local = await localIndex();
    const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync'])) as {
      key: string;
      cost: number;
      outputTokens: number;
    }[];
    const of = (id: string) => rows.find((r) => r.key === id);
    // the lower id's copy counts on a tie: its 3,400 output tokens, where the original counts nothing of it
    expect(of(CLAUDE_COPY_ID)?.outputTokens).toBeGreaterThanOrEqual(3400);
    // on a tie of start, a recorded cost counts before a cost of 0 for tokens: the original's 0.05
    expect(of(PI_ID)?.cost).toBeCloseTo(0.05, 12);
    expect(of(PI_COPY_ID)?.cost).toBeCloseTo(0.33, 12);
    expect(local.messages).toBeGreaterThan(0);
  });

  it('PostgreSQL, the TypeScript rule and the web viewer agree with the local index', async () => {
    const local = await localIndex();
    for (const [name, got] of [
      ['PostgreSQL', await postgres()],
      ['TypeScript', await loaded()],
      ['viewer', await viewer()],
    ] as const) {
      expect({ name, cost: Math.abs(got.cost - local.cost) < 1e-9 }).toEqual({ name, cost: true });
      expect({ name, input: got.input, output: got.output, messages: got.messages }).toEqual({
        name,
        input: local.input,
        output: local.output,
        messages: local.messages,
      });
    }
  });

  it("on the team server, the viewer's charts count a copied response once, as its /stats does", async () => {
    const res = await fetch(`${team.server.url}/api/v1/web/stats`, { headers: { authorization: `Bearer ${team.key}` } });
    expect(res.status).toBe(200);
    const web = (await res.json()) as { granularity: string; totals: { cost: number; output: number; responses: number } };
    const stats = await postgres();
    expect(web.granularity).toBe('message');
    expect(Math.abs(web.totals.cost - stats.cost)).toBeLessThan(1e-9);
    expect({ output: web.totals.output, responses: web.totals.responses }).toEqual({
      output: stats.output,
      responses: stats.messages,
    });
  });

  it("the viewer's charts over a window count the responses inside it, as `stats --since --until`", async () => {
    // after three of 0afea31a's six responses (and of its resumed copy's); before the later sessions
    const since = '2026-11-22T19:13:01.100Z';
    const until = '2026-11-22T19:20:00.000Z';
    const rows = JSON.parse(
      await runCliOk(env, ['stats', '--by', 'model', '--json', '--no-sync', '--since', since, '--until', until]),
    ) as { cost: number; outputTokens: number; messages: number }[];
    const local = {
      cost: rows.reduce((a, r) => a + r.cost, 0),
      output: rows.reduce((a, r) => a + r.outputTokens, 0),
      messages: rows.reduce((a, r) => a + r.messages, 0),
    };
    expect(local.messages).toBeLessThan((await localIndex()).messages);
    const web = await new WebData(index).stats({ since, until });
    expect(Math.abs(web.totals.cost - local.cost)).toBeLessThan(1e-9);
    expect({ output: web.totals.output, responses: web.totals.responses }).toEqual({
      output: local.output,
      responses: local.messages,
    });
  });
});
