/**
 * The Kilo CLI driver (OpenCode's code on Kilo's database) against the database the real Kilo CLI
 * 7.7.7 recorded (fixture: a bash call, signed thinking, an image, a failed command, a compaction)
 * and the requests it sent on resume; a damaged row; the CLI and the index; writing a new session
 * with Kilo's names; Kilo's git project cache file.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import '../../src/formats/all.js';
import { KiloDriver, kiloDbPath } from '../../src/formats/kilo/index.js';
import { OpenCodeDriver, opencodeContext } from '../../src/formats/opencode/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Part, Session } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { CLAUDE_CHILD, CLAUDE_PARENT, convertRow, expectCarried } from '../helpers/sub-agents.js';

const FIXTURE = join(__dirname, '..', 'fixtures', 'kilo', 'real-7.7.7');
const MAIN = 'ses_de960d959ffeUnT4kXIY6RPwqO';
const COMPACTED = 'ses_de95d634dffex3Vqu6HdqVd6YF';
const temps: string[] = [];

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temp HOME whose Kilo data folder (`~/.local/share/kilo`) holds a copy of the fixture database. */
function home(): { env: DriverEnv; db: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'tb-kilo-'));
  temps.push(root);
  const db = join(root, '.local', 'share', 'kilo', 'kilo.db');
  mkdirSync(join(db, '..'), { recursive: true });
  copyFileSync(join(FIXTURE, 'kilo.db'), db);
  return { env: { home: root, env: { HOME: root } }, db, root };
}

const parts = (s: Session): Part[] => s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));

type Sent = { role: string; content: { type: string; text?: string }[] }[];

/** Blocks without the `<environment_details>` text Kilo adds to each user message when it sends it. */
function withoutEnvironmentDetails(messages: Sent): Sent {
  return messages.map((m) => ({
    ...m,
    content: m.content.filter((b) => !(b.type === 'text' && b.text?.startsWith('\n\n<environment_details>'))),
  }));
}

