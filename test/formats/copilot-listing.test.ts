/**
 * The index's listing of Copilot CLI sessions (driver.ts listUnits) finds each file's sub-agent runs
 * without reading files whole that cannot hold new ones: a new file is scanned for run events' bytes
 * (run-markers.ts) and parsed only when it has some; a file Copilot CLI appended to is scanned over
 * what was appended only, its runs the index's while none of that is a run's. A run's unit is versioned
 * by what it holds, so a done run is not read again while its session goes on, and the index's check
 * for recent writes (which stats the files of its newest units) is not misled by a run's key.
 */
import { appendFile, cp, link, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import '../../src/formats/all.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, ReadFrom, SourceUnit } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';
import { subAgentTree } from '../helpers/sub-agents.js';

const WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';
const PLAIN = '44b0e2d9-5ac6-46a4-b568-ce0f72a10d33';

let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
const eventsOf = (id: string) => join(home.dir, 'copilot-home', 'session-state', id, 'events.jsonl');

beforeAll(async () => {
  home = await tempIndexHome('tb-copilot-listing-', (dir) => ({ COPILOT_HOME: join(dir, 'copilot-home') }));
  env = home.env;
  await cp(resolve('test/fixtures/copilot/real-1.0.102/.copilot'), join(home.dir, 'copilot-home'), { recursive: true });
});
afterAll(() => home.remove());

type Private = { readWhole: () => unknown; scanForRuns: (file: string, start: number, end: number) => Promise<boolean> };

/** One sync, counting the driver's whole reads (parses of a whole file) and its byte scans, by file. */
async function sync() {
  const wholeReads = vi.spyOn(CopilotDriver.prototype as unknown as Private, 'readWhole');
  const scans = vi.spyOn(CopilotDriver.prototype as unknown as Private, 'scanForRuns');
  let reads: MockInstance<(u: SourceUnit, from?: ReadFrom) => unknown> | undefined;
  try {
    const { report, listed } = await syncStore<CopilotDriver>(env, 'copilot', (driver) => {
      reads = vi.spyOn(driver, 'readUnit');
    });
    return {
      report,
      listed,
      wholeReads: wholeReads.mock.calls.map((c) => (c as unknown as [{ id: string }])[0].id),
      scans: scans.mock.calls.map(([file, start, end]) => [file, start, end]),
      reads: (reads?.mock.calls ?? []).map(([u, from]) => [u.sessionId, from?.offset]),
    };
  } finally {
    wholeReads.mockRestore();
    scans.mockRestore();
  }
}

const fields = (s: SessionInfo) => [s.id, s.parentId, s.messageCount, s.updatedAt, s.usage];
const fromFiles = async () => (await new CopilotDriver(env).listSessions()).sort(byId).map(fields);

let lastId = '';
/** A turn of the main chain, as Copilot CLI appends one (no run's event in it). */
async function appendPlainTurn(file: string, n: number): Promise<void> {
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  lastId = (JSON.parse(lines.at(-1) as string) as { id: string }).id;
  const ev = (type: string, data: Record<string, unknown>) => {
    const id = `plain-${n}-${type}`;
    const line = JSON.stringify({ type, data, id, timestamp: `2026-11-26T06:0${n}:00.000Z`, parentId: lastId });
    lastId = id;
    return `${line}\n`;
  };
  await appendFile(
    file,
    ev('user.message', { content: `more ${n}` }) +
      ev('assistant.message', { content: `answer ${n}`, model: 'claude-sonnet-4.5' }),
  );
}

/**
 * Pads a line before `size` with spaces (JSON allows them after a value) so that a line ends where the
 * file listed before ended, and puts it back under the inode listed: the rewritten file then looks grown
 * by whole lines, its new bytes its old tail (no run's event among them).
 */
async function lineEndAt(file: string, kept: string, size: number, ino: number): Promise<void> {
  const text = await readFile(file);
  const before = text.lastIndexOf(0x0a, size - 1);
  if (before === size - 1) return;
  const padded = Buffer.concat([text.subarray(0, before), Buffer.alloc(size - 1 - before, ' '), text.subarray(before)]);
  expect(padded[size - 1]).toBe(0x0a);
  // under the inode listed (`kept`, a link to the file as listed), as an inode may come back after two
  // renames: only the bytes tell the files apart
  await writeFile(kept, padded);
  await rename(kept, file);
  expect((await stat(file)).ino).toBe(ino);
}

describe('listing Copilot CLI sessions for the index', () => {
  it('a new file is parsed to find its runs only when its bytes hold a run event', async () => {
    const first = await sync();
    // the listing's one (the file with a run), then the index's reading each file's unit
    expect(first.wholeReads.sort()).toEqual([PLAIN, WITH_RUN, WITH_RUN]);
    // every file scanned from its start
    expect(first.scans.map(([f, start]) => [f, start]).sort()).toEqual(
      [
        [eventsOf(PLAIN), 0],
        [eventsOf(WITH_RUN), 0],
      ].sort(),
    );
    expect(first.listed.map(fields)).toEqual(await fromFiles());
    expect(first.listed.find((s) => s.id === RUN)?.parentId).toBe(WITH_RUN);
  });

  it('an unchanged file: nothing scanned, nothing read', async () => {
    const again = await sync();
    expect(again.scans).toEqual([]);
    expect(again.wholeReads).toEqual([]);
    expect(again.reads).toEqual([]);
  });

  it('a turn appended to the session with the run: only the appended bytes scanned, no file parsed whole, the done run not read again', async () => {
    const file = eventsOf(WITH_RUN);
    const size = (await stat(file)).size;
    await appendPlainTurn(file, 1);
    const grown = (await stat(file)).size;
    const after = await sync();
    expect(after.wholeReads).toEqual([]);
    // the session's unit read from where the last read ended, the run's not at all
    expect(after.reads).toEqual([[WITH_RUN, size]]);
    expect(after.scans).toEqual([[file, size, grown]]);
    expect(after.report).toMatchObject({ appended: 1, reread: 0 });
    expect(after.listed.map(fields)).toEqual(await fromFiles());
    expect(after.listed.find((s) => s.id === WITH_RUN)?.messageCount).toBe(6);
  });

  it("the index's check for recent writes: none after a sync, one after a turn appended", async () => {
    const sources = new Sources(env);
    const store = openSqliteStore(indexPath(env));
    try {
      const index = new IndexSync(store);
      expect(await index.recentlyWritten(sources, ['copilot'])).toBe(false);
      await appendPlainTurn(eventsOf(PLAIN), 2);
      expect(await index.recentlyWritten(sources, ['copilot'])).toBe(true);
    } finally {
      await store.close();
      await sources.close();
    }
    await sync();
  });

  it("a run's event appended: the file read whole to list its runs, the run read again", async () => {
    const file = eventsOf(WITH_RUN);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const last = (JSON.parse(lines.at(-1) as string) as { id: string }).id;
    // the run's answer, late (as a run's event names its call)
    await appendFile(
      file,
      `${JSON.stringify({
        type: 'assistant.message',
        data: { content: 'one more from the run', parentToolCallId: 'toolu_standin_0001' },
        id: 'late-run-answer',
        timestamp: '2026-11-26T06:09:00.000Z',
        parentId: last,
        agentId: RUN,
      })}\n`,
    );
    const after = await sync();
    expect(after.wholeReads).toContain(WITH_RUN);
    expect(after.reads.map(([id]) => id).sort()).toEqual([RUN, WITH_RUN].sort());
    expect(after.listed.map(fields)).toEqual(await fromFiles());
    expect(after.listed.find((s) => s.id === RUN)?.messageCount).toBe(3);
  });

  it('a file threadbase rewrote whole (a sub-agent put inside it: writeChildSession) is read whole: its new run listed', async () => {
    const project = join(home.dir, 'project');
    await mkdir(project, { recursive: true });
    const tree = subAgentTree(project);
    // a long answer after the call: the bytes the file grew by are its tail, none of them the run's
    const long = 'all done, at length. '.repeat(1000);
    tree.parent.entries = tree.parent.entries.map((e, i, all) =>
      i === all.length - 1 && e.kind === 'message'
        ? { ...e, message: { ...e.message, parts: [{ type: 'text', text: long }] } }
        : e,
    );
    const sources = new Sources(env);
    try {
      const driver = sources.driver('copilot');
      const written = await (driver.writeSession?.(tree.parent) as Promise<SessionInfo>);
      expect((await sync()).listed.filter((s) => s.parentId === written.id)).toEqual([]);
      const file = written.path as string;
      const listed = await stat(file);
      await link(file, `${file}.listed`);
      // the run goes in the middle, after its call; the file renamed over the one listed
      const run = await (driver.writeChildSession?.(written, tree.child) as Promise<SessionInfo>);
      await lineEndAt(file, `${file}.listed`, listed.size, listed.ino);
      const after = await sync();
      expect(after.wholeReads).toContain(written.id);
      expect(after.listed.filter((s) => s.parentId === written.id).map((s) => s.id)).toEqual([run.id]);
      expect(after.listed.map(fields)).toEqual(await fromFiles());
    } finally {
      await sources.close();
    }
  });
});
