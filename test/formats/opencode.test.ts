/**
 * The OpenCode driver against the database the real OpenCode 1.18.33 recorded (fixture), its
 * export JSON and the requests it sent on resume, the legacy JSON storage, hand-made rows of every
 * part type, damaged and foreign-version databases, and writing/forking back into the real schema.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import '../../src/formats/all.js';
import {
  COMPACTION_PROMPT,
  encodeSession,
  newId,
  OpenCodeDriver,
  opencodeContext,
  remoteKey,
  sessionFromExport,
  sessionToExport,
} from '../../src/formats/opencode/index.js';
import { sessionInfoFromRow } from '../../src/formats/opencode/sqlite.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { ThreadbaseError } from '../../src/model/errors.js';
import type { Entry, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { DETAIL_IMAGE, imageDetailSession, messageEntry, secondInto2026, textMessage } from '../helpers/sessions.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'opencode');
const REAL_SESSION = 'ses_dfb46f783ffeZ1j67MnacZPrQP';
const temps: string[] = [];

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temp HOME whose OpenCode data dir holds a copy of the fixture database (and optionally storage). */
function home(opts: { db?: boolean; storage?: boolean } = { db: true }): { env: DriverEnv; dataDir: string; db: string } {
  const root = mkdtempSync(join(tmpdir(), 'tb-opencode-'));
  temps.push(root);
  const dataDir = join(root, 'data', 'opencode');
  mkdirSync(dataDir, { recursive: true });
  const db = join(dataDir, 'opencode.db');
  if (opts.db !== false) copyFileSync(join(FIXTURES, 'opencode.db'), db);
  if (opts.storage) cpSync(join(FIXTURES, 'storage'), join(dataDir, 'storage'), { recursive: true });
  return { env: { home: root, env: { XDG_DATA_HOME: join(root, 'data') } }, dataDir, db };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const anthropicOf = (s: Session, leafId?: string) => contextToAnthropic(opencodeContext(s, leafId ? { leafId } : {})).messages;

function userText(e: Entry): string | undefined {
  if (e.kind !== 'message' || e.message.role !== 'user') return undefined;
  return e.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

describe('reading the database the real OpenCode wrote', () => {
  it('lists the session with its project directory, title and message count', async () => {
    const { env } = home();
    const list = await new OpenCodeDriver(env).listSessions();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: REAL_SESSION,
      source: 'opencode',
      project: '/tmp/oc/proj3',
      title: 'c1',
      messageCount: 19,
      parentId: null,
    });
    expect((await new OpenCodeDriver(env).getSession(REAL_SESSION))?.messageCount).toBe(19);
  });

  it('maps messages and parts: the tool call with its result, usage per step, the compaction', async () => {
    const { env } = home();
    const s = (await new OpenCodeDriver(env).getSession(REAL_SESSION)) as Session;
    expect(s.warnings).toEqual([]);
    const call = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ type: 'tool_call', name: 'bash', input: { command: 'echo hi > out.txt' } });
    const result = s.entries.find((e) => e.kind === 'message' && e.message.role === 'tool');
    expect(result?.kind === 'message' && result.message.parts[0]).toMatchObject({
      type: 'tool_result',
      callId: (call as { id: string }).id,
      content: '(no output)',
      name: 'bash',
    });
    const compaction = s.entries.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({ kind: 'compaction', summary: 'ok: Here is the conversation so far: <conver' });
    // the summary message is folded into the compaction entry, not a message of its own
    expect(s.entries.some((e) => e.kind === 'message' && e.message.meta?.summary === true)).toBe(false);
    const first = s.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(first?.kind === 'message' && first.message.usage).toEqual({
      input: 29,
      output: 33,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    });
    // each entry's parent is the one before it
    s.entries.forEach((e, i) => {
      expect(e.parentId).toBe(i === 0 ? null : s.entries[i - 1]?.id);
    });
  });

  it("counts the compaction's summary request as OpenCode does, and writes it back", async () => {
    const { env, db } = home();
    // OpenCode's totals: every assistant message row's tokens, the compaction's summary message included
    const conn = new Database(db, { readonly: true });
    const rows = (conn.prepare('SELECT data FROM message WHERE session_id = ?').all(REAL_SESSION) as { data: string }[])
      .map((r) => JSON.parse(r.data) as { role: string; summary?: boolean; tokens?: { input: number; output: number } })
      .filter((m) => m.role === 'assistant');
    conn.close();
    const summaryRow = rows.find((m) => m.summary === true);
    expect(summaryRow?.tokens?.input).toBeGreaterThan(0);
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession(REAL_SESSION)) as Session;
    const compaction = s.entries.find((e) => e.kind === 'compaction');
    expect(compaction?.kind === 'compaction' && compaction.usage).toMatchObject({
      input: summaryRow?.tokens?.input,
      output: summaryRow?.tokens?.output,
    });
    const u = summarizeUsage(s.entries);
    expect(u.usage.input).toBe(rows.reduce((n, m) => n + (m.tokens?.input ?? 0), 0));
    expect(u.usage.output).toBe(rows.reduce((n, m) => n + (m.tokens?.output ?? 0), 0));
    expect(u.responses).toBe(rows.length);
    // written to OpenCode (a new session), the summary message carries the request's tokens again
    const back = (await d.getSession((await d.writeSession(s)).id)) as Session;
    const again = back.entries.find((e) => e.kind === 'compaction');
    expect(again?.kind === 'compaction' && again.usage).toEqual(compaction?.kind === 'compaction' && compaction.usage);
    expect(summarizeUsage(back.entries).usage).toEqual(u.usage);
    // from another agent (no OpenCode rows to copy), the summary's step-finish carries the request as
    // OpenCode writes it: OpenCode keeps a session's totals from step-finish parts alone
    const foreign: Session = {
      ...s,
      source: 'threadbase',
      entries: s.entries.map(({ raw: _raw, rawSource: _rawSource, ...e }) => e as Entry),
    };
    const written = await d.writeSession(foreign);
    const w = new Database(db, { readonly: true });
    const summary = (
      w.prepare('SELECT id, data FROM message WHERE session_id = ?').all(written.id) as { id: string; data: string }[]
    ).find((m) => (JSON.parse(m.data) as { summary?: boolean }).summary === true);
    const finish = (w.prepare('SELECT data FROM part WHERE message_id = ?').all(summary?.id) as { data: string }[])
      .map((p) => JSON.parse(p.data) as { type: string; tokens?: { input: number; output: number }; cost?: number })
      .find((p) => p.type === 'step-finish');
    w.close();
    expect(finish?.tokens).toMatchObject({ input: summaryRow?.tokens?.input, output: summaryRow?.tokens?.output });
    expect(finish?.cost).toBe((JSON.parse(summary?.data ?? '{}') as { cost?: number }).cost);
    expect(summarizeUsage(((await d.getSession(written.id)) as Session).entries).usage).toEqual(u.usage);
  });

  it('gives at every resume point exactly the messages OpenCode sent (compaction included)', async () => {
    const { env } = home();
    const s = (await new OpenCodeDriver(env).getSession(REAL_SESSION)) as Session;
    const requests = JSON.parse(readFileSync(join(FIXTURES, 'resume-requests.json'), 'utf8')) as {
      role: string;
      content: { type: string; text?: string }[];
    }[][];
    expect(requests.length).toBe(8);
    for (const req of requests) {
      const last = req[req.length - 1];
      if (!last) throw new Error('empty request');
      if (last.content.some((b) => b.type === 'tool_result')) {
        const toolEntry = s.entries.find((e) => e.kind === 'message' && e.message.role === 'tool') as Entry;
        expect(anthropicOf(s, toolEntry.id)).toEqual(req);
        continue;
      }
      const prompt = last.content.map((b) => b.text ?? '').join('');
      const promptEntry = s.entries.find((e) => userText(e) === prompt);
      expect(promptEntry, prompt).toBeDefined();
      expect(anthropicOf(s, promptEntry?.parentId ?? undefined)).toEqual(req.slice(0, -1));
    }
    // and the current leaf: compaction request, summary, then what followed it
    const ctx = anthropicOf(s);
    expect(ctx[0]).toEqual({ role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] });
    expect(ctx).toHaveLength(6);
  });

  it('never modifies the database while reading (checksum), also in WAL mode', async () => {
    const { env, db } = home();
    const wal = new Database(db);
    wal.pragma('journal_mode = WAL');
    wal.close();
    const before = sha(db);
    const driver = new OpenCodeDriver(env);
    await driver.listSessions();
    await driver.getSession(REAL_SESSION);
    await driver.getContext(REAL_SESSION);
    await driver.usage();
    expect(sha(db)).toBe(before);
  });

  it('reads OpenCode export JSON into the same session', async () => {
    const { env } = home();
    const fromDb = (await new OpenCodeDriver(env).getSession(REAL_SESSION)) as Session;
    const fromExport = sessionFromExport(JSON.parse(readFileSync(join(FIXTURES, 'export.json'), 'utf8')), 'export.json');
    expect(fromExport.id).toBe(REAL_SESSION);
    expect(fromExport.entries.map((e) => e.id)).toEqual(fromDb.entries.map((e) => e.id));
    expect(anthropicOf(fromExport)).toEqual(anthropicOf(fromDb));
  });
});

