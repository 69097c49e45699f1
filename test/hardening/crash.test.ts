/**
 * kill -9 during writes: a child process (crash-child.ts) writes into real agent stores in a loop
 * — new sessions (convert to pi, claude, OpenCode), appends to pi and Claude Code files (branch,
 * 512 KiB lines), forks, sync —
 * and is killed with SIGKILL after a seeded random delay, many times over one home. After every
 * kill: every original agent file still starts with its original bytes; every line threadbase
 * wrote parses and every file it wrote ends in a newline (no torn file, no torn line); OpenCode's
 * database and the index pass integrity_check and every agent still lists. At the end, a sync
 * completes the index, and the next writes clean up the temp files the kills left.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { removeStaleTemps, writeFileAtomic } from '../../src/formats/shared/atomic.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { AGENTS, type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { listFiles, recordFigures } from './stores.js';

// 12 by default (the suite's time on the slowest CI machines); TB_CRASH_KILLS=30 or more for a deeper run
const KILLS = Number(process.env.TB_CRASH_KILLS ?? 12);
const SEED = 4242;
const TEMP = /\.tb-\d+-[0-9a-f]{8}\.tmp$/;

let h: FixtureHome;
/** Each agent file as the fixtures had it, by path under home. */
const originals = new Map<string, Buffer>();
const figures = {
  kills: 0,
  killedDuring: {} as Record<string, number>,
  completedOps: 0,
  tempFilesLeftByKills: 0,
  tempFilesCleaned: 0,
  linesChecked: 0,
};

async function agentFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const a of AGENTS) for (const f of await listFiles(h.dirs[a])) out.push(join(h.dirs[a], f));
  return out;
}

/** Starts the writer, waits until it is ready, kills it after delayMs; returns the operation it was in. */
async function runAndKill(delayMs: number, start: number): Promise<{ during: string; completed: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/hardening/crash-child.ts', h.home], {
    env: { ...process.env, TB_CRASH_START: String(start) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`writer exited ${code} before it was ready: ${err}`)));
  });
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill('SIGKILL');
  await exited;
  const lines = out.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const completed = lines.filter((l) => l.startsWith('end ')).length;
  return { during: last.startsWith('begin ') ? last.slice(6) : 'between operations', completed };
}

/** Agent files are whole: originals keep their bytes as a prefix, what was written parses line by line. */
async function expectWhole(): Promise<void> {
  for (const file of await agentFiles()) {
    if (TEMP.test(file)) continue;
    const bytes = await fs.readFile(file);
    const original = originals.get(file);
    // (a database changes in place by design; integrity_check below is its test)
    if (original && !/\.db$/.test(file))
      expect(bytes.subarray(0, original.length).equals(original), `${file}: original bytes changed`).toBe(true);
    if (!file.endsWith('.jsonl') && !file.endsWith('.json')) continue;
    const written = original ? bytes.subarray(original.length) : bytes;
    if (written.length === 0) continue;
    if (file.endsWith('.json')) {
      expect(() => JSON.parse(written.toString('utf8')), `${file}: torn JSON file`).not.toThrow();
      continue;
    }
    // A newline may come first: appends put one after an original's unterminated last line.
    const text = written.toString('utf8');
    expect(text.endsWith('\n'), `${file}: written part ends mid-line`).toBe(true);
    for (const [i, line] of text.split('\n').entries()) {
      if (line === '') continue;
      figures.linesChecked++;
      expect(() => JSON.parse(line), `${file}: written line ${i + 1} is torn`).not.toThrow();
    }
  }
  // OpenCode's database: a killed transaction is rolled back, the file is sound, and the rows it
  // had are as they were (writes only add rows).
  const db = new Database(join(h.dirs.opencode, 'opencode.db'));
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(opencodeRows(db, originalRows)).toEqual(originalRows);
  } finally {
    db.close();
  }
  const indexFile = join(h.home, '.threadbase', 'index.db');
  if (await fs.stat(indexFile).catch(() => undefined)) {
    const idx = new Database(indexFile);
    try {
      expect(idx.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      idx.close();
    }
  }
  // Every agent still lists, none fails as a whole.
  const sources = new Sources(h.env);
  try {
    const { errors } = await sources.list();
    expect(errors.map((e) => `${e.source}: ${e.error.message}`)).toEqual([]);
  } finally {
    await sources.close();
  }
}

