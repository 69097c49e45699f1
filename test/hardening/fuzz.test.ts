/**
 * Fuzzing every parser with mutations of the real fixture files (seeded, bounded): torn lines,
 * flipped bytes, invalid UTF-8, wrong types, huge values, deep nesting, parent cycles and orphans.
 * Each case reads the damaged store through the agent's driver (list, session, context, branches,
 * export) and checks: nothing but a typed error naming its place escapes, no case hangs, every
 * warning names its file, and every session outside the damaged file or row still loads whole.
 */
import { closeSync, promises as fs, constants as fsConstants, openSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { decompress } from 'fzstd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { exportSession } from '../../src/export/index.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { KiloDriver } from '../../src/formats/kilo/index.js';
import { OpenCodeDriver, sessionFromExport } from '../../src/formats/opencode/index.js';
import { PiDriver } from '../../src/formats/pi/index.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { parseJson } from '../../src/formats/shared/jsonl.js';
import { ZedDriver } from '../../src/formats/zed/index.js';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import { ThreadbaseError } from '../../src/model/errors.js';
import { branches, buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { createApp } from '../../src/server/app.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { IndexSync } from '../../src/stores/index-sync/sync.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { AGENTS, type AgentName, type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from '../server/pg-helpers.js';
import { applyMutation, type Mutated, type Mutation, mutationArb } from './mutate.js';
import { listFiles, recordFigures } from './stores.js';

const SEED = Number(process.env.TB_FUZZ_SEED ?? 20261123);
/**
 * Cases per agent; each case is one damaged file or row read through the whole driver. 60 by default:
 * the suite must stay under 30 minutes on the slowest CI machines (2 cores ~3x slower than others,
 * where 150 took 132 s); TB_FUZZ_RUNS=150 or more for a deeper run.
 */
const RUNS = Number(process.env.TB_FUZZ_RUNS ?? 60);
const CASE_TIMEOUT_MS = 20_000;

const CONVERT_TARGETS = ['pi', 'claude', 'opencode', 'codex'];

const figures = {
  inputsTried: 0,
  syncsRun: 0,
  conversions: 0,
  typedErrors: 0,
  warningsReported: 0,
  byAgent: {} as Record<string, number>,
};

/** Each agent's driver class, made anew for every read (no state carried between cases). */
const DRIVER_CLASSES: Record<AgentName, new (env: DriverEnv) => SessionDriver> = {
  claude: ClaudeDriver,
  pi: PiDriver,
  codex: CodexDriver,
  cline: ClineDriver,
  continue: ContinueDriver,
  copilot: CopilotDriver,
  gemini: GeminiDriver,
  kilo: KiloDriver,
  opencode: OpenCodeDriver,
  qwen: QwenDriver,
  zed: ZedDriver,
};

function driverFor(agent: AgentName, h: FixtureHome): SessionDriver {
  return new DRIVER_CLASSES[agent](h.env);
}

interface Loaded {
  id: string;
  path?: string;
  entries: number;
  session: Session;
}

/** Reads everything the driver offers, as the CLI and server would; returns what loaded. */
async function exercise(d: SessionDriver, errors: string[]): Promise<Map<string, Loaded>> {
  const out = new Map<string, Loaded>();
  const list = await d.listSessions();
  for (const info of list) {
    let s: Session | undefined;
    try {
      s = await d.getSession(info.id);
    } catch (err) {
      errors.push(checkTyped(err, `getSession ${info.id}`));
      continue;
    }
    if (!s) continue;
    for (const w of s.warnings ?? []) {
      figures.warningsReported++;
      if (!w.file) throw new Error(`warning without a file in ${info.id}: ${w.message}`);
    }
    try {
      await d.getContext(info.id);
      buildContext(s);
      branches(s);
      exportSession(s, 'html');
      exportSession(s, 'md');
      exportSession(s, 'json');
    } catch (err) {
      errors.push(checkTyped(err, `reading ${info.id}`));
    }
    out.set(info.id, { id: info.id, path: s.path, entries: s.entries.length, session: s });
  }
  return out;
}

/** A typed error that names its place is an answer; anything else is a bug and rethrown. */
function checkTyped(err: unknown, what: string): string {
  if (err instanceof ThreadbaseError && (err.file || err.id || err.line !== undefined)) {
    figures.typedErrors++;
    return `${what}: ${err.message}`.slice(0, 500);
  }
  // (cut: a damaged value can make a message megabytes long)
  throw new Error(`${what}: untyped error escaped: ${((err as Error)?.stack ?? String(err)).slice(0, 2000)}`.slice(0, 3000));
}

async function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${CASE_TIMEOUT_MS} ms (hang)`)), CASE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** One thing a case damages: a file of the store, or the JSON column of one database row. */
type Target =
  | { kind: 'file'; rel: string; jsonl: boolean }
  | { kind: 'row'; db: string; table: string; column: string; key: string; keyValue: string; zstd?: boolean };

function describeTarget(t: Target): string {
  return t.kind === 'file' ? t.rel : `${t.db}#${t.table}.${t.column}[${t.keyValue}]`;
}

async function targetsOf(agent: AgentName, h: FixtureHome): Promise<Target[]> {
  const dir = h.dirs[agent];
  const files = (await listFiles(dir)).filter((f) => !f.endsWith('.db') && !f.endsWith('.db-wal') && !f.endsWith('.db-shm'));
  const out: Target[] = files.map((f) => ({ kind: 'file', rel: relative(h.home, join(dir, f)), jsonl: f.endsWith('.jsonl') }));
  if (agent === 'opencode' || agent === 'kilo') {
    const dbRel = relative(h.home, join(dir, `${agent}.db`));
    const db = new Database(join(h.home, dbRel), { readonly: true });
    for (const table of ['session', 'message', 'part']) {
      // Kilo indexes json_extract of message.data (recall_message_role_idx): SQLite refuses a malformed one
      const cols =
        table === 'session' ? ['title', 'directory', 'parent_id', 'id'] : agent === 'kilo' && table === 'message' ? [] : ['data'];
      for (const r of db.prepare(`SELECT rowid AS k FROM ${table}`).all() as { k: number }[])
        for (const column of cols) out.push({ kind: 'row', db: dbRel, table, column, key: 'rowid', keyValue: String(r.k) });
    }
    db.close();
  }
  if (agent === 'zed') {
    const dbRel = relative(h.home, join(dir, 'threads', 'threads.db'));
    const db = new Database(join(h.home, dbRel), { readonly: true });
    for (const r of db.prepare('SELECT id, data_type FROM threads').all() as { id: string; data_type: string }[])
      out.push({
        kind: 'row',
        db: dbRel,
        table: 'threads',
        column: 'data',
        key: 'id',
        keyValue: r.id,
        zstd: r.data_type === 'zstd',
      });
    db.close();
  }
  return out;
}

function unzstd(b: Buffer): Buffer | undefined {
  try {
    return Buffer.from(decompress(b));
  } catch {
    return undefined; // the fixture's deliberately broken row
  }
}

/** Damages the target in place; returns the undo and what changed. */
async function damage(h: FixtureHome, t: Target, m: Mutation): Promise<{ undo: () => Promise<void>; mutated: Mutated }> {
  if (t.kind === 'file') {
    const p = join(h.home, t.rel);
    const original = await fs.readFile(p);
    const mutated = applyMutation(original, m, t.jsonl);
    await fs.writeFile(p, mutated.bytes);
    return { undo: () => fs.writeFile(p, original), mutated };
  }
  const db = new Database(join(h.home, t.db));
  // A damaged database need not keep its own constraints.
  db.pragma('foreign_keys = OFF');
  try {
    const row = db.prepare(`SELECT * FROM ${t.table} WHERE ${t.key} = ?`).get(t.keyValue) as Record<string, unknown>;
    const value = row[t.column];
    const original = Buffer.isBuffer(value) ? value : Buffer.from(String(value ?? ''), 'utf8');
    let mutated: Mutated;
    let dataType: string | undefined;
    const inner = t.zstd && m.kind !== 'flip' && m.kind !== 'truncate' ? unzstd(original) : undefined;
    if (inner) {
      // Damage the JSON inside the compressed row and store it as a plain JSON row.
      mutated = applyMutation(inner, m, false);
      dataType = 'json';
    } else mutated = applyMutation(original, m, false);
    const asText = !Buffer.isBuffer(value) && typeof value === 'string';
    // Text columns keep invalid UTF-8 as a blob, which is how a damaged row can reach a reader.
    const stored =
      asText && Buffer.from(mutated.bytes.toString('utf8'), 'utf8').equals(mutated.bytes)
        ? mutated.bytes.toString('utf8')
        : mutated.bytes;
    if (dataType)
      db.prepare(`UPDATE ${t.table} SET ${t.column} = ?, data_type = ? WHERE ${t.key} = ?`).run(stored, dataType, t.keyValue);
    else db.prepare(`UPDATE ${t.table} SET ${t.column} = ? WHERE ${t.key} = ?`).run(stored, t.keyValue);
    const oldType = row.data_type;
    return {
      undo: async () => {
        const w = new Database(join(h.home, t.db));
        w.pragma('foreign_keys = OFF');
        try {
          if (dataType)
            w.prepare(`UPDATE ${t.table} SET ${t.column} = ?, data_type = ? WHERE ${t.key} = ?`).run(value, oldType, t.keyValue);
          else w.prepare(`UPDATE ${t.table} SET ${t.column} = ? WHERE ${t.key} = ?`).run(value, t.keyValue);
        } finally {
          w.close();
        }
      },
      mutated,
    };
  } finally {
    db.close();
  }
}

/** Which sessions a target can affect: those read from that file (or, for a row, that database). */
function affects(t: Target, s: Loaded, h: FixtureHome): boolean {
  if (!s.path) return true;
  const target = join(h.home, t.kind === 'file' ? t.rel : t.db);
  if (s.path === target) return true;
  // A session is also built from files beside or under its own (sub-agents, OpenCode's legacy
  // message/part files, Gemini's sub-agent chats): those count as its file too.
  const base = s.path.replace(/\.(jsonl?|db)$/, '');
  const sid = s.id;
  // OpenCode's legacy storage spreads a session over message/ and part/ folders named by message id.
  const storage = join(h.dirs.opencode, 'storage');
  if (target.startsWith(`${storage}/`) && s.path.startsWith(`${storage}/`)) return true;
  return target.startsWith(`${base}/`) || target.includes(sid) || t.kind === 'row' || s.path.endsWith('.db');
}

// every agent threadbase reads
const AGENTS_FUZZED = AGENTS;

/** A 5000-deep array in place of a value (the line, node and key the fuzzer drew, kept as they were). */
const DEEP_ARRAY: Mutation = {
  kind: 'value',
  line: 2147483647,
  node: 1518063006,
  key: 26,
  value: { type: 'deep', depth: 5000, open: '[' },
};
/** An epoch-ms time past the range of a Date in place of a value. */
const PAST_DATE_RANGE: Mutation = {
  kind: 'value',
  line: 1854135089,
  node: 1760334174,
  key: 1823979018,
  value: { type: 'number', value: 9007199254740992 },
};

/** Failing cases found by the fuzzer, kept so they run on every test run (see the fixes they led to). */
const REGRESSIONS: { agent: AgentName; target: string; mutation: Mutation }[] = [
  // 5000-deep arrays in a record overflowed the stack in export (JSON.stringify): parseJson now refuses > 1000 levels.
  { agent: 'claude', target: '.claude/projects/-tmp-cc-proj/bcdac43d-f5e3-48d3-b285-908f5f7abc8b.jsonl', mutation: DEEP_ARRAY },
  { agent: 'pi', target: '.pi/agent/sessions/--work-proj--/v1-linear.jsonl', mutation: DEEP_ARRAY },
  { agent: 'opencode', target: '.local/share/opencode/opencode.db#message.data[14]', mutation: DEEP_ARRAY },
  {
    agent: 'zed',
    target: '.local/share/zed/threads/threads.db#threads.data[legacy-thread-v020]',
    mutation: { kind: 'value', line: 0, node: 2147483647, key: 1041686381, value: { type: 'deep', depth: 5000, open: '{' } },
  },
  // A 100000-deep array in a sub-agent's meta.json (read with JSON.parse) overflowed the stack in export.
  {
    agent: 'claude',
    target: '.claude/projects/-tmp-cc-proj/0afea31a-5ccc-4b41-8d19-4c8571cb3a03/subagents/agent-ac5303661b5759184.meta.json',
    mutation: { kind: 'value', line: 461954022, node: 8, key: 2147483624, value: { type: 'deep', depth: 100000, open: '[' } },
  },
  // A 5 MB cwd: converting the session to pi made a directory name too long, an untyped ENAMETOOLONG;
  // writeFileAtomic now fails with a ThreadbaseError naming the file.
  {
    agent: 'pi',
    target: '.pi/agent/sessions/--work-proj--/v2-hook.jsonl',
    mutation: {
      kind: 'value',
      line: 1093000256,
      node: 463778138,
      key: 1417406199,
      value: { type: 'hugeString', bytes: 5000000 },
    },
  },
  // An epoch-ms time past the Date range threw RangeError from toISOString (pi isoTime, OpenCode isoOf).
  { agent: 'pi', target: '.pi/agent/sessions/--work-proj--/real-branched.jsonl', mutation: PAST_DATE_RANGE },
  { agent: 'opencode', target: '.local/share/opencode/opencode.db#message.data[3]', mutation: PAST_DATE_RANGE },
];

describe('fuzzing every agent parser with damaged real files', () => {
  const homes = new Map<AgentName, FixtureHome>();
  const baselines = new Map<AgentName, Map<string, Loaded>>();

  /** Where damaged sessions are converted to (a home of its own, emptied never: it only grows). */
  let scratch: { home: FixtureHome; sources: Sources };
  /** One index per agent, synced after every case, so its incremental paths meet the damage. */
  const indexes = new Map<AgentName, { sync: IndexSync; sources: Sources; store: SqliteStore }>();

  beforeAll(async () => {
    const scratchHome = await fixtureHome({ prefix: 'tb-fuzz-convert-' });
    scratch = { home: scratchHome, sources: new Sources(scratchHome.env) };
    for (const agent of AGENTS_FUZZED) {
      const h = await fixtureHome({ agents: [agent], prefix: `tb-fuzz-${agent}-` });
      homes.set(agent, h);
      await fs.mkdir(join(h.home, '.threadbase'), { recursive: true });
      const store = openSqliteStore(join(h.home, '.threadbase', 'index.db'));
      const sources = new Sources(h.env);
      const sync = new IndexSync(store);
      await sync.sync(sources, { formats: [agent] });
      indexes.set(agent, { sync, sources, store });
      const errors: string[] = [];
      baselines.set(agent, await exercise(driverFor(agent, h), errors));
    }
  });
  afterAll(async () => {
    for (const i of indexes.values()) {
      expect(i.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      await i.store.close();
      await i.sources.close();
    }
    for (const h of homes.values()) await fs.rm(h.home, { recursive: true, force: true });
    await scratch.sources.close();
    await fs.rm(scratch.home.home, { recursive: true, force: true });
    await recordFigures('fuzz', { ...figures, seed: SEED, runsPerAgent: RUNS });
  });

  async function runCase(agent: AgentName, t: Target, m: Mutation): Promise<void> {
    const h = homes.get(agent) as FixtureHome;
    const base = baselines.get(agent) as Map<string, Loaded>;
    const { undo, mutated } = await damage(h, t, m);
    figures.inputsTried++;
    figures.byAgent[agent] = (figures.byAgent[agent] ?? 0) + 1;
    try {
      const errors: string[] = [];
      const label = `${agent} ${describeTarget(t).slice(0, 200)} ${JSON.stringify(m).slice(0, 200)}`;
      let loaded: Map<string, Loaded>;
      try {
        loaded = await withTimeout(exercise(driverFor(agent, h), errors), label);
      } catch (err) {
        // listSessions itself may refuse a whole database with a typed error; nothing else.
        checkTyped(err, label);
        if (t.kind === 'file' && !t.rel.endsWith('.db'))
          throw new Error(`${label}: listing failed for one damaged file: ${(err as Error).message}`);
        return;
      }
      // The index takes the damaged store too (incrementally: it has seen the undamaged one).
      const index = indexes.get(agent) as { sync: IndexSync; sources: Sources };
      const report = await withTimeout(index.sync.sync(index.sources, { formats: [agent] }), `${label}: sync`);
      for (const w of report.warnings) expect(w.file, `${label}: sync warning without a file: ${w.message}`).toBeTruthy();
      figures.syncsRun++;
      // A damaged session converted into another agent (one target a case, in turn) is written
      // whole and reads back, or is refused with a typed error.
      const target = CONVERT_TARGETS[figures.inputsTried % CONVERT_TARGETS.length] as string;
      for (const s of loaded.values()) {
        const before = base.get(s.id);
        if (before && !affects(t, before, h)) continue;
        try {
          const written = await withTimeout(
            convertSessionAll(s.session, scratch.sources.driver(target)),
            `${label}: convert to ${target}`,
          );
          figures.conversions++;
          for (const w of written)
            expect(
              await scratch.sources.driver(target).getSession(w.id),
              `${label}: converted ${s.id} → ${target} ${w.id} does not read back`,
            ).toBeDefined();
        } catch (err) {
          checkTyped(err, `${label}: convert ${s.id} to ${target}`);
        }
      }
      // Every session the damage cannot reach still loads whole.
      for (const s of base.values()) {
        if (affects(t, s, h)) continue;
        const now = loaded.get(s.id);
        expect(now, `${label}: untouched session ${s.id} (${s.path}) no longer loads`).toBeDefined();
        expect(now?.entries, `${label}: untouched session ${s.id} lost entries`).toBe(s.entries);
      }
      // Damage to one line of a JSONL file loses at most the records on the lines it touched (where
      // a line is one entry: not Codex, whose items of one response form one entry).
      if (t.kind === 'file' && t.jsonl && mutated.lines && !mutated.lines.includes(1)) {
        const own = [...base.values()].find((s) => s.path === join(h.home, t.rel));
        if (own && (agent === 'claude' || agent === 'pi' || agent === 'gemini')) {
          const now = loaded.get(own.id);
          expect(now, `${label}: session ${own.id} no longer loads`).toBeDefined();
          expect(now?.entries ?? 0, `${label}: session ${own.id} lost more than the damaged lines`).toBeGreaterThanOrEqual(
            own.entries - mutated.lines.length,
          );
        }
      }
    } finally {
      await undo();
    }
  }

  for (const agent of AGENTS_FUZZED) {
    it(`${agent}: ${RUNS} damaged inputs, seed ${SEED}`, { timeout: 300_000 }, async () => {
      const h = homes.get(agent) as FixtureHome;
      const targets = await targetsOf(agent, h);
      expect(targets.length).toBeGreaterThan(0);
      for (const r of REGRESSIONS.filter((x) => x.agent === agent)) {
        const t = targets.find((x) => describeTarget(x) === r.target);
        expect(t, `regression target ${r.target}`).toBeDefined();
        await runCase(agent, t as Target, r.mutation);
      }
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...targets), mutationArb, async (t, m) => runCase(agent, t, m)),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  }

  it('the OpenCode export JSON parser takes damaged exports', async () => {
    const original = await fs.readFile('test/fixtures/opencode/export.json');
    await fc.assert(
      fc.asyncProperty(mutationArb, async (m) => {
        figures.inputsTried++;
        figures.byAgent['opencode-export'] = (figures.byAgent['opencode-export'] ?? 0) + 1;
        const { bytes } = applyMutation(original, m, false);
        let value: unknown;
        try {
          value = parseJson(bytes.toString('utf8'));
        } catch {
          return; // not JSON: the CLI reports that before the parser sees it
        }
        try {
          const s = sessionFromExport(value, 'export.json');
          buildContext(s);
          exportSession(s, 'md');
        } catch (err) {
          checkTyped(err, `export.json ${JSON.stringify(m).slice(0, 200)}`);
        }
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });
});

/** The stores the server runs over, each with its token store; close drops what was made. */
const SERVER_STORES: [string, () => Promise<ServerBackend>][] = [
  ['memory', async () => ({ store: new MemoryStore(), tokens: new MemoryTokenStore(), close: async () => undefined })],
  ['SQLite', () => sqliteBackend('tb-fuzz-http-')],
  ['PostgreSQL', () => postgresBackend('tb_hard_fuzz')],
];

describe.each(SERVER_STORES)('fuzzing the HTTP API bodies over %s', (storeName, openStore) => {
  it(`every body-taking route answers damaged bodies, and every GET odd query strings, with 4xx, never 500 (${RUNS * 6} requests)`, {
    timeout: 300_000,
  }, async () => {
    const opened = await openStore();
    const tokens = opened.tokens;
    const key = (await tokens.createToken('fuzz')).key;
    const logs: string[] = [];
    const app = createApp({ store: opened.store, tokens, maxBodyBytes: 2_000_000, log: (l) => logs.push(l) });
    try {
      const call = async (method: string, path: string, body: Buffer | string) => {
        const res = await withTimeout(
          Promise.resolve(
            app.request(path, {
              method,
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: typeof body === 'string' ? body : new Uint8Array(body),
            }),
          ),
          `${method} ${path}`,
        );
        return { status: res.status, text: await res.text() };
      };
      // Valid bodies to damage: every fixture session as the model JSON that `push` PUTs.
      const h = await fixtureHome({ agents: ['claude', 'pi', 'codex'], prefix: 'tb-fuzz-http-' });
      const sessions: Session[] = [];
      for (const agent of ['claude', 'pi', 'codex'] as const) {
        const d = driverFor(agent, h);
        for (const info of await d.listSessions()) {
          const s = await d.getSession(info.id);
          if (s) sessions.push(s);
        }
      }
      await fs.rm(h.home, { recursive: true, force: true });
      const seeded = sessions[0] as Session;
      expect(
        (
          await call(
            'PUT',
            `/api/v1/threadbase/sessions/${seeded.id}`,
            JSON.stringify({ session: seeded, entries: seeded.entries }),
          )
        ).status,
      ).toBe(201);
      // The entry schema that refuses damage still takes every real session whole.
      for (const s of sessions) {
        const r = await call('PUT', `/api/v1/threadbase/sessions/${s.id}`, JSON.stringify({ session: s, entries: s.entries }));
        expect(r.status, `PUT ${s.source} ${s.id}: ${r.text.slice(0, 300)}`).toBe(s.id === seeded.id ? 200 : 201);
      }
      const created = JSON.parse((await call('POST', '/api/v1/session', '{}')).text) as { data: { id: string } };
      const acId = created.data.id;
      const lastEntry = seeded.entries[seeded.entries.length - 1]?.id ?? 'x';
      const routes: { method: string; path: string; valid: () => unknown }[] = [
        { method: 'POST', path: '/api/v1/session', valid: () => ({ configs: { a: 1 } }) },
        {
          method: 'POST',
          path: `/api/v1/session/${acId}/messages`,
          valid: () => ({ blob: { role: 'user', content: 'hi' }, format: 'openai' }),
        },
        {
          method: 'POST',
          path: `/api/v1/session/${acId}/messages`,
          valid: () => ({
            blob: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
            format: 'anthropic',
          }),
        },
        {
          method: 'PUT',
          path: `/api/v1/threadbase/sessions/${seeded.id}`,
          valid: () => {
            const s = sessions[figures.inputsTried % sessions.length] as Session;
            return { session: { ...s, id: seeded.id }, entries: s.entries };
          },
        },
        {
          method: 'POST',
          path: `/api/v1/threadbase/sessions/${seeded.id}/entries`,
          valid: () => ({ entries: seeded.entries.slice(-2) }),
        },
        { method: 'POST', path: `/api/v1/threadbase/sessions/${seeded.id}/fork`, valid: () => ({ at: lastEntry, title: 't' }) },
        {
          method: 'POST',
          path: `/api/v1/threadbase/sessions/${seeded.id}/branch`,
          valid: () => ({ at: lastEntry, blob: { role: 'user', content: 'b' }, format: 'anthropic' }),
        },
      ];
      const statuses: Record<string, number> = {};
      const bodyArb = fc.oneof(
        fc.record({ how: fc.constant('mutated' as const), m: mutationArb }),
        fc.record({ how: fc.constant('json' as const), v: fc.jsonValue({ maxDepth: 4 }) }),
        fc.record({ how: fc.constant('text' as const), v: fc.string({ maxLength: 200 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...routes), bodyArb, async (r, b) => {
          figures.inputsTried++;
          figures.byAgent[`http-${storeName}`] = (figures.byAgent[`http-${storeName}`] ?? 0) + 1;
          const body =
            b.how === 'mutated'
              ? applyMutation(Buffer.from(JSON.stringify(r.valid())), b.m, false).bytes
              : b.how === 'json'
                ? JSON.stringify(b.v)
                : b.v;
          const res = await call(r.method, r.path, body);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          expect(
            res.status,
            `${r.method} ${r.path} ${JSON.stringify(b).slice(0, 300)} → ${res.text.slice(0, 300)} ${logs.slice(-1)[0]?.slice(0, 1500)}`,
          ).toBeLessThan(500);
          expect(() => JSON.parse(res.text), `${r.method} ${r.path}: answer is not JSON`).not.toThrow();
        }),
        { seed: SEED, numRuns: RUNS * 4 },
      );
      // Query strings of every GET route: odd values for every parameter the routes read.
      const QUERY_KEYS = [
        'limit',
        'cursor',
        'time_desc',
        'format',
        'since',
        'until',
        'q',
        'leaf',
        'entry',
        'offset',
        'by',
        'source',
        'project',
        'role',
        'tool',
        'text',
        'parent',
        'space_id',
        'not_connected',
      ];
      const ODD = fc.oneof(
        fc.constantFrom(
          '',
          '-1',
          '0',
          '1e309',
          'NaN',
          'null',
          'x',
          '2026-13-45',
          '99999-01-01',
          'now',
          '%',
          "'",
          '"',
          '\\',
          '../..',
          'a'.repeat(5000),
        ),
        fc.string({ maxLength: 30 }),
      );
      const gets = [...new Set(app.routes.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1')).map((r) => r.path))];
      let queries = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...gets),
          fc.dictionary(fc.constantFrom(...QUERY_KEYS), ODD, { maxKeys: 4 }),
          async (path, query) => {
            queries++;
            const url = `${path.replace(':id', seeded.id)}?${new URLSearchParams(query)}`;
            const res = await withTimeout(
              Promise.resolve(app.request(url, { headers: { authorization: `Bearer ${key}` } })),
              `GET ${url.slice(0, 200)}`,
            );
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const text = await res.text();
            expect(
              res.status,
              `GET ${url.slice(0, 300)} → ${text.slice(0, 300)} ${logs.slice(-1)[0]?.slice(0, 1500)}`,
            ).toBeLessThan(500);
          },
        ),
        { seed: SEED, numRuns: RUNS * 2 },
      );
      expect(logs.filter((l) => l.includes(' 500 '))).toEqual([]);
      await recordFigures(`fuzz-http-${storeName}`, { statuses, queries });
    } finally {
      await opened.close();
    }
  });
});

describe('fuzz regressions on the server', () => {
  it('an entry that only looks like one (message kind, no message) is refused, and the session stays readable', async () => {
    // Found by the body fuzzer: a flipped byte renamed `message`; the entry was stored and every
    // later read of the session answered 500. The server now checks entries per kind.
    const tokens = new MemoryTokenStore();
    const key = (await tokens.createToken('p')).key;
    const app = createApp({ store: new MemoryStore(), tokens, log: () => {} });
    const req = (method: string, path: string, body?: unknown) =>
      app.request(path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const t = '2026-01-01T00:00:00.000Z';
    const first = {
      id: 'e1',
      parentId: null,
      kind: 'message',
      timestamp: t,
      message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    };
    expect((await req('PUT', '/api/v1/threadbase/sessions/s1', { session: { id: 's1' }, entries: [first] })).status).toBe(201);
    const bad = [
      { id: 'e2', parentId: 'e1', kind: 'message', timestamp: t, mesrage: { role: 'user', parts: [] } },
      { id: 'e2', parentId: 'e1', kind: 'message', timestamp: t, message: { role: 'user', parts: [{ type: 'text' }] } },
      { id: 'e2', parentId: 'e1', kind: 'message', timestamp: t, message: { role: 'robot', parts: [] } },
      { id: 'e2', parentId: 'e1', kind: 'compaction', timestamp: t },
      {
        id: 'e2',
        parentId: 'e1',
        kind: 'message',
        timestamp: t,
        message: { role: 'user', parts: [{ type: 'tool_result', callId: 'c', content: 7 }] },
      },
    ];
    // Found by the body fuzzer (seed 7): a 5000-deep body overflowed the stack in the store (500).
    const deep = `{"configs":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    expect(
      (await app.request('/api/v1/session', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: deep })).status,
    ).toBe(400);
    for (const e of bad) expect((await req('POST', '/api/v1/threadbase/sessions/s1/entries', { entries: [e] })).status).toBe(400);
    const s = await req('GET', '/api/v1/threadbase/sessions/s1');
    expect(s.status).toBe(200);
    expect(((await s.json()) as { data: { entries: unknown[] } }).data.entries).toHaveLength(1);
  });
});

describe('odd things in agent folders', () => {
  it('symlink loops, dangling links, a FIFO and a folder named like a session file: listing and sync finish, the real sessions load', {
    timeout: 120_000,
  }, async () => {
    const h = await fixtureHome({ agents: AGENTS_FUZZED, prefix: 'tb-fuzz-odd-' });
    const sources = new Sources(h.env);
    const before = (await sources.list()).sessions.map((s) => `${s.source}:${s.id}`).sort();
    await sources.close();
    const { execFileSync } = await import('node:child_process');
    // In every folder of every agent store: a loop back to the folder, a link to nowhere, a FIFO
    // (opening one for reading blocks until a writer comes) and a folder with a session file's name.
    const dirs = new Set<string>();
    const fifos: string[] = [];
    for (const a of AGENTS_FUZZED) {
      dirs.add(h.dirs[a]);
      for (const f of await listFiles(h.dirs[a])) dirs.add(join(h.dirs[a], f, '..'));
    }
    for (const d of dirs) {
      await fs.symlink('.', join(d, 'loop'));
      await fs.symlink('/nonexistent/tb', join(d, 'dangling.jsonl'));
      await fs.symlink('/nonexistent/tb', join(d, 'dangling.json'));
      // FIFOs named as each agent names its session files.
      for (const name of [
        'fifo.jsonl',
        '0b0b0b0b-0000-4000-8000-000000000001.jsonl',
        'rollout-2026-01-01T00-00-00-0b0b0b0b-0000-4000-8000-000000000002.jsonl',
        '2026-01-01T00-00-00-000Z_0b0b0b0b-0000-7000-8000-000000000003.jsonl',
        'session-2026-01-01T00-00-0b0b0b0b.json',
        'ses_0b0b0b0bfifo.json',
        'msg_0b0b0b0bfifo.json',
      ]) {
        execFileSync('mkfifo', [join(d, name)]);
        fifos.push(join(d, name));
      }
      await fs.mkdir(join(d, '01a2049f-0000-7000-8000-000000000000.jsonl'));
    }
    const after = new Sources(h.env);
    try {
      const listed = await withTimeout(after.list(), 'listing with odd files');
      expect(listed.errors.map((e) => `${e.source}: ${e.error.message}`)).toEqual([]);
      expect(listed.sessions.map((s) => `${s.source}:${s.id}`).sort()).toEqual(before);
      for (const s of listed.sessions)
        expect(await withTimeout(after.driver(s.source).getSession(s.id), `${s.source} ${s.id}`)).toBeDefined();
      await fs.mkdir(join(h.home, '.threadbase'), { recursive: true });
      const index = openSqliteStore(join(h.home, '.threadbase', 'index.db'));
      try {
        const report = await withTimeout(new IndexSync(index).sync(after), 'sync with odd files');
        expect(report.failed).toBe(0);
        expect((await index.listSessions()).length).toBe(before.length);
      } finally {
        await index.close();
      }
    } finally {
      // A reader still blocked on a FIFO (a failed run) holds a thread of the pool: a writer end
      // opened without blocking lets it go.
      for (const p of fifos) closeSync(openSync(p, fsConstants.O_RDWR | fsConstants.O_NONBLOCK));
      await after.close();
      await fs.rm(h.home, { recursive: true, force: true });
    }
  });
});