describe('a sub-agent run the real OpenCode recorded', () => {
  it('links the child session to its parent and to the task tool call that ran it', async () => {
    const { env, db } = home();
    copyFileSync(join(FIXTURES, 'subagent.db'), db);
    const d = new OpenCodeDriver(env);
    const list = await d.listSessions();
    const child = list.find((s) => s.parentId);
    const parent = list.find((s) => !s.parentId);
    expect(child).toMatchObject({ parentId: parent?.id, title: 'sub task (@general subagent)' });
    const full = (await d.getSession(child?.id as string)) as Session;
    const parentSession = (await d.getSession(parent?.id as string)) as Session;
    const task = parentSession.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_call' && p.name === 'task');
    expect(task).toMatchObject({ input: { prompt: 'look around', subagent_type: 'general' } });
    expect(full.parentToolCallId).toBe((task as { id: string }).id);
    expect(anthropicOf(full)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look around' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok: look around' }] },
    ]);
  });
});

describe('where the databases are', () => {
  it('reads the databases of other release channels beside opencode.db, and only $OPENCODE_DB when set', async () => {
    const { env, dataDir } = home();
    copyFileSync(join(FIXTURES, 'subagent.db'), join(dataDir, 'opencode-beta.db'));
    const all = await new OpenCodeDriver(env).listSessions();
    expect(all.map((s) => s.path).sort()).toEqual([
      join(dataDir, 'opencode-beta.db'),
      join(dataDir, 'opencode-beta.db'),
      join(dataDir, 'opencode.db'),
    ]);
    const beta = all.find((s) => s.parentId) as { id: string };
    expect((await new OpenCodeDriver(env).getSession(beta.id))?.path).toBe(join(dataDir, 'opencode-beta.db'));
    const only = new OpenCodeDriver({ ...env, env: { ...env.env, OPENCODE_DB: 'opencode-beta.db' } });
    expect((await only.listSessions()).every((s) => s.path === join(dataDir, 'opencode-beta.db'))).toBe(true);
  });
});

describe('damaged and foreign databases', () => {
  it('skips a row with malformed JSON with a warning naming it; the rest loads', async () => {
    const { env, db } = home();
    const w = new Database(db);
    const victim = w
      .prepare(
        "SELECT id FROM message WHERE data LIKE '%message number 2%' OR id IN (SELECT message_id FROM part WHERE data LIKE '%message number 2 with%') LIMIT 1",
      )
      .get() as { id: string };
    w.prepare("UPDATE message SET data = '{not json' WHERE id = ?").run(victim.id);
    const part = w.prepare('SELECT id FROM part WHERE data LIKE \'%"type":"tool"%\'').get() as { id: string };
    w.prepare("UPDATE part SET data = '[1,' WHERE id = ?").run(part.id);
    w.close();
    const s = (await new OpenCodeDriver(env).getSession(REAL_SESSION)) as Session;
    expect(s.warnings?.map((x) => x.id)).toEqual(expect.arrayContaining([victim.id, part.id]));
    expect(s.warnings?.find((x) => x.id === victim.id)?.message).toMatch(/message row .*malformed JSON/);
    expect(s.warnings?.every((x) => x.file === db)).toBe(true);
    expect(s.entries.some((e) => e.id === victim.id)).toBe(false);
    expect(s.entries.filter((e) => e.kind === 'message').length).toBeGreaterThan(10);
  });

  it('reports a locked database clearly, and the other sources still list', async () => {
    const { env, db } = home();
    const locker = new Database(db);
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const err = await new OpenCodeDriver(env).listSessions().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThreadbaseError);
      expect((err as ThreadbaseError).code).toBe('locked');
      expect((err as ThreadbaseError).file).toBe(db);
      const { errors } = await new Sources(env).list();
      expect(errors.map((e) => e.source)).toContain('opencode');
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  }, 20_000);

  it('reads an older database (fewer columns, no project table) and a newer one (extra table and column)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tb-opencode-old-'));
    temps.push(root);
    const dir = join(root, 'opencode');
    mkdirSync(dir);
    const db = new Database(join(dir, 'opencode.db'));
    db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER, future_col TEXT);
      CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
      CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT);
      CREATE TABLE hologram (x TEXT);`);
    db.prepare('INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?)').run(
      'ses_old',
      'global',
      null,
      '/w',
      'old one',
      '0.9.0',
      1000,
      2000,
      'x',
    );
    db.prepare('INSERT INTO message VALUES (?,?,?,?)').run(
      'msg_a',
      'ses_old',
      1000,
      JSON.stringify({ role: 'user', time: { created: 1000 } }),
    );
    db.prepare('INSERT INTO part VALUES (?,?,?,?)').run(
      'prt_a',
      'msg_a',
      'ses_old',
      JSON.stringify({ type: 'text', text: 'hello old' }),
    );
    db.close();
    const env: DriverEnv = { home: root, env: { XDG_DATA_HOME: root } };
    const d = new OpenCodeDriver(env);
    expect((await d.listSessions()).map((s) => s.title)).toEqual(['old one']);
    const ctx = await d.getContext('ses_old');
    expect(ctx.messages).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'hello old' }] }]);
  });

  it('refuses a database without the part table with a clear error', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tb-opencode-bad-'));
    temps.push(root);
    mkdirSync(join(root, 'opencode'));
    const db = new Database(join(root, 'opencode', 'opencode.db'));
    db.exec(
      'CREATE TABLE session (id TEXT, time_created INTEGER, time_updated INTEGER); CREATE TABLE message (id TEXT, session_id TEXT, data TEXT);',
    );
    db.prepare('INSERT INTO session VALUES (?,?,?)').run('ses_x', 1, 2);
    db.close();
    const d = new OpenCodeDriver({ home: root, env: { XDG_DATA_HOME: root } });
    await expect(d.getSession('ses_x')).rejects.toThrow(/no "part" table/);
  });
});

/** Inserts a session of hand-made rows into the (real-schema) fixture database. */
function insertSession(
  db: string,
  id: string,
  messages: { id: string; info: object; parts: object[] }[],
  extra: { parent?: string; project?: { id: string; worktree: string } } = {},
) {
  const w = new Database(db);
  if (extra.project)
    w.prepare("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?, ?, 1, 1, '[]')").run(
      extra.project.id,
      extra.project.worktree,
    );
  w.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)`,
  ).run(
    id,
    extra.project?.id ?? 'global',
    extra.parent ?? null,
    'tidy-owl',
    extra.project?.worktree ?? '/work/app',
    `session ${id}`,
    '1.18.33',
    5000,
    9000,
  );
  messages.forEach((m, i) => {
    w.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)').run(
      m.id,
      id,
      5000 + i,
      5000 + i,
      JSON.stringify(m.info),
    );
    m.parts.forEach((p, j) => {
      w.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)').run(
        `${m.id.replace('msg', 'prt')}_${String(j).padStart(2, '0')}`,
        m.id,
        id,
        1,
        1,
        JSON.stringify(p),
      );
    });
  });
  w.close();
}

const ASSISTANT = {
  role: 'assistant',
  mode: 'build',
  agent: 'build',
  modelID: 'claude-test',
  providerID: 'standin',
  cost: 0.5,
  tokens: { input: 10, output: 5, reasoning: 2, cache: { read: 1, write: 0 } },
  time: { created: 1, completed: 2 },
  finish: 'stop',
};
const USER = { role: 'user', agent: 'build', model: { providerID: 'standin', modelID: 'claude-test' }, time: { created: 1 } };
const PNG = Buffer.from('fake png bytes').toString('base64');

