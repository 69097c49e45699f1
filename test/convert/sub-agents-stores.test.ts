/**
 * Sub-agent sessions on the convert paths that read a session from somewhere other than an agent's own
 * store: `convert --from <store>` (a real SQLite store file, the real PostgreSQL) carries the stored
 * session's sub-agents (its children there that name a call) as it does from the agents' files; and a
 * codex → codex copy keeps what the sub-agent's thread_spawn says of the agent (nickname, role).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { openStore } from '../../src/stores/open.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { type ServedStoreFile, serveStoreFile } from '../helpers/project-server.js';
import { CLAUDE_CHILD, CLAUDE_PARENT, type ConvertedRow, sessionIn } from '../helpers/sub-agents.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';
import '../../src/formats/all.js';

const CLAUDE_CALL = 'toolu_standin_0003';
const CODEX_PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';

type Row = ConvertedRow;

let fx: FixtureHome;

async function convert(args: string[]): Promise<Row> {
  const r = await runCli(fx.env, ['convert', ...args, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Row;
}

const agentSession = (source: string, id: string): Promise<Session> => sessionIn(fx.env, source, id);

/** The real Claude Code session and its sub-agent transcript, stored under their own ids. */
async function storeClaudeSessions(store: SessionDriver): Promise<void> {
  if (!store.writeSession) throw new Error(`${store.name} cannot write`);
  for (const id of [CLAUDE_PARENT, CLAUDE_CHILD]) {
    const written = await store.writeSession(await agentSession('claude', id), { keepId: true });
    expect(written.id).toBe(id);
  }
}

/** The written pi session has the stored sub-agent as its child, naming the same call, its text all there. */
async function expectSubAgentCarried(out: Row): Promise<void> {
  expect(out.warnings?.join('\n') ?? '').not.toContain('sub-agent session(s)');
  expect(out.children, JSON.stringify(out)).toHaveLength(1);
  const row = out.children?.[0] as Row;
  expect(row).toMatchObject({ source: 'pi', parentToolCallId: CLAUDE_CALL });
  const pi = new Sources(fx.env).driver('pi');
  expect((await pi.listSessions({ parentId: out.id })).map((s) => s.id)).toEqual([row.id]);
  const child = await agentSession('pi', row.id);
  expect(child).toMatchObject({ parentId: out.id, parentToolCallId: CLAUDE_CALL });
  const original = await agentSession('claude', CLAUDE_CHILD);
  const textOf = (s: Session) =>
    s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []));
  expect(textOf(child)).toEqual(textOf(original));
}

beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-sub-agents-stores-', fixtures: ['claude', 'codex'] });
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

describe('convert --from a store carries the stored sub-agent sessions', () => {
  it('from a SQLite store file', async () => {
    const file = join(fx.home, 'team.db');
    const store = openSqliteStore(file);
    await storeClaudeSessions(store);
    await store.close();
    await expectSubAgentCarried(await convert([CLAUDE_PARENT, '--from', `sqlite:${file}`, '--to', 'pi']));
  });

  describe('from PostgreSQL', () => {
    let pg: TestSchema;
    beforeAll(async () => {
      pg = await freshSchema('tb_subagents');
      await storeClaudeSessions(pg.store);
    });
    afterAll(async () => {
      await pg?.drop();
    });

    it('carries the sub-agent under the written session', async () => {
      await expectSubAgentCarried(await convert([CLAUDE_PARENT, '--from', pg.url, '--to', 'pi']));
    });
  });
});

describe('convert --from a team server carries the stored sub-agent sessions', () => {
  let served: ServedStoreFile | undefined;
  afterAll(async () => {
    await served?.close();
  });

  it('stored through the server, read back through it', async () => {
    served = await serveStoreFile(join(fx.home, 'server.db'));
    const url = served.url;
    const remote = await openStore(url);
    await storeClaudeSessions(remote);
    await remote.close?.();
    await expectSubAgentCarried(await convert([CLAUDE_PARENT, '--from', url, '--to', 'pi']));
  });
});

describe('codex → codex copy of a sub-agent thread', () => {
  it("keeps the thread_spawn's agent nickname and role", async () => {
    // the real sub-agent's rollout, its role set as codex records one a spawn_agent call named
    const day = join(fx.dirs.codex, 'sessions', '2026', '11', '25');
    const childFile = join(day, readdirSync(day).find((f) => f.includes('01a21356-267a')) as string);
    const [first, ...rest] = readFileSync(childFile, 'utf8').split('\n');
    const meta = JSON.parse(first as string) as { payload: { source: { subagent: { thread_spawn: Record<string, unknown> } } } };
    expect(meta.payload.source.subagent.thread_spawn.agent_nickname).toBe('Cicero');
    meta.payload.source.subagent.thread_spawn.agent_role = 'explorer';
    writeFileSync(childFile, [JSON.stringify(meta), ...rest].join('\n'));

    const out = await convert([CODEX_PARENT, '--source', 'codex', '--to', 'codex', '--no-index']);
    expect(out.children, JSON.stringify(out)).toHaveLength(1);
    const row = out.children?.[0] as Row;
    const written = JSON.parse(readFileSync(row.path as string, 'utf8').split('\n')[0] as string) as {
      payload: Record<string, unknown>;
    };
    expect(written.payload).toMatchObject({
      id: row.id,
      parent_thread_id: out.id,
      thread_source: 'subagent',
      source: {
        subagent: {
          thread_spawn: {
            parent_thread_id: out.id,
            depth: 1,
            agent_nickname: 'Cicero',
            agent_role: 'explorer',
            agent_path: null,
          },
        },
      },
    });
  });
});
