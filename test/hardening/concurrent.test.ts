/**
 * Concurrent writers: an agent appending to its session file (each line written in two chunks, so
 * readers meet half-written lines) while threadbase reads and incrementally indexes it; two
 * threadbase writer processes on one SQLite store; two writers (pools) on one PostgreSQL schema;
 * a write lock held by another program (busy_timeout waits instead of failing).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { PiDriver } from '../../src/formats/pi/index.js';
import { Sources } from '../../src/formats/registry.js';
import { writeFileAtomic } from '../../src/formats/shared/atomic.js';
import type { SessionDriver } from '../../src/model/driver.js';
import type { ThreadbaseError } from '../../src/model/errors.js';
import type { Entry, Session } from '../../src/model/types.js';
import { IndexSync } from '../../src/stores/index-sync/sync.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema } from '../server/pg-helpers.js';
import { recordFigures } from './stores.js';

const LINES = 150;
const figures = {
  tailFollow: {} as Record<string, { lines: number; readsDuringWrite: number; halfLinesSeen: number; tornRecords: number }>,
  sqliteWriters: 0,
  postgresWriters: 0,
  sqliteWrites: 0,
  postgresWrites: 0,
  busyWaits: 0,
  concurrentSyncs: 0,
  agentFileAppenders: 0,
  agentFileAppends: 0,
};
afterAll(async () => {
  await recordFigures('concurrent', figures);
});

const TEXT = (n: number) => `line-${n}-${'y'.repeat(2000 + (n % 7) * 300)}`;
const WHOLE = /^line-(\d+)-(y+)$/;

/** The text of each message entry we wrote; a text that is not whole means a torn line was read as a record. */
function ourTexts(s: Session | undefined): string[] {
  const out: string[] = [];
  for (const e of s?.entries ?? []) {
    if (e.kind !== 'message') continue;
    for (const p of e.message.parts) if (p.type === 'text' && p.text.startsWith('line-')) out.push(p.text);
  }
  return out;
}

interface Agent {
  name: 'pi' | 'claude';
  file: (dir: string, id: string) => string;
  header: (id: string) => unknown[];
  record: (id: string, n: number, parent: string) => { id: string; line: unknown };
  driver: (env: ReturnType<typeof Object>) => SessionDriver;
}

const AGENTS: Agent[] = [
  {
    name: 'pi',
    file: (home, id) => join(home, '.pi', 'agent', 'sessions', '--work-proj--', `2026-11-23T00-00-00-000Z_${id}.jsonl`),
    header: (id) => [{ type: 'session', version: 3, id, timestamp: '2026-11-23T00:00:00.000Z', cwd: '/work/proj' }],
    record: (_id, n, parent) => {
      const eid = n.toString(16).padStart(8, '0');
      return {
        id: eid,
        line: {
          type: 'message',
          id: eid,
          parentId: parent || null,
          timestamp: new Date(Date.UTC(2026, 10, 23, 0, 0, n)).toISOString(),
          message: { role: 'user', content: [{ type: 'text', text: TEXT(n) }], timestamp: Date.UTC(2026, 10, 23, 0, 0, n) },
        },
      };
    },
    driver: (env) => new PiDriver(env),
  },
  {
    name: 'claude',
    file: (home, id) => join(home, '.claude', 'projects', '-work-proj', `${id}.jsonl`),
    header: () => [],
    record: (id, n, parent) => {
      const uuid = randomUUID();
      return {
        id: uuid,
        line: {
          type: 'user',
          uuid,
          parentUuid: parent || null,
          sessionId: id,
          cwd: '/work/proj',
          isSidechain: false,
          timestamp: new Date(Date.UTC(2026, 10, 23, 0, 0, n)).toISOString(),
          message: { role: 'user', content: TEXT(n) },
        },
      };
    },
    driver: (env) => new ClaudeDriver(env),
  },
];