describe('every part type', () => {
  it('maps text, reasoning, files, tools in every state, steps and side parts as OpenCode sends them', async () => {
    const { env, db } = home();
    insertSession(db, 'ses_parts', [
      {
        id: 'msg_01',
        info: USER,
        parts: [
          { type: 'text', text: 'look at this' },
          { type: 'text', text: 'hidden', ignored: true },
          { type: 'file', mime: 'image/png', filename: 'a.png', url: `data:image/png;base64,${PNG}` },
          { type: 'file', mime: 'text/plain', filename: 'notes.txt', url: 'file:///work/app/notes.txt' },
          { type: 'text', text: 'Called the Read tool: notes', synthetic: true },
          { type: 'agent', name: 'general' },
        ],
      },
      {
        id: 'msg_02',
        info: { ...ASSISTANT, parentID: 'msg_01', finish: 'tool-calls' },
        parts: [
          { type: 'step-start', snapshot: 'abc' },
          { type: 'reasoning', text: 'thinking hard', metadata: { anthropic: { signature: 'sig1' } }, time: { start: 1 } },
          { type: 'text', text: 'running tools' },
          {
            type: 'tool',
            callID: 'c1',
            tool: 'bash',
            state: {
              status: 'completed',
              input: { command: 'ls' },
              output: 'a\nb',
              title: 'ls',
              metadata: { exit: 0 },
              time: { start: 1, end: 2 },
            },
          },
          {
            type: 'tool',
            callID: 'c2',
            tool: 'read',
            state: { status: 'error', input: { filePath: '/x' }, error: 'no such file', time: { start: 1, end: 2 } },
          },
          {
            type: 'tool',
            callID: 'c3',
            tool: 'bash',
            state: { status: 'running', input: { command: 'sleep 9' }, time: { start: 1 } },
          },
          { type: 'tool', callID: 'c4', tool: 'grep', state: { status: 'pending', input: {}, raw: '' } },
          {
            type: 'tool',
            callID: 'c5',
            tool: 'read',
            state: {
              status: 'completed',
              input: { filePath: '/old' },
              output: 'long gone',
              title: '',
              metadata: {},
              time: { start: 1, end: 2, compacted: 3 },
            },
          },
          {
            type: 'tool',
            callID: 'c6',
            tool: 'read',
            state: {
              status: 'completed',
              input: { filePath: '/img.png' },
              output: 'Image read',
              title: '',
              metadata: {},
              time: { start: 1, end: 2 },
              attachments: [
                {
                  id: 'prt_att',
                  sessionID: 'ses_parts',
                  messageID: 'msg_02',
                  type: 'file',
                  mime: 'image/png',
                  url: `data:image/png;base64,${PNG}`,
                },
              ],
            },
          },
          {
            type: 'step-finish',
            reason: 'tool-calls',
            tokens: { input: 10, output: 5, reasoning: 2, cache: { read: 1, write: 0 } },
            cost: 0.25,
          },
          { type: 'step-start' },
          { type: 'text', text: 'second step' },
          { type: 'snapshot', snapshot: 'def' },
          { type: 'patch', hash: 'h1', files: ['/work/app/a.ts'] },
          {
            type: 'retry',
            attempt: 1,
            error: { name: 'APIError', data: { message: 'overloaded', isRetryable: true } },
            time: { created: 1 },
          },
          { type: 'frobnicate', wibble: 1 },
          {
            type: 'step-finish',
            reason: 'stop',
            tokens: { input: 20, output: 6, reasoning: 0, cache: { read: 0, write: 3 } },
            cost: 0.25,
          },
        ],
      },
      { id: 'msg_03', info: USER, parts: [{ type: 'subtask', prompt: 'dig', description: 'dig deeper', agent: 'general' }] },
      {
        id: 'msg_04',
        info: { ...ASSISTANT, parentID: 'msg_03', error: { name: 'APIError', data: { message: 'boom', isRetryable: false } } },
        parts: [{ type: 'step-start' }, { type: 'text', text: 'half an answer' }],
      },
      {
        id: 'msg_05',
        info: { ...ASSISTANT, parentID: 'msg_03', error: { name: 'MessageAbortedError', data: { message: 'aborted' } } },
        parts: [{ type: 'step-start' }, { type: 'text', text: 'kept though aborted' }],
      },
    ]);
    const s = (await new OpenCodeDriver(env).getSession('ses_parts')) as Session;
    expect(s.warnings?.map((w) => w.message)).toEqual([expect.stringMatching(/unknown OpenCode part type "frobnicate"/)]);
    const msgs = anthropicOf(s);
    expect(msgs[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look at this' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'text', text: 'Called the Read tool: notes' },
      ],
    });
    expect(msgs[1]?.role).toBe('assistant');
    expect(msgs[1]?.content).toEqual([
      { type: 'thinking', thinking: 'thinking hard', signature: 'sig1' },
      { type: 'text', text: 'running tools' },
      { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } },
      { type: 'tool_use', id: 'c2', name: 'read', input: { filePath: '/x' } },
      { type: 'tool_use', id: 'c3', name: 'bash', input: { command: 'sleep 9' } },
      { type: 'tool_use', id: 'c4', name: 'grep', input: {} },
      { type: 'tool_use', id: 'c5', name: 'read', input: { filePath: '/old' } },
      { type: 'tool_use', id: 'c6', name: 'read', input: { filePath: '/img.png' } },
    ]);
    expect(msgs[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: 'a\nb' },
      { type: 'tool_result', tool_use_id: 'c2', content: 'no such file', is_error: true },
      { type: 'tool_result', tool_use_id: 'c3', content: '[Tool execution was interrupted]', is_error: true },
      { type: 'tool_result', tool_use_id: 'c4', content: '[Tool execution was interrupted]', is_error: true },
      { type: 'tool_result', tool_use_id: 'c5', content: '[Old tool result content cleared]' },
      {
        type: 'tool_result',
        tool_use_id: 'c6',
        content: [
          { type: 'text', text: 'Image read' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
    expect(msgs[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'second step' }] });
    // the subtask prompt, then the failed answer left out and the aborted one kept
    expect(msgs[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'The following tool was executed by the user' }] });
    expect(msgs[5]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'kept though aborted' }] });
    expect(msgs).toHaveLength(6);

    // side parts and the failed message stay in the model
    const step2 = s.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'second step'),
    );
    expect(step2?.kind === 'message' && step2.message.usage).toEqual({
      input: 20,
      output: 6,
      cacheRead: 0,
      cacheWrite: 3,
      reasoning: 0,
    });
    const firstStep = s.entries.find((e) => e.id === 'msg_02');
    expect(firstStep?.kind === 'message' && firstStep.message.meta).toMatchObject({
      snapshots: [expect.anything()],
      patches: [expect.anything()],
      retries: [expect.anything()],
      unknownParts: [{ type: 'frobnicate', wibble: 1 }],
    });
    const failed = s.entries.find((e) => e.id === 'msg_04');
    expect(failed?.kind === 'message' && failed.message.error).toBe('APIError: boom');
    expect(s.usage).toBeDefined();
  });

  it('links a sub-agent session to its parent and maps the project to its worktree', async () => {
    const { env, db } = home();
    insertSession(db, 'ses_parent', [{ id: 'msg_p1', info: USER, parts: [{ type: 'text', text: 'parent' }] }], {
      project: { id: 'deadbeef', worktree: '/work/app' },
    });
    insertSession(db, 'ses_child', [{ id: 'msg_c1', info: USER, parts: [{ type: 'text', text: 'child' }] }], {
      parent: 'ses_parent',
      project: undefined,
    });
    const d = new OpenCodeDriver(env);
    const children = await d.listSessions({ parentId: 'ses_parent' });
    expect(children.map((c) => c.id)).toEqual(['ses_child']);
    const parent = (await d.listSessions()).find((x) => x.id === 'ses_parent');
    expect(parent?.meta).toMatchObject({ projectID: 'deadbeef', worktree: '/work/app' });
  });

  it('honours a compaction that keeps a tail of messages (tail_start_id)', async () => {
    const { env, db } = home();
    insertSession(db, 'ses_tail', [
      { id: 'msg_t1', info: USER, parts: [{ type: 'text', text: 'one' }] },
      { id: 'msg_t2', info: { ...ASSISTANT, parentID: 'msg_t1' }, parts: [{ type: 'text', text: 'ans one' }] },
      { id: 'msg_t3', info: USER, parts: [{ type: 'text', text: 'two' }] },
      { id: 'msg_t4', info: { ...ASSISTANT, parentID: 'msg_t3' }, parts: [{ type: 'text', text: 'ans two' }] },
      { id: 'msg_t5', info: USER, parts: [{ type: 'compaction', auto: true, tail_start_id: 'msg_t3' }] },
      {
        id: 'msg_t6',
        info: { ...ASSISTANT, parentID: 'msg_t5', summary: true, mode: 'compaction' },
        parts: [{ type: 'text', text: 'we said one' }],
      },
      { id: 'msg_t7', info: USER, parts: [{ type: 'text', text: 'three' }] },
    ]);
    const s = (await new OpenCodeDriver(env).getSession('ses_tail')) as Session;
    const text = anthropicOf(s).map((m) => (m.content as { text?: string }[]).map((b) => b.text).join(''));
    expect(text).toEqual([COMPACTION_PROMPT, 'we said one', 'two', 'ans two', 'three']);
  });

  it("sends a summary's parts as OpenCode does: signed reasoning, each text as recorded", async () => {
    const { env, db } = home();
    insertSession(db, 'ses_sumparts', [
      { id: 'msg_s1', info: USER, parts: [{ type: 'text', text: 'one' }] },
      { id: 'msg_s2', info: USER, parts: [{ type: 'compaction', auto: true }] },
      {
        id: 'msg_s3',
        info: { ...ASSISTANT, parentID: 'msg_s2', summary: true, mode: 'compaction' },
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'let me sum up', metadata: { anthropic: { signature: 'sig-1' } } },
          { type: 'text', text: '## Goal\n' },
          { type: 'text', text: '  indented detail' },
          {
            type: 'step-finish',
            reason: 'stop',
            cost: 0,
            tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        ],
      },
      { id: 'msg_s4', info: USER, parts: [{ type: 'text', text: 'two' }] },
    ]);
    const s = (await new OpenCodeDriver(env).getSession('ses_sumparts')) as Session;
    expect(anthropicOf(s).slice(0, 2)).toEqual([
      { role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'let me sum up', signature: 'sig-1' },
          { type: 'text', text: '## Goal\n' },
          { type: 'text', text: '  indented detail' },
        ],
      },
    ]);
    // the summary other agents get is its text
    expect(s.entries.find((e) => e.kind === 'compaction')).toMatchObject({ summary: '## Goal\nindented detail' });
  });

  it("sends a tool's inline attachments only, as OpenCode does, and keeps a session summary of files alone", async () => {
    const { env, db } = home();
    insertSession(db, 'ses_attach', [
      { id: 'msg_a1', info: USER, parts: [{ type: 'text', text: 'shot' }] },
      {
        id: 'msg_a2',
        info: { ...ASSISTANT, parentID: 'msg_a1' },
        parts: [
          {
            type: 'tool',
            callID: 'toolu_shot',
            tool: 'screenshot',
            state: {
              status: 'completed',
              input: {},
              output: 'two images',
              title: 'shot',
              metadata: {},
              time: { start: 2, end: 3 },
              attachments: [
                { type: 'file', mime: 'image/png', url: `data:image/png;base64,${PNG}` },
                { type: 'file', mime: 'image/png', url: 'https://example.com/linked.png' },
              ],
            },
          },
        ],
      },
    ]);
    const s = (await new OpenCodeDriver(env).getSession('ses_attach')) as Session;
    const results = opencodeContext(s).messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'));
    expect(results.map((r) => (r.type === 'tool_result' && typeof r.content !== 'string' ? r.content : []))).toEqual([
      [
        { type: 'text', text: 'two images' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    ]);
    // the linked one is still read (shown, converted), only not sent
    const read = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'tool_result');
    expect(read?.type === 'tool_result' && typeof read.content !== 'string' ? read.content.length : 0).toBe(3);
    expect(
      sessionInfoFromRow({ id: 'ses_x', summary_additions: null, summary_deletions: null, summary_files: 3 }).summary,
    ).toEqual({
      additions: 0,
      deletions: 0,
      files: 3,
    });
  });

  it("keeps OpenAI's encrypted reasoning through Codex and back, and every part's provider metadata", async () => {
    const { env, db } = home();
    const openai = { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA-secret' } };
    insertSession(db, 'ses_openai', [
      { id: 'msg_o1', info: USER, parts: [{ type: 'text', text: 'think' }] },
      {
        id: 'msg_o2',
        info: { ...ASSISTANT, parentID: 'msg_o1', providerID: 'openai', modelID: 'gpt-5' },
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'pondering', metadata: openai },
          {
            type: 'tool',
            callID: 'call_1',
            tool: 'bash',
            metadata: { openai: { itemId: 'fc_1' } },
            state: {
              status: 'completed',
              input: { command: 'ls' },
              output: 'a',
              title: 'ls',
              metadata: {},
              time: { start: 2, end: 3 },
            },
          },
          {
            type: 'step-finish',
            reason: 'tool-calls',
            cost: 0,
            tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        ],
      },
    ]);
    const s = (await new OpenCodeDriver(env).getSession('ses_openai')) as Session;
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts.find((p) => p.type === 'thinking')?.meta).toEqual({
      providerMetadata: openai,
      encryptedContent: 'gAAAA-secret',
    });
    expect(parts.find((p) => p.type === 'tool_call')?.meta).toEqual({ providerMetadata: { openai: { itemId: 'fc_1' } } });
    // into Codex: replayed with its encrypted content
    const codex = new Sources(env).driver('codex');
    const written = await codex.writeSession?.({
      ...s,
      entries: s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e as Entry),
    });
    const rollout = readFileSync(written?.path ?? '', 'utf8');
    expect(rollout).toContain('"encrypted_content":"gAAAA-secret"');
    // and back into OpenCode: the reasoning part carries OpenAI's metadata as OpenCode records it
    const back = (await codex.getSession(written?.id ?? '')) as Session;
    const again = encodeSession(back, { sessionId: 'ses_again', projectID: 'global', worktree: '/', directory: '/tmp' });
    const reasoning = again.data.messages.flatMap((m) => m.parts).find((p) => p.type === 'reasoning');
    expect(reasoning?.metadata).toEqual({ openai: { reasoningEncryptedContent: 'gAAAA-secret' } });
    // written from OpenCode's own parts (another agent in between keeps the metadata), with the item id too
    const direct = encodeSession(
      { ...s, entries: s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e as Entry) },
      { sessionId: 'ses_direct', projectID: 'global', worktree: '/', directory: '/tmp' },
    );
    expect(direct.data.messages.flatMap((m) => m.parts).find((p) => p.type === 'reasoning')?.metadata).toEqual(openai);
  });

  it('a rollout the real codex wrote: each reasoning item goes into OpenCode as one part of all its summaries (OpenCode sends a part with encrypted content as one item), the parts kept beside it', async () => {
    const sessions = resolve('test/fixtures/codex/audit-home');
    const codex = new Sources({ home: sessions, env: { CODEX_HOME: sessions } }).driver('codex');
    const s = (await codex.getSession('01a21354-a797-71c1-b74e-7a50f662eec7')) as Session;
    const thinking = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).filter((p) => p.type === 'thinking');
    expect(thinking.length).toBeGreaterThan(0);
    const encoded = encodeSession(s, { sessionId: 'ses_codex', projectID: 'global', worktree: '/', directory: '/tmp' });
    const reasoning = encoded.data.messages.flatMap((m) => m.parts).filter((p) => p.type === 'reasoning');
    const summaries = (p: (typeof thinking)[number]) =>
      Array.isArray(p.meta?.summaryParts) ? (p.meta.summaryParts as string[]) : undefined;
    expect(thinking.some((p) => (summaries(p)?.length ?? 0) > 1)).toBe(true);
    // an item of several summary parts: one part of their text, its id and encrypted content, the parts beside it
    expect(reasoning.map((p) => [p.text, p.metadata, p.threadbase])).toEqual(
      thinking.map((p) => [
        p.type === 'thinking' ? p.thinking : '',
        { openai: { itemId: p.meta?.codexItemId, reasoningEncryptedContent: p.meta?.encryptedContent } },
        summaries(p) ? { summaryParts: summaries(p) } : undefined,
      ]),
    );
    expect(reasoning.every((p) => String((p.metadata as { openai: { itemId: string } }).openai.itemId).startsWith('rs_'))).toBe(
      true,
    );
  });
});