/** The OpenCode rows the fixture had (or, given them, the same rows now), as JSON by table and id. */
function opencodeRows(
  db: Database.Database,
  only?: Record<string, Record<string, string>>,
): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const table of ['session', 'message', 'part']) {
    out[table] = {};
    for (const row of db.prepare(`SELECT * FROM ${table}`).all() as { id: string }[]) {
      if (only && !(row.id in (only[table] ?? {}))) continue;
      (out[table] as Record<string, string>)[row.id] = JSON.stringify(row);
    }
  }
  return out;
}
let originalRows: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  h = await fixtureHome({ agents: AGENTS, prefix: 'tb-hard-' });
  for (const f of await agentFiles()) originals.set(f, await fs.readFile(f));
  const db = new Database(join(h.dirs.opencode, 'opencode.db'), { readonly: true });
  originalRows = opencodeRows(db);
  db.close();
  expect(Object.keys(originalRows.part ?? {}).length).toBeGreaterThan(0);
});
afterAll(async () => {
  await recordFigures('crash', figures);
  await fs.rm(h.home, { recursive: true, force: true });
});

describe('kill -9 during writes and sync', () => {
  it(`${KILLS} kills at seeded random points: no torn file or line, databases sound, every agent lists`, {
    timeout: 240_000,
  }, async () => {
    const plan = fc.sample(fc.tuple(fc.integer({ min: 20, max: 1500 }), fc.nat(7)), { seed: SEED, numRuns: KILLS });
    for (const [delay, start] of plan) {
      const { during, completed } = await runAndKill(delay, start);
      figures.kills++;
      figures.completedOps += completed;
      figures.killedDuring[during] = (figures.killedDuring[during] ?? 0) + 1;
      await expectWhole();
    }
    // The kills landed inside writes of every kind, not only between them.
    expect(Object.keys(figures.killedDuring).filter((k) => k !== 'between operations').length).toBeGreaterThanOrEqual(4);
  });

  it('the next sync completes the index, and the next writes clean up the temp files kills left', async () => {
    const leftover = (await agentFiles()).filter((f) => TEMP.test(f));
    figures.tempFilesLeftByKills = leftover.length;
    // Temp files are never taken for sessions.
    const listed = JSON.parse(await runCliOk(h.env, ['sessions', '--json'])) as { id: string; source: string }[];
    for (const s of listed) expect(s.id).not.toMatch(/\.tmp$|tb-\d+-/);
    const sync = await runCli(h.env, ['sync', '--json']);
    expect(sync.code, sync.err).toBe(0);
    const idx = new Database(join(h.home, '.threadbase', 'index.db'), { readonly: true });
    const tables = (idx.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    const sessionTable = tables.includes('sessions') ? 'sessions' : (tables.find((t) => /session/.test(t)) as string);
    const indexed = (idx.prepare(`SELECT COUNT(*) AS n FROM ${sessionTable}`).get() as { n: number }).n;
    idx.close();
    expect(indexed).toBe(listed.length);
    // One more write of each kind, not killed, into the same folders.
    for (const args of [
      ['convert', '0afea31a-5ccc-4b41-8d19-4c8571cb3a03', '--source', 'claude', '--to', 'pi', '--json'],
      ['convert', '01a204ad-e570-7374-8cfa-3a3511154668', '--source', 'pi', '--to', 'claude', '--json'],
      ['fork', '01a204ad-e570-7374-8cfa-3a3511154668', '--source', 'pi', '--json'],
      ['fork', '0afea31a-5ccc-4b41-8d19-4c8571cb3a03', '--source', 'claude', '--json'],
    ]) {
      const r = await runCli(h.env, args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
    }
    const still = (await agentFiles()).filter((f) => TEMP.test(f));
    figures.tempFilesCleaned = leftover.length - still.length;
    expect(still).toEqual([]);
    await expectWhole();
  });
});

describe('temp files of a killed writer', () => {
  it("are removed by the next write into their folder; a live writer's are left alone; nothing else is touched", async () => {
    const dir = await fs.mkdtemp(join(h.home, 'temps-'));
    // A pid that surely is gone: a child that has exited.
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid as number;
    await new Promise((r) => dead.on('exit', r));
    const stale = join(dir, `.abc.jsonl.tb-${deadPid}-0badc0de.tmp`);
    const live = join(dir, `.def.jsonl.tb-${process.pid}-0a0b0c0d.tmp`);
    const lookalike = join(dir, '.notours.tmp');
    for (const f of [stale, live, lookalike]) await fs.writeFile(f, 'partial');
    await writeFileAtomic(join(dir, 'new.jsonl'), '{"a":1}\n', { exclusive: true });
    const names = await fs.readdir(dir);
    expect(names.sort()).toEqual(['.def.jsonl.tb-' + process.pid + '-0a0b0c0d.tmp', '.notours.tmp', 'new.jsonl'].sort());
    expect(await removeStaleTemps(dir)).toBe(0);
  });
});
