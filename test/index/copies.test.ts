/**
 * A fork copies its parent's records (same entry id, time and response id): the real Claude Code
 * `--fork-session` pair and the real pi fork in test/fixtures. The index counts each copied response
 * once, in the session created first, and counts the copies again when that session leaves.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
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
  store.db.exec('UPDATE entries SET counted = 1 WHERE counted = 2; DROP INDEX entries_copies; PRAGMA user_version = 5');
  expect(inputBySession().get(CLAUDE_FORK)).toBeGreaterThan(settled.get(CLAUDE_FORK) ?? 0);
  await store.close();
  store = openSqliteStore(indexPath(env));
  expect(inputBySession()).toEqual(settled);
});