describe('an agent appending while threadbase reads and indexes', () => {
  for (const agent of AGENTS) {
    it(`${agent.name}: ${LINES} lines each written in two chunks; no torn line is ever read as a record`, {
      timeout: 120_000,
    }, async () => {
      const h = await fixtureHome({ prefix: `tb-conc-${agent.name}-` });
      const id = agent.name === 'pi' ? '01a20999-0000-7000-8000-00000000c0c0' : randomUUID();
      const file = agent.file(h.home, id);
      await fs.mkdir(join(file, '..'), { recursive: true });
      await fs.writeFile(
        file,
        agent
          .header(id)
          .map((r) => `${JSON.stringify(r)}\n`)
          .join(''),
      );
      const index = openSqliteStore(join(h.home, 'index.db'));
      const indexer = new IndexSync(index);
      const sources = new Sources(h.env);
      const stat = { lines: LINES, readsDuringWrite: 0, halfLinesSeen: 0, tornRecords: 0 };
      let writing = true;
      let rounds = 0;

      const writer = (async () => {
        const fh = await fs.open(file, 'a');
        let parent = '';
        try {
          for (let n = 0; n < LINES; n++) {
            const r = agent.record(id, n, parent);
            parent = r.id;
            const line = Buffer.from(`${JSON.stringify(r.line)}\n`);
            const cut = 1 + ((n * 7919) % (line.length - 2));
            await fh.write(line.subarray(0, cut));
            // Let readers in while the line is half on disk: every 10th line for a whole read round.
            if (n % 10 === 0) {
              const seen = rounds;
              while (rounds < seen + 2) await new Promise((res) => setImmediate(res));
            } else await new Promise((res) => setTimeout(res, n % 3));
            await fh.write(line.subarray(cut));
            if (n % 5 === 0) await new Promise((res) => setImmediate(res));
          }
        } finally {
          await fh.close();
          writing = false;
        }
      })();

      const check = (s: Session | undefined, where: string) => {
        const texts = ourTexts(s);
        for (const t of texts) {
          const m = WHOLE.exec(t);
          if (!m || t !== TEXT(Number(m[1]))) stat.tornRecords++;
          expect(m && t === TEXT(Number(m[1])), `${where}: a torn record: ${t.slice(0, 40)}…(${t.length})`).toBe(true);
        }
        // Whole lines come in order, none skipped.
        expect(
          texts.map((t) => Number(WHOLE.exec(t)?.[1])),
          where,
        ).toEqual(texts.map((_, i) => i));
        return texts.length;
      };

      let lastIndexed = 0;
      while (writing) {
        const tail = await fs.readFile(file);
        if (tail.length && tail[tail.length - 1] !== 0x0a) stat.halfLinesSeen++;
        stat.readsDuringWrite++;
        // The agent's own file, read whole by its driver …
        check(await agent.driver(h.env).getSession(id), `${agent.name} driver`);
        // … and the index, brought up to date incrementally from the last whole line.
        await indexer.sync(sources, { formats: [agent.name] });
        const n = check(await index.getSession(id), 'index');
        expect(n, 'the index never goes back').toBeGreaterThanOrEqual(lastIndexed);
        lastIndexed = n;
        rounds++;
      }
      await writer;
      await indexer.sync(sources, { formats: [agent.name] });
      expect(check(await index.getSession(id), 'index after the last line')).toBe(LINES);
      expect(check(await agent.driver(h.env).getSession(id), 'driver after the last line')).toBe(LINES);
      // Reading while the writer was mid-line happened, or this test proved nothing.
      expect(stat.halfLinesSeen).toBeGreaterThanOrEqual(LINES / 10);
      figures.tailFollow[agent.name] = stat;
      await index.close();
      await sources.close();
      await fs.rm(h.home, { recursive: true, force: true });
    });
  }
});

