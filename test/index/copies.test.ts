/**
 * A fork copies its parent's records (same entry id, time and response id): the real Claude Code
 * `--fork-session` pair and the real pi fork in test/fixtures; so does a conversion between Claude
 * Code and pi. The index counts each copied response once, in the session created first (the
 * original, for a conversion), and counts the copies again when that session leaves.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { encodeRollout } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { COPY_PROBE } from '../../src/stores/sqlite/copies.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';

const FIXTURES = join(__dirname, '..', 'fixtures');
const CLAUDE_PROJECT = join(FIXTURES, 'claude', 'real', 'projects', '-tmp-cc-proj');
const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_FORK = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';
const PI_PARENT = 'real-branched.jsonl';
const PI_FORK = 'real-fork.jsonl';

type Json = Record<string, unknown>;
const records = (file: string): Json[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);

/**
 * Input tokens per response of a Claude Code transcript, read straight from its lines (the last record
 * of each message.id that has usage), with the uuids of the response's records.
 */
function claudeResponses(file: string): { input: number; uuids: string[] }[] {
  const byId = new Map<string, { input: number; uuids: string[] }>();
  for (const r of records(file)) {
    const m = r.message as { id?: string; usage?: { input_tokens: number } } | undefined;
    if (r.type !== 'assistant' || !m?.id) continue;
    const resp = byId.get(m.id) ?? { input: 0, uuids: [] };
    resp.uuids.push(r.uuid as string);
    if (m.usage) resp.input = m.usage.input_tokens;
    byId.set(m.id, resp);
  }
  return [...byId.values()];
}

/** Input tokens per pi assistant message, with its entry id. */
function piResponses(file: string): { input: number; id: string }[] {
  return records(file).flatMap((r) => {
    const m = r.message as { role?: string; usage?: { input: number } } | undefined;
    return r.type === 'message' && m?.role === 'assistant' && m.usage ? [{ input: m.usage.input, id: r.id as string }] : [];
  });
}

const sum = (xs: { input: number }[]) => xs.reduce((n, x) => n + x.input, 0);

let dir: string;
let env: DriverEnv;
let store: SqliteStore;
let claudeDir: string;
let piDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-copies-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  claudeDir = join(dir, '.claude', 'projects', '-tmp-cc-proj');
  cpSync(CLAUDE_PROJECT, claudeDir, { recursive: true });
  piDir = join(dir, '.pi', 'agent', 'sessions', '--tmp-pi--');
  mkdirSync(piDir, { recursive: true });
  for (const f of [PI_PARENT, PI_FORK]) cpSync(join(FIXTURES, 'pi', f), join(piDir, f));
  mkdirSync(join(dir, '.threadbase'));
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sync = () => new IndexSync(store).sync(new Sources(env), { formats: ['claude', 'pi'] });
const inputBySession = () => new Map(stats(store, loadPrices(), { by: 'session' }).map((r) => [r.key, r.inputTokens] as const));

