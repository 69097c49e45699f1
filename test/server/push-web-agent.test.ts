/**
 * The web viewer of a team server (PostgreSQL) shows and filters pushed sessions by the agent that
 * recorded them: a push stores them as threadbase's own with meta.importedFrom, and the viewer's
 * list showed every one as "threadbase", its Agent filter finding none as claude or pi.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { copySourceFixtures } from '../helpers/agent-fixtures.js';
import { runCliOk } from '../helpers/cli.js';
import { type TestSchema, teamServer } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let home: string;
let key: string;

beforeAll(async () => {
  ({ db, server, key } = await teamServer('tb_push_web_agent'));
  home = await mkdtemp(join(tmpdir(), 'tb-push-web-agent-'));
  await copySourceFixtures({ root: home, project: '/work/team' }, { claudeSubAgent: false });
  const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['push', '--to', server.url, '--key', key]);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await db?.drop();
  if (home) await rm(home, { recursive: true, force: true });
});

const web = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${server.url}/api/v1/web${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

interface ListPage {
  total: number;
  sessions: { id: string; source: string; agent: string }[];
  facets: { sources: string[] };
}

it('lists pushed sessions under the agent that recorded them, and offers those agents as filters', async () => {
  const all = await web<ListPage>('/sessions');
  expect(all.sessions.map((s) => s.agent).sort()).toEqual(['claude', 'claude', 'codex', 'pi']);
  // stored as threadbase's own, as the API lists them
  expect(new Set(all.sessions.map((s) => s.source))).toEqual(new Set(['threadbase']));
  expect(all.facets.sources).toEqual(expect.arrayContaining(['claude', 'codex', 'pi']));
});

it('the Agent filter finds them by that agent (list, stats, search)', async () => {
  expect((await web<ListPage>('/sessions?source=claude')).total).toBe(2);
  expect((await web<ListPage>('/sessions?source=pi')).total).toBe(1);
  const stats = await web<{ sessions: number; bySource: { key: string }[] }>('/stats?source=claude');
  expect(stats.sessions).toBe(2);
  expect(stats.bySource.map((b) => b.key)).toEqual(['claude']);
  const first = (await web<ListPage>('/sessions?source=pi')).sessions[0];
  const head = await web<{ agent: string }>(`/sessions/${first?.id}`);
  expect(head.agent).toBe('pi');
  const found = await web<{ hits: { agent: string }[] }>('/search?q=echo&source=pi');
  expect(found.hits.length).toBeGreaterThan(0);
  expect(new Set(found.hits.map((h) => h.agent))).toEqual(new Set(['pi']));
});