function runChild(args: string[]): { done: Promise<string>; out: () => string; started: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/hardening/concurrent-child.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onFirst: () => void = () => {};
  const started = new Promise<void>((r) => {
    onFirst = r;
  });
  child.stdout.on('data', (d) => {
    out += d.toString();
    onFirst();
  });
  child.stderr.on('data', (d) => {
    err += d.toString();
  });
  const done = new Promise<string>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child ${args.join(' ')} exited ${code}: ${err}`)))),
  );
  return { done, out: () => out, started };
}

function sharedRoot(): Session {
  const t = new Date().toISOString();
  return {
    id: 'shared',
    source: 'threadbase',
    createdAt: t,
    updatedAt: t,
    messageCount: 0,
    entries: [
      {
        id: 'root',
        parentId: null,
        kind: 'message',
        timestamp: t,
        message: { role: 'user', parts: [{ type: 'text', text: 'root' }] },
      },
    ],
  };
}

describe('two threadbase writers on one store', () => {
  const SESSIONS = 25;

  it('SQLite: two processes write sessions and append to one shared session; every write lands, none fails', {
    timeout: 120_000,
  }, async () => {
    const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'tb-conc-sqlite-'));
    const path = join(dir, 'store.db');
    const setup = openSqliteStore(path);
    await setup.writeSession(sharedRoot(), { keepId: true });
    await setup.close();
    const a = runChild(['writer', path, 'wa', String(SESSIONS), 'shared']);
    const b = runChild(['writer', path, 'wb', String(SESSIONS), 'shared']);
    const [outA, outB] = await Promise.all([a.done, b.done]);
    expect(outA.trim().split('\n').pop(), outA.slice(0, 500)).toBe('done 0');
    expect(outB.trim().split('\n').pop(), outB.slice(0, 500)).toBe('done 0');
    const store = openSqliteStore(path);
    try {
      const list = await store.listSessions();
      expect(list.length).toBe(1 + 2 * SESSIONS);
      for (const w of ['wa', 'wb'])
        for (let i = 0; i < SESSIONS; i++) expect((await store.getSession(`${w}-s${i}`))?.entries.length, `${w}-s${i}`).toBe(6);
      const shared = await store.getSession('shared');
      expect(shared?.entries.length).toBe(1 + 2 * SESSIONS);
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
    figures.sqliteWriters = 2;
    figures.sqliteWrites = 2 * SESSIONS * 7;
  });

  it('PostgreSQL: two stores (two pools) write at once into one schema; every write lands', { timeout: 120_000 }, async () => {
    const db = await freshSchema('tb_hard_conc');
    const second = await openPostgresStore(db.url);
    try {
      await db.store.writeSession(sharedRoot(), { keepId: true });
      const write = async (store: SessionDriver, name: string) => {
        for (let i = 0; i < SESSIONS; i++) {
          const sid = `${name}-s${i}`;
          const t = new Date().toISOString();
          const e = (eid: string, parentId: string | null): Entry => ({
            id: eid,
            parentId,
            kind: 'message',
            timestamp: t,
            message: { role: 'user', parts: [{ type: 'text', text: eid }] },
          });
          await store.writeSession?.(
            { id: sid, source: 'threadbase', createdAt: t, updatedAt: t, messageCount: 0, entries: [e(`${sid}-e0`, null)] },
            { keepId: true },
          );
          for (let k = 1; k <= 5; k++) await store.appendEntries?.(sid, [e(`${sid}-e${k}`, `${sid}-e${k - 1}`)]);
          await store.appendEntries?.('shared', [e(`${name}-shared-${i}`, i === 0 ? 'root' : `${name}-shared-${i - 1}`)]);
        }
      };
      await Promise.all([write(db.store, 'pa'), write(second, 'pb')]);
      expect((await db.store.listSessions()).length).toBe(1 + 2 * SESSIONS);
      for (const w of ['pa', 'pb'])
        for (let i = 0; i < SESSIONS; i++) expect((await second.getSession(`${w}-s${i}`))?.entries.length, `${w}-s${i}`).toBe(6);
      expect((await db.store.getSession('shared'))?.entries.length).toBe(1 + 2 * SESSIONS);
    } finally {
      await second.close();
      await db.drop();
    }
    figures.postgresWriters = 2;
    figures.postgresWrites = 2 * SESSIONS * 7;
  });

  it('SQLite busy: a write lock held by another program is waited for (busy_timeout), not failed', {
    timeout: 60_000,
  }, async () => {
    const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'tb-conc-busy-'));
    const path = join(dir, 'store.db');
    const store = openSqliteStore(path);
    try {
      await store.writeSession(sharedRoot(), { keepId: true });
      const holder = runChild(['lock', path, '1500']);
      await holder.started;
      expect(holder.out()).toContain('locked');
      // This write must wait for the lock (well under the 5 s busy_timeout), then land.
      const t = new Date().toISOString();
      await store.appendEntries('shared', [
        {
          id: 'after-lock',
          parentId: 'root',
          kind: 'message',
          timestamp: t,
          message: { role: 'user', parts: [{ type: 'text', text: 'x' }] },
        },
      ]);
      await holder.done;
      expect(holder.out()).toContain('released');
      expect((await store.getSession('shared'))?.entries.map((e) => e.id)).toEqual(['root', 'after-lock']);
      figures.busyWaits++;
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('two syncs of one index at once', () => {
  it('two processes sync the same index in turns with agent files growing: every sync completes', {
    timeout: 120_000,
  }, async () => {
    const h = await fixtureHome({ agents: ['pi', 'claude'], prefix: 'tb-conc-sync-' });
    const dir = join(h.dirs.pi, 'sessions', '--work-proj--');
    const [a, b] = ['v1-linear.jsonl', 'real-branched.jsonl'].map((f) => join(dir, f)) as [string, string];
    const ROUNDS = 15;
    const one = runChild(['sync', h.home, a, String(ROUNDS)]);
    const two = runChild(['sync', h.home, b, String(ROUNDS)]);
    const [outA, outB] = await Promise.all([one.done, two.done]);
    expect(outA.trim(), outA).toBe('done 0');
    expect(outB.trim(), outB).toBe('done 0');
    const index = openSqliteStore(join(h.home, '.threadbase', 'index.db'));
    try {
      expect(index.db.pragma('integrity_check', { simple: true })).toBe('ok');
      // Both files' last lines are in the index.
      for (const f of [a, b]) {
        const id = (await new PiDriver(h.env).listSessions()).find((s) => s.path === f)?.id as string;
        const want = (await new PiDriver(h.env).getSession(id))?.entries.length;
        expect((await index.getSession(id))?.entries.length, f).toBe(want);
      }
    } finally {
      await index.close();
      await fs.rm(h.home, { recursive: true, force: true });
    }
    figures.concurrentSyncs = 2 * ROUNDS;
  });
});

describe('processes opening one new index at once', () => {
  it('all open it; it is migrated once', { timeout: 120_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'tb-conc-open-'));
      const path = join(dir, 'index.db');
      const outs = await Promise.all(Array.from({ length: 6 }, () => runChild(['open', path]).done));
      expect(outs.map((o) => o.trim())).toEqual(Array(6).fill('opened'));
      const store = openSqliteStore(path);
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a sync overtaken by another', () => {
  it('does not index again what the other sync indexed after this one listed its rows', { timeout: 120_000 }, async () => {
    const h = await fixtureHome({ agents: ['pi'], prefix: 'tb-conc-overtake-' });
    const indexPath = join(h.home, '.threadbase', 'index.db');
    await fs.mkdir(join(h.home, '.threadbase'), { recursive: true });
    const sources = new Sources(h.env);
    const pi = new PiDriver(h.env);
    const store = openSqliteStore(indexPath);
    try {
      await new IndexSync(store).sync(sources, { formats: ['pi'] });
      // Every pi file grows, so this sync sees each one changed against the rows it lists first ...
      const files = (await pi.listSessions()).map((x) => x.path as string);
      for (const f of files) {
        const last = (await pi.getSession((await pi.listSessions()).find((x) => x.path === f)?.id as string))?.entries.at(-1);
        await fs.appendFile(
          f,
          `${JSON.stringify({ type: 'custom', customType: 'tb-overtake', id: `grow-${randomUUID().slice(0, 8)}`, parentId: last?.id ?? null, timestamp: new Date().toISOString(), data: {} })}\n`,
        );
      }
      // ... and, after its first file, another process syncs them all before it goes on.
      let overtaken = false;
      const report = await new IndexSync(store).sync(sources, {
        formats: ['pi'],
        batchUnits: 1,
        onProgress: () => {
          if (overtaken) return;
          overtaken = true;
          const out = execFileSync(
            process.execPath,
            ['--import', 'tsx', 'test/hardening/concurrent-child.ts', 'sync', h.home, join(h.home, 'probe.jsonl'), '1'],
            { encoding: 'utf8' },
          );
          expect(out.trim()).toBe('done 0');
        },
      });
      expect(overtaken).toBe(true);
      expect(report.failed).toBe(0);
      for (const info of await pi.listSessions()) {
        const want = (await pi.getSession(info.id))?.entries.map((e) => e.id);
        const got = (await store.getSession(info.id))?.entries.map((e) => e.id);
        expect(got, info.path).toEqual(want);
      }
    } finally {
      await store.close();
      await fs.rm(h.home, { recursive: true, force: true });
    }
  });
});

describe('two threadbase writers appending to one agent file', () => {
  it('two processes append 256 KiB entries to one pi session at once: every line whole, every entry there', {
    timeout: 120_000,
  }, async () => {
    const h = await fixtureHome({ agents: ['pi'], prefix: 'tb-conc-append-' });
    const file = join(h.dirs.pi, 'sessions', '--work-proj--', 'real-branched.jsonl');
    const before = await fs.readFile(file);
    const id = '01a204ad-e570-7374-8cfa-3a3511154668';
    const N = 40;
    try {
      const [outA, outB] = await Promise.all([
        runChild(['pi-append', h.home, id, 'eece2f65', String(N), 'wa']).done,
        runChild(['pi-append', h.home, id, 'eece2f65', String(N), 'wb']).done,
      ]);
      expect(outA.trim()).toBe('done 0');
      expect(outB.trim()).toBe('done 0');
      const after = await fs.readFile(file);
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      const added = after.subarray(before.length).toString('utf8');
      expect(added.endsWith('\n')).toBe(true);
      const lines = added.split('\n').filter((l) => l !== '');
      for (const l of lines) expect(() => JSON.parse(l), 'an appended line is torn or interleaved').not.toThrow();
      expect(lines).toHaveLength(2 * N);
      const s = await new PiDriver(h.env).getSession(id);
      expect(s?.warnings).toEqual([]);
      const texts = ourTexts(s);
      expect(texts).toEqual([]);
      const ours = (s?.entries ?? []).filter(
        (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && /^w[ab] \d+ z/.test(p.text)),
      );
      expect(ours).toHaveLength(2 * N);
      figures.agentFileAppenders = 2;
      figures.agentFileAppends = 2 * N;
    } finally {
      await fs.rm(h.home, { recursive: true, force: true });
    }
  });
});

describe('two writers creating the same new file', () => {
  it('exactly one of 20 concurrent exclusive writes wins; the others are refused; the file is one whole write', async () => {
    const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'tb-conc-excl-'));
    const file = join(dir, 'new-session.jsonl');
    const body = (i: number) => `${JSON.stringify({ writer: i, text: 'w'.repeat(100_000) })}\n`;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, body(i), { exclusive: true })),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as ThreadbaseError).code, String(r.reason).slice(0, 200)).toBe('exists');
    expect(await fs.readFile(file, 'utf8')).toBe(body(won[0] as number));
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('a write lock held past busy_timeout', () => {
  it('fails the write with an error naming the database, and the store works once the lock is gone', {
    timeout: 60_000,
  }, async () => {
    const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'tb-conc-busy2-'));
    const path = join(dir, 'store.db');
    const store = openSqliteStore(path);
    try {
      await store.writeSession(sharedRoot(), { keepId: true });
      const holder = runChild(['lock', path, '7000']);
      await holder.started;
      const t = new Date().toISOString();
      const e = (id: string): Entry => ({
        id,
        parentId: 'root',
        kind: 'message',
        timestamp: t,
        message: { role: 'user', parts: [{ type: 'text', text: id }] },
      });
      const err = await store.appendEntries('shared', [e('during-lock')]).then(
        () => undefined,
        (x: unknown) => x as ThreadbaseError,
      );
      expect(err?.code).toBe('busy');
      expect(err?.file).toBe(path);
      await holder.done;
      await store.appendEntries('shared', [e('after-lock')]);
      expect((await store.getSession('shared'))?.entries.map((x) => x.id)).toEqual(['root', 'after-lock']);
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
