/**
 * A branch summary in a session of threadbase's own store (made with the library; memory and SQLite
 * here, every store giving its sessions `source: 'threadbase'`: stores/shared.ts writtenSession), which
 * has no agent's wording of its own, carried into the agents: it gets pi's wording (the agent whose
 * branch summaries the model's are, and which always sends its own), so pi, Claude Code, OpenCode and
 * codex all send the same text for it, not the bare summary (which reads as the user's own words), and
 * each reads the entry back; into another store it is copied as it is. convert/session.ts
 * BRANCH_SUMMARY_WORDING_OF.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import type { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { SqliteStore } from '../../src/stores/sqlite/index.js';
import '../../src/formats/all.js';
import { withDriver as withDriverOf } from '../helpers/conversions.js';
import { branchedSession } from '../helpers/sessions.js';

const OPENCODE_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
const SUMMARY = 'The branch left behind wrote left.txt.';
const WORDED = branchSummaryText(SUMMARY);

let home: string;
let env: DriverEnv;
let sqlite: SqliteStore | undefined;
/** The session as each of threadbase's stores gives it back. */
const stored: Record<'memory' | 'sqlite', Session> = {} as Record<'memory' | 'sqlite', Session>;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-store-branch-summary-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  copyFileSync(OPENCODE_DB, join(home, '.local', 'share', 'opencode', 'opencode.db'));
  mkdirSync(join(home, 'p'), { recursive: true });
  env = { home, env: {} };
  sqlite = new SqliteStore(join(home, 'threadbase.db'));
  for (const [name, store] of [
    ['memory', new MemoryStore()],
    ['sqlite', sqlite],
  ] as const) {
    const { id } = await store.writeSession(madeWithTheLibrary());
    stored[name] = (await store.getSession(id)) as Session;
  }
});
afterAll(async () => {
  await sqlite?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A session made with the library, a branch summary on its path. */
const madeWithTheLibrary = (): Session =>
  branchedSession('made-with-the-library', 'threadbase', join(home, 'p'), { summary: SUMMARY, fromId: 'left-leaf' });
const withDriver = <T>(agent: string, f: (d: ReturnType<Sources['driver']>) => Promise<T>) => withDriverOf(env, agent, f);

/** The texts of a context's messages (Claude Code ends a user record before another one with a newline). */
const texts = (ms: readonly Message[]) => ms.map((m) => messageText(m).trimEnd());

describe.each(['memory', 'sqlite'] as const)("a branch summary from threadbase's %s store, carried into the agents", (store) => {
  it('the store session is no agent’s: source threadbase, the entry without a text of its own', () => {
    expect(stored[store].source).toBe('threadbase');
    expect(stored[store].entries.find((e) => e.kind === 'branch_summary')).not.toHaveProperty('text');
  });

  for (const to of ['pi', 'claude', 'opencode', 'codex'] as const)
    it(`→ ${to}: the target sends pi's wording of it, in its place, and reads the entry back`, async () => {
      const [written] = await convertSessionAll(stored[store], { to, env });
      const id = written?.id as string;
      const sent = texts((await withDriver(to, (d) => d.getContext(id))).messages);
      expect(sent.filter((x) => x.includes(SUMMARY))).toEqual([WORDED]);
      expect(sent.indexOf(WORDED)).toBe(sent.indexOf('first answer') + 1);
      expect(sent.indexOf('on the new branch')).toBe(sent.indexOf(WORDED) + 1);
      const read = await withDriver(to, (d) => d.getSession(id));
      const summaries = read?.entries.filter((e) => e.kind === 'branch_summary') ?? [];
      // pi keeps the bare summary and words it itself; the others keep the text they send beside the entry
      expect(summaries).toEqual([expect.objectContaining({ summary: SUMMARY, ...(to === 'pi' ? {} : { text: WORDED }) })]);
    });

  it('within threadbase (store to store) the entry is copied as it is', async () => {
    const target = new MemoryStore();
    const [w] = await convertSessionAll(stored[store], { to: target });
    const again = await target.getSession(w?.id as string);
    expect(again?.entries.find((e) => e.kind === 'branch_summary')).toEqual(
      stored[store].entries.find((e) => e.kind === 'branch_summary'),
    );
  });
});