describe('a reverted session', () => {
  it('resumes before the revert point, keeping the reverted messages as entries', async () => {
    const { env, db } = home();
    insertSession(db, 'ses_rev', [
      { id: 'msg_r1', info: USER, parts: [{ type: 'text', text: 'keep me' }] },
      { id: 'msg_r2', info: { ...ASSISTANT, parentID: 'msg_r1' }, parts: [{ type: 'text', text: 'kept answer' }] },
      { id: 'msg_r3', info: USER, parts: [{ type: 'text', text: 'undo me' }] },
      { id: 'msg_r4', info: { ...ASSISTANT, parentID: 'msg_r3' }, parts: [{ type: 'text', text: 'undone answer' }] },
    ]);
    const w = new Database(db);
    w.prepare('UPDATE session SET revert = ? WHERE id = ?').run(JSON.stringify({ messageID: 'msg_r3' }), 'ses_rev');
    w.close();
    const s = (await new OpenCodeDriver(env).getSession('ses_rev')) as Session;
    expect(s.entries).toHaveLength(4);
    expect(s.leafId).toBe('msg_r2');
    expect(anthropicOf(s).map((m) => (m.content as { text: string }[])[0]?.text)).toEqual(['keep me', 'kept answer']);
    // OpenCode would delete anything after the revert point on its next prompt: appending is refused
    const before = sha(db);
    await expect(
      new OpenCodeDriver(env).appendEntries('ses_rev', [
        messageEntry('late', (s.entries.at(-1) as Entry).id, new Date().toISOString(), textMessage('user', 'late')),
      ]),
    ).rejects.toThrow(/ses_rev has a pending revert/);
    expect(sha(db)).toBe(before);
  });

  it("reverted at a part: resumes with that message's earlier parts, as OpenCode's cleanup keeps them", async () => {
    const { env, db } = home();
    const edit = (callID: string, start: number) => ({
      type: 'tool',
      callID,
      tool: 'edit',
      state: {
        status: 'completed',
        input: { filePath: 'a' },
        output: 'ok',
        title: '',
        metadata: {},
        time: { start, end: start + 1 },
      },
    });
    insertSession(db, 'ses_revpart', [
      { id: 'msg_p1', info: USER, parts: [{ type: 'text', text: 'do it' }] },
      {
        id: 'msg_p2',
        info: { ...ASSISTANT, parentID: 'msg_p1' },
        parts: [
          { type: 'step-start' },
          { type: 'text', text: 'I will edit the file now.' },
          edit('call_a', 2),
          edit('call_b', 4), // prt_p2_03, where the revert is
          { type: 'text', text: 'Edited twice.' },
          {
            type: 'step-finish',
            reason: 'tool-calls',
            cost: 0,
            tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        ],
      },
      { id: 'msg_p3', info: USER, parts: [{ type: 'text', text: 'later' }] },
    ]);
    const w = new Database(db);
    w.prepare('UPDATE session SET revert = ? WHERE id = ?').run(
      JSON.stringify({ messageID: 'msg_p2', partID: 'prt_p2_03' }),
      'ses_revpart',
    );
    w.close();
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession('ses_revpart')) as Session;
    const sent = anthropicOf(s);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[1]?.content).toEqual([
      { type: 'text', text: 'I will edit the file now.' },
      { type: 'tool_use', id: 'call_a', name: 'edit', input: { filePath: 'a' } },
    ]);
    expect(sent[2]?.content).toMatchObject([{ type: 'tool_result', tool_use_id: 'call_a' }]);
    // everything OpenCode recorded is still read (the reverted parts on the branch the revert left)
    const texts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).filter((p) => p.type === 'text');
    expect(texts.map((p) => (p.type === 'text' ? p.text : ''))).toEqual(
      expect.arrayContaining(['Edited twice.', 'later', 'I will edit the file now.']),
    );
    // a fork at the resume point writes the message as OpenCode's cleanup leaves it
    const fork = await d.forkSession('ses_revpart');
    const r = new Database(db, { readonly: true });
    const parts = (
      r
        .prepare('SELECT p.data FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = ? ORDER BY p.id')
        .all(fork.id) as {
        data: string;
      }[]
    ).map((p) => JSON.parse(p.data) as { type: string; callID?: string });
    r.close();
    expect(parts.filter((p) => p.type === 'tool').map((p) => p.callID)).toEqual(['call_a']);
    expect(anthropicOf((await d.getSession(fork.id)) as Session)).toEqual(sent);
  });
});

