/**
 * The viewer's context page of a session it has read already: the context the driver gives for the
 * session's id, built from the session the viewer holds (a 30 MB session read again for its context
 * took 0.5–0.7 s), through the agents' files, a SQLite store and a project's view of a team store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { ProjectIdsDriver } from '../../src/server/tenant-ids.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { WebData } from '../../src/server/web/data.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { fixtureHome, PARALLEL_ID, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

/** The driver, counting the sessions read through it by id. */
function counting(driver: SessionDriver): { driver: SessionDriver; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(driver, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if ((prop === 'getSession' || prop === 'getContext') && typeof value === 'function')
        return (...args: unknown[]) => {
          reads += 1;
          return value.apply(receiver, args);
        };
      return value;
    },
  });
  return { driver: proxy, reads: () => reads };
}

let home: string;
let dir: string;
let sources: Sources;
const sessions: Session[] = [];

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-web-context-once-', fixtures: ['claudeParallel', 'pi'] }));
  dir = await mkdtemp(join(tmpdir(), 'tb-web-context-once-db-'));
  sources = new Sources({ home, env: { HOME: home } });
  for (const [source, id] of [
    ['claude', PARALLEL_ID],
    ['pi', PI_TOOL_CALL_ID],
  ] as const)
    sessions.push((await sources.driver(source).getSession(id)) as Session);
});

afterAll(async () => {
  await sources?.close();
  for (const d of [home, dir]) if (d) await rm(d, { recursive: true, force: true });
});

async function expectContextFromHeldSession(driver: SessionDriver, id: string): Promise<void> {
  const expected = await driver.getContext(id);
  const counted = counting(driver);
  const data = new WebData(counted.driver);
  const page = await data.contextPage(id, { limit: 500 });
  // one read: the session the page was built from
  expect(counted.reads()).toBe(1);
  const sent = page.entries.flatMap((e) => (e.id !== 'ctx-system' && e.kind === 'message' && 'message' in e ? [e.message] : []));
  expect(sent).toEqual(expected.messages);
  expect(page.model).toBe(expected.model ?? null);
  expect(expected.messages.length).toBeGreaterThan(1);
}

describe('the context page reads the session once', () => {
  it('the agents files', async () => {
    const driver = new AgentFilesDriver(sources);
    for (const s of sessions) await expectContextFromHeldSession(driver, s.id);
  });

  it('a SQLite store, and a project view of it', async () => {
    const store = await openSqliteStore(join(dir, 'store.db'));
    try {
      for (const s of sessions) await store.writeSession?.(s, { keepId: true });
      for (const s of sessions) await expectContextFromHeldSession(store, s.id);
      const project = new ProjectIdsDriver(store, 'default');
      for (const s of sessions) await expectContextFromHeldSession(project, s.id);
    } finally {
      await store.close?.();
    }
  });
});
