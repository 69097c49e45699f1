/**
 * A session's sub-agents for its export (childSessionsThroughIndex): with the index fresh for the
 * agent's store, the sessions that have a parent come from the index, and the agent's listing of every
 * session (Claude Code's parses every transcript: 1.4 s of CPU to export a 220 KB session as HTML on a
 * 200 MB history, bench/RESULTS.md) is never made; the sub-agents are those childSessionsFrom finds.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childSessionsFrom } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import { childSessionsThroughIndex } from '../../src/stores/index-sync/fresh.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

/** Claude Code's session with a sub-agent (its transcript in the session's subagents folder). */
const WITH_SUB_AGENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-speed-children-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);
}, 60_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** The claude driver of a new Sources, its listings counted. */
function countedDriver(): { sources: Sources; driver: SessionDriver; listings: () => number } {
  const sources = new Sources(env);
  const driver = sources.driver('claude');
  let n = 0;
  const list = driver.listSessions.bind(driver);
  driver.listSessions = (...args) => {
    n++;
    return list(...args);
  };
  return { sources, driver, listings: () => n };
}

const idsOf = (sessions: readonly { id: string; parentToolCallId?: string }[]) =>
  sessions.map((s) => `${s.id} ${s.parentToolCallId}`).sort();

describe('a session export finds its sub-agents', () => {
  it('in the index, without listing the agent’s sessions', async () => {
    const expected = await childSessionsFrom(new Sources(env).driver('claude'))(WITH_SUB_AGENT);
    expect(expected.length).toBeGreaterThan(0);
    const { sources, driver, listings } = countedDriver();
    const children = childSessionsThroughIndex(env, sources, driver);
    expect(idsOf(await children(WITH_SUB_AGENT))).toEqual(idsOf(expected));
    // the tree's next level, as subAgentsOf asks it: still no listing
    for (const c of expected) expect(await children(c.id)).toEqual([]);
    expect(listings()).toBe(0);
  });

  it('export --format md through the fresh index shows what the agents’ files show (--no-index)', async () => {
    const md = await runCliOk(env, ['export', WITH_SUB_AGENT, '--format', 'md']);
    expect(md).toContain('<details>');
    expect(md).toBe(await runCliOk(env, ['export', WITH_SUB_AGENT, '--format', 'md', '--no-index']));
  });

  it('through the agent’s listing, once, when the index is not fresh for its store', async () => {
    // a new session file the index has not seen
    await writeFile(join(home, '.claude/projects/-tmp-cc-proj/00000000-0000-4000-8000-00000000cafe.jsonl'), '');
    const { sources, driver, listings } = countedDriver();
    const children = childSessionsThroughIndex(env, sources, driver);
    const found = await children(WITH_SUB_AGENT);
    expect(found.length).toBeGreaterThan(0);
    await children(found[0]?.id as string);
    expect(listings()).toBe(1);
    // and without an index at all
    await rm(indexPath(env));
    const again = countedDriver();
    expect(idsOf(await childSessionsThroughIndex(env, again.sources, again.driver)(WITH_SUB_AGENT))).toEqual(idsOf(found));
    expect(again.listings()).toBe(1);
  });
});