describe('legacy JSON storage', () => {
  it('reads sessions, sub-agents and parts, warning about a malformed file by name', async () => {
    const { env, dataDir } = home({ db: false, storage: true });
    const d = new OpenCodeDriver(env);
    const list = await d.listSessions();
    expect(list.map((s) => s.title).sort()).toEqual(['Find the test (@general subagent)', 'Fix the flaky test']);
    const sub = list.find((s) => s.parentId);
    expect(sub?.parentId).toBe('ses_7a1f0e2c3ffeLegacyAbCdEf12');
    const s = (await d.getSession('ses_7a1f0e2c3ffeLegacyAbCdEf12')) as Session;
    expect(s.project).toBe('/home/dev/legacy-app');
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings?.[0]?.file).toBe(
      join(dataDir, 'storage', 'part', 'msg_85e0f1a40001LegacyAsst0002', 'prt_85e0f1a40006LegacyBroken06.json'),
    );
    const msgs = anthropicOf(s);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(msgs[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01LegacyGrep', content: 'tests/test_auth.py:12: def test_login():' },
      { type: 'text', text: 'Fix it please.' },
    ]);
    expect(s.cost).toBeCloseTo(0.0323, 6);
  });

  it('writes a session as new JSON files that read back with the same context', async () => {
    const { env, dataDir } = home({ db: false, storage: true });
    const d = new OpenCodeDriver(env);
    const original = (await d.getSession('ses_7a1f0e2c3ffeLegacyAbCdEf12')) as Session;
    const before = readdirSync(join(dataDir, 'storage', 'session', '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750'));
    const written = await d.forkSession(original.id);
    const after = readdirSync(join(dataDir, 'storage', 'session', '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750'));
    expect(after.length).toBe(before.length + 1);
    const copy = (await d.getSession(written.id)) as Session;
    expect(copy.title).toBe('Fix the flaky test (fork #1)');
    expect(anthropicOf(copy)).toEqual(anthropicOf(original));
  });
});

