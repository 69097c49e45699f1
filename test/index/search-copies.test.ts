/**
 * `threadbase search` over the local index finds an entry repeated in another session once: a fork's
 * copy of its parent's entries (the real Claude Code `--fork-session` pair and the real pi fork) and
 * a GitHub Copilot CLI sub-agent run (a session of its own whose events are also its session's, the
 * real 1.0.102 fixture) share the entry id and time. The hit is the copy `stats` counts (the session
 * created first: the original, the run's session), unless the search selects only the copy's
 * sessions (its source, project or parent), and the copy is found again when the original leaves.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, SearchHit, SearchOptions } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';

const FIXTURES = join(__dirname, '..', 'fixtures');
const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_FORK = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';
const PI_PARENT = 'real-branched.jsonl';
const PI_FORK = 'real-fork.jsonl';
/** the Copilot CLI session that ran a sub-agent, and its run (a session of its own in the index) */
const COPILOT_MAIN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const COPILOT_RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';

let dir: string;
let env: DriverEnv;
let store: SqliteStore;
let piDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-search-copies-'));
  env = {
    home: dir,
    env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), COPILOT_HOME: join(dir, 'copilot-home') },
  };
  cpSync(join(FIXTURES, 'claude', 'real', 'projects', '-tmp-cc-proj'), join(dir, '.claude', 'projects', '-tmp-cc-proj'), {
    recursive: true,
  });
  piDir = join(dir, '.pi', 'agent', 'sessions', '--tmp-pi--');
  mkdirSync(piDir, { recursive: true });
  for (const f of [PI_PARENT, PI_FORK]) cpSync(join(FIXTURES, 'pi', f), join(piDir, f));
  cpSync(join(FIXTURES, 'copilot', 'real-1.0.102', '.copilot'), join(dir, 'copilot-home'), { recursive: true });
  mkdirSync(join(dir, '.threadbase'));
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sync = async () => {
  const sources = new Sources(env);
  try {
    await new IndexSync(store).sync(sources, { formats: ['claude', 'pi', 'copilot'], workers: 0 });
  } finally {
    await sources.close();
  }
};
const copyKey = (h: SearchHit) => `${h.entryId} ${h.timestamp}`;
/** the hits of `query`, as [copy key, session] */
const hits = async (query: string, opts: SearchOptions = {}) =>
  (await store.search(query, { limit: 200, ...opts })).map((h) => [copyKey(h), h.sessionId] as const);
/** the sessions a copy key is found in */
const foundIn = (list: (readonly [string, string])[]) => {
  const m = new Map<string, string[]>();
  for (const [k, s] of list) m.set(k, [...(m.get(k) ?? []), s]);
  return m;
};

async function piIds(): Promise<{ parent: string; fork: string }> {
  const listed = await store.listSessions({ source: 'pi' });
  return {
    parent: listed.find((s) => s.path?.endsWith(PI_PARENT))?.id as string,
    fork: listed.find((s) => s.path?.endsWith(PI_FORK))?.id as string,
  };
}

it('finds an entry a fork or a Copilot CLI sub-agent run repeats once, in the copy stats counts', async () => {
  await sync();
  const pi = await piIds();
  // `echo` is in the prompt each fork copied; `hello` in the Copilot sub-agent's prompt, which is
  // both the run's first entry and an entry of the run's session
  for (const query of ['echo', 'hello', 'hi', 'RUN']) {
    const all = await hits(query);
    expect(all.length).toBeGreaterThan(0);
    for (const [key, sessions] of foundIn(all))
      expect({ query, key, sessions: sessions.length }).toEqual({ query, key, sessions: 1 });
  }
  const echo = foundIn(await hits('echo'));
  const inSession = (id: string) => [...echo.values()].filter((s) => s[0] === id).length;
  // the copies are found in the parent, the fork's own entries in the fork
  expect(inSession(CLAUDE_PARENT)).toBeGreaterThan(0);
  expect(inSession(pi.parent)).toBeGreaterThan(0);
  const claudeOnly = foundIn(await hits('echo', { source: 'claude' }));
  expect(claudeOnly.size).toBe([...echo.values()].filter((s) => s[0] === CLAUDE_PARENT || s[0] === CLAUDE_FORK).length);

  // the sub-agent's prompt (the `task` call's input says it too)
  const hello = await hits('hello please', { role: 'user' });
  expect(hello).toHaveLength(1);
  expect(hello[0]?.[1]).toBe(COPILOT_MAIN);
  // the same with filters on sessions that hold both copies (source, project)
  for (const opts of [{ source: 'copilot' }, { project: '/tmp/copilot/work3' }] as SearchOptions[])
    expect({ opts, found: await hits('hello please', { ...opts, role: 'user' }) }).toEqual({ opts, found: hello });
  // selecting only the run (its parent's sub-agents): its copy is what there is to find
  const run = await hits('hello please', { parentId: COPILOT_MAIN });
  expect(run).toEqual([[hello[0]?.[0], COPILOT_RUN]]);
});

it('finds the copy once its original leaves the index', async () => {
  await sync();
  const pi = await piIds();
  // the fork alone (its parent's forks) shows its copies, found in the parent when both are searched
  const inFork = foundIn(await hits('echo', { parentId: pi.parent }));
  const inBoth = foundIn(await hits('echo', { source: 'pi' }));
  const copied = [...inFork.keys()].filter((k) => inBoth.get(k)?.[0] === pi.parent);
  expect(copied.length).toBeGreaterThan(0);
  rmSync(join(piDir, PI_PARENT));
  await sync();
  const after = foundIn(await hits('echo'));
  for (const k of copied) expect({ k, in: after.get(k) }).toEqual({ k, in: [pi.fork] });
});

it('an index of schema 14 is migrated: its copies are found once, and a search reads no entry it does not find', async () => {
  await sync();
  store.db.exec('DROP TABLE entry_copies; DROP INDEX entries_entry_key; PRAGMA user_version = 14');
  await store.close();
  store = openSqliteStore(indexPath(env));
  expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  expect((await hits('hello please', { role: 'user' })).map(([, s]) => s)).toEqual([COPILOT_MAIN]);
  // a search without filters reads the full-text table and the copies' rowids, no entry row
  const plans: string[] = [];
  const prepare = store.db.prepare.bind(store.db);
  store.db.prepare = ((sql: string) => {
    if (/bm25/.test(sql))
      plans.push(
        (
          prepare(`EXPLAIN QUERY PLAN ${sql}`).all(
            ...sql
              .split('?')
              .slice(1)
              .map(() => 'x'),
          ) as { detail: string }[]
        )
          .map((r) => r.detail)
          .join(' | '),
      );
    return prepare(sql);
  }) as typeof store.db.prepare;
  await store.search('copilot');
  await store.search('copilot', { source: 'copilot' });
  expect(plans[0]).toMatch(/USING ROWID SEARCH ON TABLE entry_copies/);
  expect(plans[0]).not.toMatch(/\b(SCAN|SEARCH) e\b/);
  // filtered, the other copies are looked up by their key only for an entry that is a copy
  expect(plans[1]).toMatch(/SEARCH o USING INDEX entries_entry_key/);
  expect(plans[1]).not.toMatch(/SCAN (e|o|entry_copies)\b/);
});
