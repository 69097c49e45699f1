/**
 * The viewer on the agents' own files (`ui --store agents`) where one pi session sits in two files (a
 * session file copied into another project's folder): one row, the file that row opens, as `sessions`
 * lists it. Two rows of one id both opened the same file.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { WebData } from '../../src/server/web/data.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

let home: string;
let sources: Sources;

beforeAll(async () => {
  // `pi` puts the session under --proj--, `piAll` a copy of the same file under --work-proj--
  ({ home } = await fixtureHome({ prefix: 'tb-web-copied-', fixtures: ['pi', 'piAll'] }));
  sources = new Sources({ home, env: { HOME: home } });
});

afterAll(async () => {
  await sources?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

it('the two files are both there to list: the fixture holds the copy', async () => {
  const { sessions } = await sources.list({ source: 'pi' });
  const files = sessions.filter((s) => s.id === PI_TOOL_CALL_ID).map((s) => s.path);
  expect(files).toHaveLength(2);
  expect(files.some((f) => f?.includes('--work-proj--'))).toBe(true);
});

it('lists the copied session once, from the file it opens, in the driver and in the viewer list', async () => {
  const driver = new AgentFilesDriver(sources);
  const listed = (await driver.listSessions()).filter((s) => s.id === PI_TOOL_CALL_ID);
  expect(listed).toHaveLength(1);
  const opened = await driver.getSession(PI_TOOL_CALL_ID);
  expect(opened?.path).toBeDefined();
  expect(listed[0]?.path).toBe(opened?.path);

  const page = await new WebData(driver).listSessions({ limit: 500 });
  expect(page.sessions.filter((r) => r.id === PI_TOOL_CALL_ID)).toHaveLength(1);
  expect(new Set(page.sessions.map((r) => `${r.source}:${r.id}`)).size).toBe(page.sessions.length);
});

it('a limit counts rows after the copy is dropped: the first N of the whole list', async () => {
  const driver = new AgentFilesDriver(sources);
  const all = (await driver.listSessions()).map((s) => s.id);
  const limit = all.indexOf(PI_TOOL_CALL_ID) + 2;
  expect(all.length).toBeGreaterThan(limit);
  expect((await driver.listSessions({ limit })).map((s) => s.id)).toEqual(all.slice(0, limit));
});