it('counts a response a fork copied once, in the session created first, and again when that one leaves', async () => {
  const parent = claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`));
  const fork = claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_FORK}.jsonl`));
  const parentUuids = new Set(parent.flatMap((r) => r.uuids));
  const forkOwn = fork.filter((r) => !r.uuids.some((u) => parentUuids.has(u)));
  // the fixture is a real fork: it copied some of its parent's responses and added its own
  expect(forkOwn.length).toBeGreaterThan(0);
  expect(forkOwn.length).toBeLessThan(fork.length);
  const piParent = piResponses(join(FIXTURES, 'pi', PI_PARENT));
  const piFork = piResponses(join(FIXTURES, 'pi', PI_FORK));
  const piParentIds = new Set(piParent.map((r) => r.id));
  const piForkOwn = piFork.filter((r) => !piParentIds.has(r.id));
  expect(piForkOwn.length).toBeGreaterThan(0);
  expect(piForkOwn.length).toBeLessThan(piFork.length);

  await sync();
  const piIds = new Map((await store.listSessions({ source: 'pi' })).map((s) => [s.path?.endsWith(PI_FORK), s.id] as const));
  const [piParentId, piForkId] = [piIds.get(false) as string, piIds.get(true) as string];
  let by = inputBySession();
  expect(by.get(CLAUDE_PARENT)).toBe(sum(parent));
  expect(by.get(CLAUDE_FORK)).toBe(sum(forkOwn));
  expect(by.get(piParentId)).toBe(sum(piParent));
  expect(by.get(piForkId)).toBe(sum(piForkOwn));
  // totals hold each response once; the fork's own listing still shows what its transcript records
  const claudeTotal = (await store.usage({ source: 'claude' })).input;
  expect(claudeTotal).toBe([...by.entries()].filter(([k]) => k !== piParentId && k !== piForkId).reduce((n, [, v]) => n + v, 0));
  expect((await store.listSessions({ source: 'claude' })).find((s) => s.id === CLAUDE_FORK)?.usage?.input).toBe(sum(fork));
  // the web viewer's stats, per message over the same sessions, count them once too
  const web = (await (await createWebApp({ driver: store }).request('/api/v1/web/stats')).json()) as {
    totals: { input: number };
    granularity: string;
  };
  expect(web.granularity).toBe('message');
  expect(web.totals.input).toBe((await store.usage()).input);
  expect(web.totals.input).toBeLessThan(sum(parent) + sum(fork) + sum(piParent) + sum(piFork));

  // the parent gone: the fork's copies are all that is left of those responses, and count
  rmSync(join(claudeDir, `${CLAUDE_PARENT}.jsonl`));
  rmSync(join(piDir, PI_PARENT));
  await sync();
  by = inputBySession();
  expect(by.has(CLAUDE_PARENT)).toBe(false);
  expect(by.get(CLAUDE_FORK)).toBe(sum(fork));
  expect(by.get(piForkId)).toBe(sum(piFork));

  // back again: the session created first counts them again
  cpSync(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`), join(claudeDir, `${CLAUDE_PARENT}.jsonl`));
  cpSync(join(FIXTURES, 'pi', PI_PARENT), join(piDir, PI_PARENT));
  await sync();
  by = inputBySession();
  expect(by.get(CLAUDE_PARENT)).toBe(sum(parent));
  expect(by.get(CLAUDE_FORK)).toBe(sum(forkOwn));
  expect(by.get(piForkId)).toBe(sum(piForkOwn));
});

it('an index of schema 5 settles the copies it holds when it opens', async () => {
  await sync();
  const settled = inputBySession();
  // as schema 5 left it: every copy counted, no index of counted ids
  store.db.exec('UPDATE entries SET counted = 1 WHERE counted = 2; DROP INDEX entries_copy_key; PRAGMA user_version = 5');
  expect(inputBySession().get(CLAUDE_FORK)).toBeGreaterThan(settled.get(CLAUDE_FORK) ?? 0);
  await store.close();
  store = openSqliteStore(indexPath(env));
  expect(inputBySession()).toEqual(settled);
});

it('counts a response converted into another agent once: the original with its cost, the copy when the original leaves', async () => {
  await sync();
  const before = inputBySession();
  const costOf = () => new Map(stats(store, loadPrices(), { by: 'session' }).map((r) => [r.key, r.cost] as const));
  const costBefore = costOf();
  const totalBefore = (await store.usage()).input;
  const sources = new Sources(env);
  const claudeParent = await sources.driver('claude').getSession(CLAUDE_PARENT);
  const piIds = new Map((await store.listSessions({ source: 'pi' })).map((s) => [s.path?.endsWith(PI_FORK), s.id] as const));
  const piParent = await sources.driver('pi').getSession(piIds.get(false) as string);
  if (!claudeParent || !piParent) throw new Error('fixture sessions missing');
  // Claude Code → pi and pi → Claude Code: each copy keeps entry ids, times and response ids
  const [toPi] = await convertSessionAll(claudeParent, sources.driver('pi'));
  const [toClaude] = await convertSessionAll(piParent, sources.driver('claude'));
  await sources.close();
  if (!toPi || !toClaude) throw new Error('nothing written');
  await sync();
  const by = inputBySession();
  // the copies count for nothing; every original as before, cost included (the pi copy records
  // cost 0 and the Claude Code copy none: the original counts, not the copy)
  expect(by.get(toPi.id) ?? 0).toBe(0);
  expect(by.get(toClaude.id) ?? 0).toBe(0);
  for (const [k, v] of before) expect(by.get(k), k).toBe(v);
  expect(costOf().get(CLAUDE_PARENT)).toBe(costBefore.get(CLAUDE_PARENT));
  expect(costOf().get(piParent.id)).toBe(costBefore.get(piParent.id));
  expect((await store.usage()).input).toBe(totalBefore);
  // each copy's own listing still shows what its file records
  const listed = new Map((await store.listSessions()).map((s) => [s.id, s.usage?.input] as const));
  expect(listed.get(toPi.id)).toBe(sum(claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`))));
  expect(listed.get(toClaude.id)).toBeGreaterThan(0);
  // the web viewer's stats count them once too
  const web = (await (await createWebApp({ driver: store }).request('/api/v1/web/stats')).json()) as {
    totals: { input: number; cost: number };
  };
  expect(web.totals.input).toBe(totalBefore);

  // the original gone: its copies count, each response once: the pi copy those only the original
  // had, the Claude Code fork (created before the conversion) those it copied too, as it records them
  rmSync(join(claudeDir, `${CLAUDE_PARENT}.jsonl`));
  await sync();
  const parent = claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`));
  const fork = claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_FORK}.jsonl`));
  const forkUuids = new Set(fork.flatMap((r) => r.uuids));
  const after = inputBySession();
  expect(after.get(toPi.id)).toBe(sum(parent.filter((r) => !r.uuids.some((u) => forkUuids.has(u)))));
  expect(after.get(CLAUDE_FORK)).toBe(sum(fork));
});