/** A session as another agent would hand it over: model fields only, no OpenCode raw. */
function foreignSession(): Session {
  const t = secondInto2026;
  const entries: Entry[] = [
    messageEntry('u1', null, t(1), {
      role: 'user',
      parts: [
        { type: 'text', text: 'RUN: ls' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    }),
    messageEntry('a1', 'u1', t(2), {
      role: 'assistant',
      model: 'claude-test',
      provider: 'standin',
      usage: { input: 3, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      cost: 0.1,
      parts: [
        { type: 'thinking', thinking: 'hmm', signature: 'sigX' },
        { type: 'tool_call', id: 'tc1', name: 'bash', input: { command: 'ls' } },
      ],
    }),
    messageEntry('r1', 'a1', t(3), {
      role: 'tool',
      parts: [
        { type: 'tool_result', callId: 'tc1', content: 'file.txt' },
        { type: 'text', text: 'also: be brief' },
      ],
    }),
    messageEntry('a2', 'r1', t(4), {
      role: 'assistant',
      model: 'claude-test',
      provider: 'standin',
      parts: [{ type: 'text', text: 'there is file.txt' }],
    }),
    messageEntry('u2', 'a2', t(5), textMessage('user', 'and now?')),
    messageEntry('a3', 'u2', t(6), {
      role: 'assistant',
      model: 'claude-test',
      provider: 'standin',
      parts: [{ type: 'text', text: 'now this' }],
    }),
    { id: 'c1', parentId: 'a3', timestamp: t(7), kind: 'compaction', summary: 'we listed files', firstKeptEntryId: 'u2' },
    messageEntry('u3', 'c1', t(8), textMessage('user', 'after compaction')),
  ];
  return {
    id: 'foreign-1',
    source: 'pi',
    project: '/work/app',
    title: 'from pi',
    createdAt: t(0),
    updatedAt: t(8),
    messageCount: 7,
    entries,
  };
}

describe('writing and forking into the database', () => {
  it("keeps codex's image detail in a field OpenCode ignores and reads it back", async () => {
    const { env } = home();
    const d = new OpenCodeDriver(env);
    const back = (await d.getSession((await d.writeSession(imageDetailSession())).id)) as Session;
    const part = back.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'image');
    expect(part).toMatchObject(DETAIL_IMAGE);
  });

  it('writes messages whose times follow the path, even where the source has ties', async () => {
    // Claude Code writes a /compact's local-command caveat and its command record in one millisecond:
    // OpenCode orders messages by time, and a tie once came back swapped (convert-matrix, claude → opencode).
    const { env, db } = home();
    const at = '2026-01-02T03:04:05.006Z';
    const user = (id: string, parentId: string | null, text: string, timestamp = at): Entry =>
      messageEntry(id, parentId, timestamp, textMessage('user', text));
    const src: Session = {
      id: 'ties',
      source: 'claude',
      createdAt: at,
      updatedAt: at,
      messageCount: 4,
      project: '/tmp/ties',
      entries: [
        user('u1', null, 'caveat'),
        user('u2', 'u1', 'command'),
        user('u3', 'u2', 'stdout'),
        messageEntry('a1', 'u3', '2026-01-02T03:04:06.000Z', {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'text', text: 'ok' }],
        }),
      ],
    };
    const info = await new OpenCodeDriver(env).writeSession(src);
    const conn = new Database(db, { readonly: true });
    const rows = conn
      .prepare('SELECT id, time_created t, data FROM message WHERE session_id = ? ORDER BY time_created')
      .all(info.id) as { id: string; t: number; data: string }[];
    // however OpenCode breaks ties, there are none: by time alone, and by time descending then reversed
    const desc = conn.prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC').all(info.id) as {
      id: string;
    }[];
    conn.close();
    const times = rows.map((r) => r.t);
    expect(new Set(times).size).toBe(times.length);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBe(Date.parse(at));
    expect(desc.map((r) => r.id).reverse()).toEqual(rows.map((r) => r.id));
    const back = (await new OpenCodeDriver(env).getSession(info.id)) as Session;
    expect(back.entries.map(userText).filter(Boolean)).toEqual(['caveat', 'command', 'stdout']);
  });

  it('writes a converted session with ids in OpenCode scheme, in one transaction, with the same context', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const src = foreignSession();
    const info = await d.writeSession(src);
    expect(info.id).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    const back = (await d.getSession(info.id)) as Session;
    expect(back.warnings).toEqual([]);
    const ids = back.entries.map((e) => (e.raw as { messageID: string }).messageID);
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    // OpenCode's context of what we wrote: the compaction as its request and summary, the tail, then what followed
    const text = anthropicOf(back).map((m) => m.content);
    expect(text).toEqual([
      [{ type: 'text', text: COMPACTION_PROMPT }],
      [{ type: 'text', text: 'we listed files' }],
      [{ type: 'text', text: 'and now?' }],
      [{ type: 'text', text: 'now this' }],
      [{ type: 'text', text: 'after compaction' }],
    ]);
    // before the compaction, the same messages as the source
    const leaf = back.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'now this'),
    ) as Entry;
    expect(anthropicOf(back, leaf.id)).toEqual(contextToAnthropic(opencodeContext(src, { leafId: 'a3' })).messages);
    const w = new Database(db, { readonly: true });
    expect((w.prepare('SELECT COUNT(*) AS n FROM message WHERE session_id = ?').get(info.id) as { n: number }).n).toBe(9);
    w.close();
  });

  it('mints a new session id when the kept one is taken', async () => {
    const { env } = home();
    const written = await new OpenCodeDriver(env).writeSession({ ...foreignSession(), id: REAL_SESSION }, { keepId: true });
    expect(written.id).not.toBe(REAL_SESSION);
    expect(written.id).toMatch(/^ses_/);
  });

  it('files a session under the project OpenCode resolves for its git repository: the origin remote first', async () => {
    const { env, db } = home();
    const repo = join(env.home, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
    const root = git('rev-list', '--max-parents=0', 'HEAD');
    const projectOf = async (directory: string) => {
      const info = await new OpenCodeDriver(env).writeSession({ ...foreignSession(), project: directory });
      const w = new Database(db, { readonly: true });
      try {
        return w
          .prepare('SELECT p.id, p.worktree FROM session s JOIN project p ON p.id = s.project_id WHERE s.id = ?')
          .get(info.id);
      } finally {
        w.close();
      }
    };
    // no remote: the root commit (as OpenCode keys such a repository)
    expect(await projectOf(join(repo, 'src'))).toEqual({ id: root, worktree: repo });
    // with an origin remote, OpenCode keys the project by it, whatever project row the database holds
    git('remote', 'add', 'origin', 'git@GitHub.com:example/demo.git');
    const byRemote = createHash('sha1').update('git-remote:github.com/example/demo').digest('hex');
    expect(await projectOf(repo)).toEqual({ id: byRemote, worktree: repo });
    expect(remoteKey('https://github.com/example/demo.git/')).toBe('github.com/example/demo');
    expect(remoteKey('file:///srv/demo.git')).toBeUndefined();
  });

  it('leaves the database untouched when the write fails part way (one transaction)', async () => {
    const { env, db } = home();
    const count = () => {
      const w = new Database(db, { readonly: true });
      const n = ['session', 'message', 'part'].map((t) => (w.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n);
      w.close();
      return n;
    };
    const w = new Database(db);
    // fail on the last part written (the compaction's summary text)
    w.exec(
      `CREATE TRIGGER fail_late BEFORE INSERT ON part WHEN NEW.data LIKE '%we listed files%' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;`,
    );
    w.close();
    const before = count();
    await expect(new OpenCodeDriver(env).writeSession(foreignSession())).rejects.toThrow(/disk on fire/);
    expect(count()).toEqual(before);
  });

  it('forks at an entry like `opencode run --fork`: new ids, the path up to there, "(fork #1)"', async () => {
    const { env, db } = home();
    // OpenCode's fork takes over the original's workspace and metadata
    const w = new Database(db);
    w.prepare('UPDATE session SET workspace_id = ?, metadata = ? WHERE id = ?').run('wrk_1', '{"pinned":true}', REAL_SESSION);
    w.close();
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession(REAL_SESSION)) as Session;
    const at = s.entries.find((e) => userText(e)?.startsWith('message number 3'))?.id as string;
    const fork = await d.forkSession(REAL_SESSION, { at });
    expect(fork.title).toBe('c1 (fork #1)');
    const r = new Database(db, { readonly: true });
    expect(r.prepare('SELECT workspace_id, metadata FROM session WHERE id = ?').get(fork.id)).toEqual({
      workspace_id: 'wrk_1',
      metadata: '{"pinned":true}',
    });
    r.close();
    const f = (await d.getSession(fork.id)) as Session;
    expect(anthropicOf(f)).toEqual(anthropicOf(s, at));
    expect(f.entries.some((e) => s.entries.some((x) => x.id === e.id))).toBe(false);
    // forking the whole session keeps the compaction
    const whole = (await d.getSession((await d.forkSession(REAL_SESSION)).id)) as Session;
    expect(anthropicOf(whole)).toEqual(anthropicOf(s));
    expect(whole.entries.some((e) => e.kind === 'compaction')).toBe(true);
  });

  it('writes export JSON that reads back to the same context', () => {
    const src = foreignSession();
    const exported = sessionToExport(src, { directory: '/work/app' });
    expect(exported.info.id).toMatch(/^ses_/);
    const back = sessionFromExport(JSON.parse(JSON.stringify(exported)), 'x.json');
    expect(
      anthropicOf(
        back,
        back.entries.find((e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'now this'))
          ?.id,
      ),
    ).toEqual(contextToAnthropic(opencodeContext(src, { leafId: 'a3' })).messages);
  });
});

describe('ids', () => {
  it('message ids ascend and session ids descend with time', () => {
    const a = newId('msg', 1_700_000_000_000);
    const b = newId('msg', 1_700_000_000_000);
    const c = newId('msg', 1_700_000_000_001);
    expect(a < b && b < c).toBe(true);
    expect(a).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(newId('ses', 1_700_000_000_000) > newId('ses', 1_700_000_000_500)).toBe(true);
  });
});