describe('Kilo CLI sessions the real kilo 7.7.7 recorded', () => {
  it('lists them from ~/.local/share/kilo/kilo.db (and from $KILO_DB), as kilo sessions only', async () => {
    const { env, db, root } = home();
    expect(kiloDbPath(env)).toBe(db);
    const list = await new KiloDriver(env).listSessions();
    expect(list.map((s) => [s.id, s.source, s.title, s.project, s.messageCount, s.path])).toEqual([
      [COMPACTED, 'kilo', 'kilo compaction', '/tmp/kilo-fx/project', 9, db],
      [MAIN, 'kilo', 'kilo fixture', '/tmp/kilo-fx/project', 12, db],
    ]);
    expect(await new OpenCodeDriver(env).listSessions()).toEqual([]);
    const moved = join(root, 'elsewhere.db');
    copyFileSync(db, moved);
    rmSync(db);
    const viaEnv = await new KiloDriver({ home: root, env: { KILO_DB: moved } }).listSessions();
    expect(viaEnv.map((s) => s.id).sort()).toEqual([COMPACTED, MAIN].sort());
  });

  it('reads every message, tool call and result, the signed thinking, the image and the token counts', async () => {
    const { env } = home();
    const s = (await new KiloDriver(env).getSession(MAIN)) as Session;
    expect(s.warnings).toEqual([]);
    expect(s.meta).toMatchObject({ version: '7.7.7', projectID: 'global' });
    expect(s.entries.every((e) => e.rawSource === 'kilo')).toBe(true);
    const calls = parts(s).filter((p) => p.type === 'tool_call');
    expect(calls.map((c) => c.type === 'tool_call' && [c.name, c.input])).toEqual([
      ['bash', { command: 'echo hi > out.txt', description: 'run command' }],
      ['bash', { command: 'cat missing.txt', description: 'run command' }],
    ]);
    const results = parts(s).filter((p) => p.type === 'tool_result');
    expect(results.map((r) => r.type === 'tool_result' && r.content)).toEqual([
      '(no output)',
      'cat: missing.txt: No such file or directory\n',
    ]);
    expect(parts(s).find((p) => p.type === 'thinking')).toMatchObject({
      thinking: 'pondering the question',
      signature: 'sig-standin-6',
    });
    expect(parts(s).some((p) => p.type === 'image' && p.mediaType === 'image/png')).toBe(true);
    const assistants = s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
    expect(assistants.every((m) => m.model === 'claude-test' && m.provider === 'standin' && (m.usage?.input ?? 0) > 0)).toBe(
      true,
    );
    expect(s.usage?.input).toBeGreaterThan(0);
  });

  it('reads the compaction Kilo made, and the context is what Kilo sent on resume, with the environment details it adds', async () => {
    const { env } = home();
    const driver = new KiloDriver(env);
    const compacted = (await driver.getSession(COMPACTED)) as Session;
    expect(compacted.entries.filter((e) => e.kind === 'compaction')).toHaveLength(1);
    const sent = JSON.parse(readFileSync(join(FIXTURE, 'resume-requests.json'), 'utf8')) as Record<string, { messages: Sent }>;
    for (const id of [MAIN, COMPACTED]) {
      const ours = contextToAnthropic(await driver.getContext(id)).messages;
      // the request ends with the last prompt, answered by the last message of the session
      expect(ours.slice(0, -1)).toEqual(sent[id]?.messages);
      // OpenCode's context of the same session is the same, less Kilo's environment details
      const session = (await driver.getSession(id)) as Session;
      expect(withoutEnvironmentDetails(ours as Sent)).toEqual(contextToAnthropic(opencodeContext(session)).messages);
    }
  });

  it('skips a row with malformed JSON with a warning naming the database and the row; the rest loads', async () => {
    const { env, db } = home();
    const w = new Database(db);
    const part = w.prepare(`SELECT id FROM part WHERE session_id = ? AND data LIKE '%"type":"reasoning"%'`).get(MAIN) as {
      id: string;
    };
    w.prepare("UPDATE part SET data = '{torn' WHERE id = ?").run(part.id);
    w.close();
    const s = (await new KiloDriver(env).getSession(MAIN)) as Session;
    expect(s.warnings).toEqual([{ file: db, id: part.id, message: `part row ${part.id}: malformed JSON in data; skipped` }]);
    expect(parts(s).some((p) => p.type === 'thinking')).toBe(false);
    expect(parts(s).filter((p) => p.type === 'tool_call')).toHaveLength(2);
  });

  it('sessions, show, context and sync through the CLI, the database left as it was; the index holds them', async () => {
    const { db, root } = home();
    const cliEnv: DriverEnv = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
    const sum = () => createHash('sha256').update(readFileSync(db)).digest('hex');
    const before = sum();
    expect(JSON.parse(await runCliOk(cliEnv, ['sessions', '--source', 'kilo', '--json'])).length).toBe(2);
    expect(await runCliOk(cliEnv, ['show', MAIN])).toContain('kilo session');
    expect(await runCliOk(cliEnv, ['context', MAIN, '--format', 'anthropic'])).toContain('sig-standin-6');
    // `export --format opencode` prints Kilo's own records, as `kilo export` does
    const exported = JSON.parse(await runCliOk(cliEnv, ['export', MAIN, '--format', 'opencode'])) as {
      info: { id: string; version: string };
      messages: { info: { id: string } }[];
    };
    expect(exported.info).toMatchObject({ id: MAIN, version: '7.7.7' });
    expect(exported.messages).toHaveLength(12);
    expect(exported.messages[0]?.info.id).toBe('msg_2169f6bf3001gwvYyofjeeQNYd');
    await runCliOk(cliEnv, ['sync', '--source', 'kilo', '--json']);
    const hits = JSON.parse(await runCliOk(cliEnv, ['search', 'missing.txt', '--source', 'kilo', '--no-sync', '--json'])) as {
      sessionId: string;
    }[];
    expect(hits.map((h) => h.sessionId)).toContain(MAIN);
    expect(sum()).toBe(before);
  });
});

