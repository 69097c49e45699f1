/**
 * Sub-agent sessions go into threadbase's own stores too: converting the real Claude Code session that
 * ran an Agent call into the local store (`convert --to threadbase`, a real SQLite file), the real
 * PostgreSQL or a team server writes its sub-agent beside it, linked as the stores link a child
 * (parentId the written session, parentToolCallId the call); read back from the store and converted on
 * into Claude Code, the files written are those converting the original writes (ids aside).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childSessionsFrom, convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { SessionDriver } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import { openStore } from '../../src/stores/open.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { type ServedStoreFile, serveStoreFile } from '../helpers/project-server.js';
import { CLAUDE_CHILD, CLAUDE_PARENT, type ConvertedRow, convertRow, sessionIn } from '../helpers/sub-agents.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';
import '../../src/formats/all.js';

const CLAUDE_CALL = 'toolu_standin_0003';

let fx: FixtureHome;
/** The Claude Code files converting the original writes (the session, its sub-agent and the sub-agent's meta). */
let direct: string[];

/** The Claude Code files a conversion wrote, its session and agent ids replaced, so two conversions compare. */
function claudeFiles(row: ConvertedRow): string[] {
  expect(row.children, JSON.stringify(row)).toHaveLength(1);
  const child = row.children?.[0] as ConvertedRow;
  const read = (path: string) => readFileSync(path, 'utf8').replaceAll(row.id, '<session>').replaceAll(child.id, '<agent>');
  return [row, child].map((r) => read(r.path as string)).concat(read((child.path as string).replace(/\.jsonl$/, '.meta.json')));
}

/** `convert <id> --from <store> --to claude`: the same files as from the original. */
async function expectSameClaudeFiles(id: string, from: string): Promise<void> {
  const r = await runCli(fx.env, ['convert', id, '--from', from, '--to', 'claude', '--json']);
  expect(r.code, r.err).toBe(0);
  expect(claudeFiles(JSON.parse(r.out) as ConvertedRow)).toEqual(direct);
}

/** The store lists the written sub-agent under the written session, naming the call, its entries all there. */
async function expectChildInStore(store: SessionDriver, written: WrittenSession): Promise<string> {
  expect(written.meta?.warnings ?? []).toEqual([]);
  expect(written.children, JSON.stringify(written)).toHaveLength(1);
  const child = written.children?.[0] as WrittenSession;
  expect(child).toMatchObject({ source: 'threadbase', parentId: written.id, parentToolCallId: CLAUDE_CALL });
  expect((await store.listSessions({ parentId: written.id })).map((s) => s.id)).toEqual([child.id]);
  const stored = await store.getSession(child.id);
  expect(stored).toMatchObject({ parentId: written.id, parentToolCallId: CLAUDE_CALL });
  const original = await sessionIn(fx.env, 'claude', CLAUDE_CHILD);
  // its current branch, as convert writes a sub-agent
  expect(stored?.entries.map((e) => e.id)).toEqual(pathToLeaf(original).map((e) => e.id));
  return written.id;
}

/** The original and its sub-agent, converted by the library into `store` as `convert` does. */
async function convertInto(store: SessionDriver): Promise<WrittenSession> {
  const claude = new Sources(fx.env).driver('claude');
  const [written] = await convertSessionAll(await sessionIn(fx.env, 'claude', CLAUDE_PARENT), store, {
    childrenOf: childSessionsFrom(claude),
  });
  return written as WrittenSession;
}

beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-sub-agents-into-stores-', fixtures: ['claude'] });
  direct = claudeFiles(await convertRow(fx.env, CLAUDE_PARENT, 'claude'));
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

describe('a session with a sub-agent converted into a threadbase store', () => {
  it('into the local store (convert --to threadbase, a SQLite file): the sub-agent written under it', async () => {
    const out = await convertRow(fx.env, CLAUDE_PARENT, 'threadbase');
    expect(out.warnings ?? []).toEqual([]);
    expect(out.children, JSON.stringify(out)).toHaveLength(1);
    expect(out.children?.[0]).toMatchObject({ source: 'threadbase', parentToolCallId: CLAUDE_CALL });
    const file = join(fx.env.env.THREADBASE_HOME as string, 'index.db');
    const store = openSqliteStore(file);
    try {
      const listed = await store.listSessions({ parentId: out.id });
      expect(listed.map((s) => s.id)).toEqual([out.children?.[0]?.id]);
      expect(await store.getSession(out.children?.[0]?.id as string)).toMatchObject({ parentToolCallId: CLAUDE_CALL });
    } finally {
      await store.close();
    }
    // converted on from the store file, and from the local store as a source
    await expectSameClaudeFiles(out.id, `sqlite:${file}`);
    expect(claudeFiles(await convertRow(fx.env, out.id, 'claude'))).toEqual(direct);
  });

  describe('into PostgreSQL', () => {
    let pg: TestSchema;
    beforeAll(async () => {
      pg = await freshSchema('tb_subagents_into');
    });
    afterAll(async () => {
      await pg?.drop();
    });

    it('the sub-agent written under it; converted on into Claude Code as from the original', async () => {
      const id = await expectChildInStore(pg.store, await convertInto(pg.store));
      await expectSameClaudeFiles(id, pg.url);
    });
  });

  describe('into a team server', () => {
    let served: ServedStoreFile | undefined;
    afterAll(async () => {
      await served?.close();
    });

    it('pushed (threadbase push, every session with its parent link): converted on into Claude Code as from the original', async () => {
      const pushed = await serveStoreFile(join(fx.home, 'pushed.db'));
      try {
        const r = await runCli(fx.env, ['push', '--to', pushed.server.url, '--key', pushed.key, '--source', 'claude', '--json']);
        expect(r.code, r.err).toBe(0);
        await expectSameClaudeFiles(CLAUDE_PARENT, pushed.url);
      } finally {
        await pushed.close();
      }
    });

    it('the sub-agent written under it; converted on into Claude Code as from the original', async () => {
      served = await serveStoreFile(join(fx.home, 'server.db'));
      const url = served.url;
      const remote = await openStore(url);
      try {
        const id = await expectChildInStore(remote, await convertInto(remote));
        await expectSameClaudeFiles(id, url);
      } finally {
        await remote.close?.();
      }
    });
  });
});

describe('into a target that keeps no sub-agent sessions', () => {
  it('the session alone, the warning naming the sub-agent begun as every loss line is', async () => {
    // pi, as if it had no way to write a sub-agent session
    const pi = new Sources(fx.env).driver('pi');
    const noChildren = new Proxy(pi, {
      get: (driver, key) => (key === 'writeChildSession' ? undefined : Reflect.get(driver, key, driver)),
    });
    const [written] = await convertSessionAll(await sessionIn(fx.env, 'claude', CLAUDE_PARENT), noChildren, {
      childrenOf: childSessionsFrom(new Sources(fx.env).driver('claude')),
    });
    expect(written?.children).toBeUndefined();
    const warnings = (written?.meta?.warnings as string[] | undefined) ?? [];
    expect(warnings.filter((w) => w.includes('sub-agent'))).toEqual([
      `claude:${CLAUDE_PARENT} → pi: 1 sub-agent session(s) not written (${CLAUDE_CHILD}): pi keeps no sub-agent sessions`,
    ]);
    for (const w of warnings) expect(w.startsWith(`claude:${CLAUDE_PARENT} → pi: `), w).toBe(true);
  });
});