describe('the CLI on OpenCode sessions', () => {
  it('sessions, show, context, fork and convert --to opencode', async () => {
    const { env } = home();
    const list = await runCli(env, ['sessions', '--source', 'opencode', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([
      expect.objectContaining({ id: REAL_SESSION, source: 'opencode', project: '/tmp/oc/proj3', messageCount: 19 }),
    ]);
    const show = await runCli(env, ['show', REAL_SESSION.slice(0, 12), '--json']);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.out).entries.length).toBeGreaterThan(10);
    const ctx = await runCli(env, ['context', REAL_SESSION, '--format', 'anthropic']);
    expect(JSON.parse(ctx.out).messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] });
    const fork = await runCli(env, ['fork', REAL_SESSION, '--json']);
    expect(fork.code).toBe(0);
    const forked = JSON.parse(fork.out) as { id: string; source: string };
    expect(forked.source).toBe('opencode');
    const conv = await runCli(env, ['convert', forked.id, '--to', 'opencode', '--json']);
    expect(conv.code).toBe(0);
    const converted = JSON.parse(conv.out) as { id: string };
    const after = JSON.parse((await runCli(env, ['sessions', '--source', 'opencode', '--json'])).out) as { id: string }[];
    expect(after.map((s) => s.id)).toEqual(expect.arrayContaining([REAL_SESSION, forked.id, converted.id]));
    const again = JSON.parse((await runCli(env, ['context', converted.id, '--format', 'anthropic'])).out);
    expect(again).toEqual(JSON.parse(ctx.out));
  });
});

/** Rows of one table of a session, read with a separate connection. */
function rows(db: string, sql: string, ...args: unknown[]): Record<string, unknown>[] {
  const r = new Database(db, { readonly: true });
  try {
    return r.prepare(sql).all(...args) as Record<string, unknown>[];
  } finally {
    r.close();
  }
}

describe('appending to and renaming a session in the database', () => {
  const at = (n: number) => new Date(Date.UTC(2026, 0, 2, 0, 0, n)).toISOString();

  it('appends a turn with a tool call, then its result, as new rows in OpenCode scheme; totals and time_updated follow', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const written = await d.writeSession(foreignSession());
    const before = (await d.getSession(written.id)) as Session;
    const [row0] = rows(db, 'SELECT * FROM session WHERE id = ?', written.id);
    const last = before.entries.at(-1) as Entry;
    const turn: Entry[] = [
      {
        id: 'x-a1',
        parentId: last.id,
        // earlier than the session's messages: still appended after them
        timestamp: at(1),
        kind: 'message',
        message: {
          role: 'assistant',
          model: 'claude-test',
          provider: 'standin',
          usage: { input: 100, output: 20, cacheRead: 5, cacheWrite: 0, reasoning: 0 },
          cost: 0.25,
          parts: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_call', id: 'toolu_app_1', name: 'bash', input: { command: 'ls' } },
          ],
        },
      },
    ];
    await d.appendEntries(written.id, turn);
    const mid = (await d.getSession(written.id)) as Session;
    // the call has no result yet: OpenCode would send it as interrupted
    expect(JSON.stringify(anthropicOf(mid).at(-1))).toContain('[Tool execution was interrupted]');
    const callEntry = mid.entries.at(-1) as Entry;
    await d.appendEntries(written.id, [
      messageEntry('x-r1', callEntry.id, at(3), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_app_1', content: 'out.txt' }],
      }),
    ]);
    const afterResult = (await d.getSession(written.id)) as Session;
    await d.appendEntries(written.id, [
      messageEntry('x-u1', (afterResult.entries.at(-1) as Entry).id, at(4), textMessage('user', 'and the appendix')),
    ]);
    const after = (await d.getSession(written.id)) as Session;
    expect(after.warnings).toEqual([]);
    const ctx = anthropicOf(after);
    const n = anthropicOf(before).length;
    expect(ctx.slice(0, n)).toEqual(anthropicOf(before));
    expect(ctx.slice(n)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_app_1', name: 'bash', input: { command: 'ls' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_app_1', content: 'out.txt' },
          { type: 'text', text: 'and the appendix' },
        ],
      },
    ]);
    // rows: new ids in OpenCode's scheme, ascending after the old ones; the tool part completed in place
    const msgs = rows(db, 'SELECT id, time_created FROM message WHERE session_id = ? ORDER BY time_created, id', written.id);
    expect(msgs).toHaveLength(before.messageCount + 2);
    const ids = msgs.map((m) => m.id as string);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids.slice(-2)) expect(id).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    const tool = rows(db, "SELECT data FROM part WHERE session_id = ? AND data LIKE '%toolu_app_1%'", written.id);
    expect(tool).toHaveLength(1);
    expect(JSON.parse(tool[0]?.data as string).state).toMatchObject({ status: 'completed', output: 'out.txt' });
    const asst = rows(db, 'SELECT data FROM message WHERE id = ?', ids.at(-2));
    expect(JSON.parse(asst[0]?.data as string)).toMatchObject({ role: 'assistant', parentID: expect.stringMatching(/^msg_/) });
    const [row1] = rows(db, 'SELECT * FROM session WHERE id = ?', written.id);
    expect(row1?.tokens_input).toBe((row0?.tokens_input as number) + 100);
    expect(row1?.tokens_output).toBe((row0?.tokens_output as number) + 20);
    expect(row1?.tokens_cache_read).toBe((row0?.tokens_cache_read as number) + 5);
    expect(row1?.cost).toBeCloseTo((row0?.cost as number) + 0.25, 9);
    expect(row1?.time_updated as number).toBeGreaterThanOrEqual(row0?.time_updated as number);
  });

  it('appends a compaction that keeps a tail of the messages already there, as OpenCode resumes it', async () => {
    const { env } = home();
    const d = new OpenCodeDriver(env);
    const written = await d.writeSession(foreignSession());
    const s = (await d.getSession(written.id)) as Session;
    const kept = s.entries.find((e) => userText(e) === 'after compaction') as Entry;
    await d.appendEntries(written.id, [
      {
        id: 'c2',
        parentId: (s.entries.at(-1) as Entry).id,
        timestamp: at(1),
        kind: 'compaction',
        summary: 'all of it, summed up',
        firstKeptEntryId: kept.id,
      },
      messageEntry('u9', 'c2', at(2), textMessage('user', 'after the second compaction')),
    ]);
    const after = (await d.getSession(written.id)) as Session;
    expect(after.warnings).toEqual([]);
    expect(anthropicOf(after)).toEqual([
      { role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] },
      { role: 'assistant', content: [{ type: 'text', text: 'all of it, summed up' }] },
      // the kept tail, then what followed (consecutive user turns, one Messages API turn)
      {
        role: 'user',
        content: [
          { type: 'text', text: 'after compaction' },
          { type: 'text', text: 'after the second compaction' },
        ],
      },
    ]);
  });

  it('refuses a tool result that answers no open call, naming it, and writes nothing', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession(REAL_SESSION)) as Session;
    const before = sha(db);
    await expect(
      d.appendEntries(REAL_SESSION, [
        messageEntry('stray', (s.entries.at(-1) as Entry).id, at(1), {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'toolu_nowhere', content: 'x' }],
        }),
      ]),
    ).rejects.toThrow(/toolu_nowhere/);
    expect(sha(db)).toBe(before);
  });

  it('refuses an entry that does not continue the session, and writes nothing', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession(REAL_SESSION)) as Session;
    const before = sha(db);
    const second = s.entries[1] as Entry;
    const err = await d
      .appendEntries(REAL_SESSION, [messageEntry('branchy', second.id, at(1), textMessage('user', 'a branch'))])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadbaseError);
    expect((err as ThreadbaseError).message).toMatch(/linear.*branchy/);
    expect((err as ThreadbaseError).file).toBe(db);
    expect(sha(db)).toBe(before);
  });

  it('reports a database another process holds locked, naming it, and writes nothing', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const s = (await d.getSession(REAL_SESSION)) as Session;
    const before = sha(db);
    const locker = new Database(db);
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const err = await d.setTitle(REAL_SESSION, 'blocked').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThreadbaseError);
      expect((err as ThreadbaseError).code).toBe('locked');
      expect((err as ThreadbaseError).file).toBe(db);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    expect(sha(db)).toBe(before);
    expect(s.title).toBe('c1');
  }, 20_000);

  it('refuses to append when OpenCode added a message since it was read, in one transaction', async () => {
    const { db } = home();
    const { appendSessionData } = await import('../../src/formats/opencode/index.js');
    const before = sha(db);
    const lastMsg = rows(
      db,
      'SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1',
      REAL_SESSION,
    );
    const message = {
      info: { id: newId('msg'), sessionID: REAL_SESSION, role: 'user', time: { created: Date.UTC(2030, 0, 1) } },
      parts: [{ id: newId('prt'), sessionID: REAL_SESSION, type: 'text', text: 'late' }],
    };
    const zero = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
    expect(() =>
      appendSessionData(db, {
        sessionId: REAL_SESSION,
        messages: [message],
        updatedParts: [],
        expectedLastMessageId: 'msg_not_the_last',
        tokens: zero,
        cost: 0,
      }),
    ).toThrow(/changed while appending/);
    expect(sha(db)).toBe(before);
    appendSessionData(db, {
      sessionId: REAL_SESSION,
      messages: [message],
      updatedParts: [],
      expectedLastMessageId: lastMsg[0]?.id as string,
      tokens: zero,
      cost: 0,
    });
    expect(rows(db, 'SELECT id FROM message WHERE id = ?', message.info.id)).toHaveLength(1);
  });

  it('renames a session and bumps its time_updated; an unknown id is an error naming it', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const [row0] = rows(db, 'SELECT time_updated FROM session WHERE id = ?', REAL_SESSION);
    await d.setTitle(REAL_SESSION, 'renamed by threadbase');
    expect((await d.listSessions()).find((s) => s.id === REAL_SESSION)?.title).toBe('renamed by threadbase');
    const [row1] = rows(db, 'SELECT title, time_updated FROM session WHERE id = ?', REAL_SESSION);
    expect(row1?.title).toBe('renamed by threadbase');
    expect(row1?.time_updated as number).toBeGreaterThanOrEqual(row0?.time_updated as number);
    await expect(d.setTitle('ses_nope', 'x')).rejects.toThrow(/ses_nope/);
  });

  it('appends to and renames a session of the legacy JSON storage with new files', async () => {
    const { env, dataDir } = home({ db: false, storage: true });
    const d = new OpenCodeDriver(env);
    const id = 'ses_7a1f0e2c3ffeLegacyAbCdEf12';
    const s = (await d.getSession(id)) as Session;
    const files = () => readdirSync(join(dataDir, 'storage', 'message', id));
    const before = files();
    await d.appendEntries(id, [
      messageEntry('l-u1', (s.entries.at(-1) as Entry).id, at(1), textMessage('user', 'legacy appendix')),
    ]);
    const mid = (await d.getSession(id)) as Session;
    await d.appendEntries(id, [
      messageEntry('l-a1', (mid.entries.at(-1) as Entry).id, at(2), {
        role: 'assistant',
        model: 'claude-test',
        provider: 'standin',
        parts: [{ type: 'tool_call', id: 'toolu_legacy_9', name: 'bash', input: { command: 'pwd' } }],
      }),
    ]);
    const withCall = (await d.getSession(id)) as Session;
    // the result in a later append rewrites the tool's part file in place
    await d.appendEntries(id, [
      messageEntry('l-r1', (withCall.entries.at(-1) as Entry).id, at(3), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_legacy_9', content: '/home/dev' }],
      }),
    ]);
    await d.setTitle(id, 'legacy renamed');
    expect(files()).toHaveLength(before.length + 2);
    const tail = anthropicOf((await d.getSession(id)) as Session).slice(-2);
    expect(tail).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_legacy_9', name: 'bash', input: { command: 'pwd' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_legacy_9', content: '/home/dev' }] },
    ]);
    const after = (await d.getSession(id)) as Session;
    expect(after.title).toBe('legacy renamed');
    expect(anthropicOf(after).slice(0, -2).at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'legacy appendix' }],
    });
    expect(anthropicOf(after).slice(0, -3)).toEqual(anthropicOf(s));
  });
});