it('counts a response converted into OpenCode or Codex once: they keep its id and time in a field of their own', async () => {
  // OpenCode writes only into a database OpenCode made: the fixture's, emptied of its sessions
  const ocDir = join(dir, '.local', 'share', 'opencode');
  mkdirSync(ocDir, { recursive: true });
  cpSync(join(FIXTURES, 'opencode', 'opencode.db'), join(ocDir, 'opencode.db'));
  const oc = new Database(join(ocDir, 'opencode.db'));
  oc.exec('DELETE FROM part; DELETE FROM message; DELETE FROM todo; DELETE FROM session;');
  oc.close();
  const all = () => new IndexSync(store).sync(new Sources(env), { formats: ['claude', 'pi', 'opencode', 'codex'] });
  await all();
  const before = inputBySession();
  const totalBefore = (await store.usage()).input;
  const costBefore = stats(store, loadPrices(), { by: 'source' }).reduce((n, r) => n + r.cost, 0);
  const sources = new Sources(env);
  const claudeParent = await sources.driver('claude').getSession(CLAUDE_PARENT);
  if (!claudeParent) throw new Error('fixture session missing');
  const [toOc] = await convertSessionAll(claudeParent, sources.driver('opencode'));
  const [toCodex] = await convertSessionAll(claudeParent, sources.driver('codex'));
  await sources.close();
  if (!toOc || !toCodex) throw new Error('nothing written');
  await all();
  const by = inputBySession();
  expect(by.get(toOc.id) ?? 0).toBe(0);
  expect(by.get(toCodex.id) ?? 0).toBe(0);
  for (const [k, v] of before) expect(by.get(k), k).toBe(v);
  expect((await store.usage()).input).toBe(totalBefore);
  // the Codex copy records no cost and would be priced again: it is not
  expect(stats(store, loadPrices(), { by: 'source' }).reduce((n, r) => n + r.cost, 0)).toBeCloseTo(costBefore, 10);
  // each copy's own listing still shows what it records
  const listed = new Map((await store.listSessions()).map((s) => [s.id, s.usage?.input] as const));
  expect(listed.get(toOc.id)).toBe(before.get(CLAUDE_PARENT));
  expect(listed.get(toCodex.id)).toBe(before.get(CLAUDE_PARENT));
  // the web viewer's stats count them once too
  const web = (await (await createWebApp({ driver: store }).request('/api/v1/web/stats')).json()) as {
    totals: { input: number };
  };
  expect(web.totals.input).toBe(totalBefore);
  // the probe every counted record makes on insert is one lookup of the copy-key index
  const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${COPY_PROBE}`).all('msg_x', 't', -1) as { detail: string }[];
  expect(plan.map((p) => p.detail).join('\n')).toMatch(/SEARCH entries USING INDEX entries_copy_key/);
});

it("counts a response a Codex fork copied once: codex's rollouts record the response id", async () => {
  const rollout = 'rollout-2026-11-22T19-13-21-01a204ad-60d8-7b73-9e2b-cb6ea62b6afe.jsonl';
  const day = join(dir, '.codex', 'sessions', '2026', '11', '22');
  mkdirSync(day, { recursive: true });
  cpSync(join(FIXTURES, 'codex', 'home', 'sessions', '2026', '11', '22', rollout), join(day, rollout));
  const codexSync = () => new IndexSync(store).sync(new Sources(env), { formats: ['codex'] });
  await codexSync();
  const [original] = await store.listSessions({ source: 'codex' });
  if (!original) throw new Error('no codex session');
  const before = inputBySession().get(original.id) ?? 0;
  expect(before).toBeGreaterThan(0);
  const sources = new Sources(env);
  const fork = await sources.driver('codex').forkSession?.(original.id);
  await sources.close();
  if (!fork) throw new Error('no fork written');
  await codexSync();
  const by = inputBySession();
  expect(by.get(original.id)).toBe(before);
  expect(by.get(fork.id) ?? 0).toBe(0);
  expect((await store.listSessions({ source: 'codex' })).find((s) => s.id === fork.id)?.usage?.input).toBe(before);
});

it('an index of schema 9 settles the copies across agents it holds when it opens', async () => {
  const sources = new Sources(env);
  const claudeParent = await sources.driver('claude').getSession(CLAUDE_PARENT);
  if (!claudeParent) throw new Error('fixture session missing');
  const [toPi] = await convertSessionAll(claudeParent, sources.driver('pi'));
  await sources.close();
  await sync();
  const settled = inputBySession();
  expect(settled.get(toPi?.id as string) ?? 0).toBe(0);
  // as schema 8 left it: copies in two agents both counted
  store.db.exec(`UPDATE entries SET counted = 1 WHERE counted = 2 AND session_id = '${toPi?.id}'; PRAGMA user_version = 8`);
  expect(inputBySession().get(toPi?.id as string)).toBeGreaterThan(0);
  await store.close();
  store = openSqliteStore(indexPath(env));
  expect(inputBySession()).toEqual(settled);
});

it('a conversion into Codex counts in its original whatever the ids: the copy starts when it was written', async () => {
  // an id that sorts before the original's, so that a tie of the sessions' starts would go to the copy
  const copyId = '00000000-0000-4000-8000-000000000001';
  expect(copyId < CLAUDE_PARENT).toBe(true);
  const original = await new Sources(env).driver('claude').getSession(CLAUDE_PARENT);
  if (!original) throw new Error('fixture session missing');
  const now = new Date('2026-11-25T12:00:00.000Z');
  const { lines, createdAt } = encodeRollout(original, copyId, now);
  expect(createdAt).toBe(now.toISOString());
  expect(createdAt > original.createdAt).toBe(true);
  const day = join(dir, '.codex', 'sessions', '2026', '11', '25');
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, `rollout-2026-11-25T12-00-00-${copyId}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  await new IndexSync(store).sync(new Sources(env), { formats: ['claude', 'codex'] });
  const by = inputBySession();
  expect(by.get(copyId) ?? 0).toBe(0);
  expect(by.get(CLAUDE_PARENT)).toBe(sum(claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`))));
  // the copy keeps its records' own times
  const copy = await new Sources(env).driver('codex').getSession(copyId);
  const times = (s: typeof original) =>
    s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.timestamp] : []));
  expect(copy && times(copy).slice(0, 3)).toEqual(times(original).slice(0, 3));
});

it('a fork that starts when its parent did counts the copied responses in the parent, whatever the ids', async () => {
  const forkId = '00000000-0000-4000-8000-000000000002';
  expect(forkId < CLAUDE_PARENT).toBe(true);
  // every record copied, as a fork at the last record writes them: its own session id, the parent named
  const lines = records(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`)).map((r) =>
    'sessionId' in r
      ? { ...r, sessionId: forkId, cwd: '/tmp/cc-fork', forkedFrom: { sessionId: CLAUDE_PARENT, messageUuid: r.uuid } }
      : r,
  );
  writeFileSync(join(claudeDir, `${forkId}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  await sync();
  const listed = new Map((await store.listSessions()).map((s) => [s.id, s] as const));
  expect(listed.get(forkId)?.parentId).toBe(CLAUDE_PARENT);
  expect(listed.get(forkId)?.createdAt).toBe(listed.get(CLAUDE_PARENT)?.createdAt);
  const by = inputBySession();
  expect(by.get(forkId) ?? 0).toBe(0);
  expect(by.get(CLAUDE_PARENT)).toBe(sum(claudeResponses(join(CLAUDE_PROJECT, `${CLAUDE_PARENT}.jsonl`))));
  // the web viewer's stats pick the same copy (the fork runs in a project of its own)
  const web = (await (await createWebApp({ driver: store }).request('/api/v1/web/stats')).json()) as {
    byProject: { key: string; input: number }[];
  };
  expect(listed.get(forkId)?.project).toBe('/tmp/cc-fork');
  expect(web.byProject.find((b) => b.key === '/tmp/cc-fork')?.input ?? 0).toBe(0);
  expect(web.byProject.find((b) => b.key === listed.get(CLAUDE_PARENT)?.project)?.input).toBeGreaterThan(0);
});