describe('writing into Kilo CLI', () => {
  it("writes a new session with Kilo's agent and version, read back with the same context; resumed with `kilo --session`", async () => {
    const { env } = home();
    const driver = new KiloDriver(env);
    const source = (await driver.getSession(COMPACTED)) as Session;
    const written = await driver.writeSession({ ...source, source: 'opencode' });
    expect(written.id).not.toBe(COMPACTED);
    const back = (await driver.getSession(written.id)) as Session;
    expect(contextToAnthropic(await driver.getContext(written.id)).messages).toEqual(
      contextToAnthropic(await driver.getContext(COMPACTED)).messages,
    );
    expect(back.meta?.version).toBe('7.7.7');
    const r = new Database(kiloDbPath(env), { readonly: true });
    const agents = (r.prepare('SELECT data FROM message WHERE session_id = ?').all(written.id) as { data: string }[]).map(
      (m) => (JSON.parse(m.data) as { agent?: string }).agent,
    );
    r.close();
    expect(new Set(agents)).toEqual(new Set(['code', 'compaction']));
    expect(driver.resumeCommand(written)).toBe(`cd /tmp/kilo-fx/project && kilo --session ${written.id}`);
  });

  it("a Kilo session written into OpenCode keeps Kilo's own records: the same records, new ids", async () => {
    const { env, root } = home();
    const ocDb = join(root, '.local', 'share', 'opencode', 'opencode.db');
    mkdirSync(join(ocDb, '..'), { recursive: true });
    copyFileSync(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), ocDb);
    const kilo = (await new KiloDriver(env).getSession(MAIN)) as Session;
    const opencode = new OpenCodeDriver(env);
    const written = await opencode.writeSession(kilo);
    const copy = (await opencode.getSession(written.id)) as Session;
    expect(copy.entries.every((e) => e.rawSource === 'opencode')).toBe(true);
    const r = new Database(ocDb, { readonly: true });
    const rows = (r.prepare('SELECT data FROM part WHERE session_id = ?').all(written.id) as { data: string }[]).map(
      (p) => JSON.parse(p.data) as { type: string; metrics?: unknown },
    );
    const agents = (r.prepare('SELECT data FROM message WHERE session_id = ?').all(written.id) as { data: string }[]).map(
      (m) => (JSON.parse(m.data) as { agent?: string }).agent,
    );
    r.close();
    // Kilo's step metrics and agent, which threadbase's own encoding would not write
    expect(rows.some((p) => p.type === 'step-finish' && p.metrics !== undefined)).toBe(true);
    expect(new Set(agents)).toEqual(new Set(['code']));
    expect(contextToAnthropic(await opencode.getContext(written.id)).messages).toEqual(
      contextToAnthropic(opencodeContext(kilo)).messages,
    );
  });

  it("carries a Claude Code session's sub-agent along: a child session (parentID) whose parent task part names it", async () => {
    const fx = await fixtureHome({ prefix: 'tb-kilo-sub-', fixtures: ['claude', 'kilo'] });
    temps.push(fx.home);
    const out = await convertRow(fx.env, CLAUDE_PARENT, 'kilo');
    const { child } = await expectCarried(fx.env, 'kilo', out, { source: 'claude', id: CLAUDE_CHILD });
    expect(child.source).toBe('kilo');
    const r = new Database(out.path as string, { readonly: true });
    const task = (r.prepare('SELECT data FROM part WHERE session_id = ?').all(out.id) as { data: string }[])
      .map((p) => JSON.parse(p.data) as { callID?: string; state?: { metadata?: unknown } })
      .find((p) => p.callID === child.parentToolCallId);
    r.close();
    expect(task?.state?.metadata).toMatchObject({ sessionId: child.id });
  });

  it("files a session in a git repository under the project id Kilo cached in the common git directory's `kilo` file", async () => {
    const { env, root } = home();
    const repo = join(root, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, '.git', 'kilo'), 'kilo-cached-project\n');
    writeFileSync(join(repo, '.git', 'opencode'), 'opencode-cached-project\n');
    const driver = new KiloDriver(env);
    const source = (await driver.getSession(MAIN)) as Session;
    const written = await driver.writeSession({ ...source, project: repo });
    expect(written.meta).toMatchObject({ projectID: 'kilo-cached-project', worktree: repo });
  });
});