describe('forks as OpenCode 1.18.33 records them', () => {
  it('has no parent (parentID is for sub-agents), is created at fork time and copies message times', async () => {
    const { env, db } = home();
    const d = new OpenCodeDriver(env);
    const startedAt = Date.now();
    const fork = await d.forkSession(REAL_SESSION);
    expect(fork.parentId).toBeNull();
    const [row] = rows(db, 'SELECT parent_id, title, time_created FROM session WHERE id = ?', fork.id);
    expect(row?.parent_id).toBeNull();
    expect(row?.title).toBe('c1 (fork #1)');
    expect(row?.time_created as number).toBeGreaterThanOrEqual(startedAt);
    const times = (id: string) =>
      rows(db, 'SELECT time_created FROM message WHERE session_id = ? ORDER BY time_created', id).map((r) => r.time_created);
    expect(times(fork.id)).toEqual(times(REAL_SESSION));
  });
});

describe('a database another process is using', () => {
  it('reads while another connection holds a write transaction (WAL, as OpenCode runs it), without touching the file', async () => {
    const { env, db } = home();
    const w = new Database(db);
    w.pragma('journal_mode = WAL');
    w.close();
    const locker = new Database(db);
    locker.exec('BEGIN IMMEDIATE');
    locker.prepare("UPDATE session SET title = 'uncommitted' WHERE id = ?").run(REAL_SESSION);
    try {
      const before = [sha(db), sha(`${db}-wal`)];
      const d = new OpenCodeDriver(env);
      // the committed state: the open write is not seen, and nothing waits for it
      expect((await d.listSessions()).map((s) => s.title)).toEqual(['c1']);
      expect((await d.getContext(REAL_SESSION)).messages.length).toBeGreaterThan(3);
      expect([sha(db), sha(`${db}-wal`)]).toEqual(before);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  });
});

describe('threadbase export --format opencode', () => {
  it('prints an OpenCode session as OpenCode exports it, and another agent’s session ready for `opencode import`', async () => {
    const { env } = home();
    const { runCli } = await import('../helpers/cli.js');
    const r = await runCli(env, ['export', REAL_SESSION, '--format', 'opencode']);
    expect(r.code).toBe(0);
    const exported = JSON.parse(r.out) as { info: { id: string }; messages: { info: { id: string } }[] };
    expect(exported.info.id).toBe(REAL_SESSION);
    const fixture = JSON.parse(readFileSync(join(FIXTURES, 'export.json'), 'utf8')) as typeof exported;
    expect(exported.messages.map((m) => m.info.id).sort()).toEqual(fixture.messages.map((m) => m.info.id).sort());
    const d = new OpenCodeDriver(env);
    expect(anthropicOf(sessionFromExport(exported, 'stdout'))).toEqual(
      anthropicOf((await d.getSession(REAL_SESSION)) as Session),
    );

    // a session of another agent (written as a model-only session into the threadbase-free path: the export function)
    const { sessionAsOpencodeExport } = await import('../../src/formats/opencode/index.js');
    const foreign = sessionAsOpencodeExport(foreignSession());
    expect(foreign.info.id).toMatch(/^ses_/);
    expect(foreign.info.directory).toBe('/work/app');
    const back = sessionFromExport(JSON.parse(JSON.stringify(foreign)), 'x.json');
    expect(anthropicOf(back).at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'after compaction' }] });
  });
});

describe('read commands leave the database as it was', () => {
  it('sessions, show, context, sync, search, stats and export never change the database or write to its log (WAL mode)', async () => {
    const { env, db } = home();
    const w = new Database(db);
    w.pragma('journal_mode = WAL');
    w.close();
    const cliEnv: DriverEnv = { home: env.home, env: { ...env.env, HOME: env.home } };
    // SQLite itself creates an empty -wal and its -shm index beside a WAL database a reader opens
    // when OpenCode is not running (as OpenCode does on start); the database and its log stay as they were.
    const walBytes = () => (readdirSync(join(db, '..')).includes('opencode.db-wal') ? readFileSync(`${db}-wal`).length : 0);
    const sums = () => [sha(db), walBytes()];
    const before = sums();
    for (const args of [
      ['sessions', '--source', 'opencode', '--json'],
      ['show', REAL_SESSION, '--json'],
      ['context', REAL_SESSION, '--format', 'anthropic'],
      ['sync', '--source', 'opencode', '--json'],
      ['search', 'padding', '--source', 'opencode', '--no-sync', '--json'],
      ['stats', '--by', 'session', '--source', 'opencode', '--no-sync', '--json'],
      ['export', REAL_SESSION, '--format', 'opencode'],
    ]) {
      const out = await runCliOk(cliEnv, args);
      expect(out.length, args.join(' ')).toBeGreaterThan(0);
    }
    const hits = JSON.parse(await runCliOk(cliEnv, ['search', 'padding', '--source', 'opencode', '--no-sync', '--json'])) as {
      sessionId: string;
    }[];
    expect(hits.map((h) => h.sessionId)).toContain(REAL_SESSION);
    expect(sums()).toEqual(before);
  });
});
