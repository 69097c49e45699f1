/**
 * A compaction whose summary another model wrote (CompactionEntry.model, as pi's, Copilot's or an
 * OpenCode summary message name it), written into OpenCode: the summary message carries that model, so
 * reading it back gives the model again and `stats --by model` counts the summary's request under it,
 * not under the model of the user's replies.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { OpenCodeDriver } from '../../src/formats/opencode/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session, Usage } from '../../src/model/types.js';
import { localStatsByModel, runCliOk } from '../helpers/cli.js';
import { messageEntry, secondInto2026, textMessage } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temp HOME whose OpenCode database is a copy of the one the real OpenCode wrote (fixture). */
function home(): { env: DriverEnv; db: string } {
  const root = mkdtempSync(join(tmpdir(), 'tb-oc-compaction-model-'));
  temps.push(root);
  const dataDir = join(root, '.local', 'share', 'opencode');
  mkdirSync(dataDir, { recursive: true });
  const db = join(dataDir, 'opencode.db');
  copyFileSync(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), db);
  const env = { HOME: root, XDG_DATA_HOME: join(root, '.local', 'share'), THREADBASE_HOME: join(root, '.threadbase') };
  return { env: { home: root, env }, db };
}

const usage = (input: number, output: number): Usage => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
const reply = (text: string, input: number) =>
  textMessage('assistant', text, { model: 'main-model', provider: 'standin', usage: usage(input, 10) });

/** Replies of main-model; the compaction's summary written by summary-model (its tokens tell it apart). */
function session(): Session {
  const entries: Entry[] = [
    messageEntry('u1', null, 1, textMessage('user', 'list the files')),
    messageEntry('a1', 'u1', 2, reply('file.txt', 100)),
    {
      id: 'c1',
      parentId: 'a1',
      timestamp: secondInto2026(3),
      kind: 'compaction',
      summary: 'we listed the files',
      model: 'summary-model',
      usage: usage(7000, 300),
      cost: 0.07,
    },
    messageEntry('u2', 'c1', 4, textMessage('user', 'and now?')),
    messageEntry('a2', 'u2', 5, reply('now this', 200)),
  ];
  return {
    id: 'compacted-elsewhere',
    source: 'pi',
    project: '/work/compacted',
    title: 'compacted by another model',
    createdAt: secondInto2026(1),
    updatedAt: secondInto2026(5),
    messageCount: 4,
    entries,
  };
}

it('keeps the model that wrote the summary, and stats count its tokens under it', async () => {
  const { env, db } = home();
  const d = new OpenCodeDriver(env);
  const written = await d.writeSession(session());
  // the summary message names the model that wrote it, with the provider its replies on the path name
  const conn = new Database(db, { readonly: true });
  const summary = (conn.prepare('SELECT data FROM message WHERE session_id = ?').all(written.id) as { data: string }[])
    .map((r) => JSON.parse(r.data) as { summary?: boolean; modelID?: string; providerID?: string })
    .find((m) => m.summary === true);
  conn.close();
  expect(summary).toMatchObject({ modelID: 'summary-model', providerID: 'standin' });

  const back = (await d.getSession(written.id)) as Session;
  const compaction = back.entries.find((e) => e.kind === 'compaction');
  expect(compaction).toMatchObject({ model: 'summary-model', usage: { input: 7000, output: 300 }, cost: 0.07 });

  // the local index counts the summary's request under summary-model, the replies under theirs
  await runCliOk(env, ['sync']);
  const rows = await localStatsByModel(env);
  const input = Object.fromEntries(rows.map((r) => [r.key, r.inputTokens]));
  expect(input).toMatchObject({ 'summary-model': 7000, 'main-model': 300 });

  // written again from threadbase (its OpenCode rows left behind), the model still goes with it
  const foreign: Session = {
    ...back,
    source: 'threadbase',
    entries: back.entries.map(({ raw: _raw, rawSource: _rawSource, ...e }) => e as Entry),
  };
  const again = (await d.getSession((await d.writeSession(foreign)).id)) as Session;
  expect(again.entries.find((e) => e.kind === 'compaction')).toMatchObject({ model: 'summary-model' });
});

it('counts the summary of a compaction written into OpenCode twice once, as its replies', async () => {
  const { env } = home();
  const d = new OpenCodeDriver(env);
  // two copies of one session (convert run twice): the summary message gets new OpenCode ids each time
  const first = await d.writeSession(session());
  const second = await d.writeSession(session());
  expect(second.id).not.toBe(first.id);
  await runCliOk(env, ['sync']);
  const rows = await localStatsByModel(env);
  // messages: the responses counted (the summary's request is one)
  const byModel = Object.fromEntries(rows.map((r) => [r.key, { inputTokens: r.inputTokens, messages: r.messages }]));
  expect(byModel).toMatchObject({
    'summary-model': { inputTokens: 7000, messages: 1 },
    'main-model': { inputTokens: 300, messages: 2 },
  });
  // each copy reads back with the compaction's own entry id and time, the copy key stats goes by
  for (const id of [first.id, second.id]) {
    const compaction = (await d.getSession(id))?.entries.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({ id: 'c1', timestamp: secondInto2026(3), model: 'summary-model' });
  }
});

it('a fork of a session OpenCode compacted counts the summary once with its original', async () => {
  const { env } = home();
  const d = new OpenCodeDriver(env);
  // the summary message as OpenCode writes it: no threadbase fields (they are left out here)
  const written = await d.writeSession(session());
  const conn = new Database(join(env.home, '.local', 'share', 'opencode', 'opencode.db'));
  for (const r of conn.prepare('SELECT id, data FROM message WHERE session_id = ?').all(written.id) as {
    id: string;
    data: string;
  }[]) {
    const { threadbase: _threadbase, ...data } = JSON.parse(r.data) as { summary?: boolean; threadbase?: unknown };
    if (data.summary === true) conn.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(data), r.id);
  }
  conn.close();
  await d.forkSession(written.id);

  await runCliOk(env, ['sync']);
  const rows = await localStatsByModel(env);
  const input = Object.fromEntries(rows.map((r) => [r.key, r.inputTokens]));
  expect(input).toMatchObject({ 'summary-model': 7000, 'main-model': 300 });
});

it('keeps the model a summary message names when its request recorded no usage', async () => {
  const { env } = home();
  const d = new OpenCodeDriver(env);
  const s = session();
  s.entries = s.entries.map((e) => {
    if (e.kind !== 'compaction') return e;
    const { usage: _usage, cost: _cost, ...rest } = e;
    return rest;
  });
  const back = (await d.getSession((await d.writeSession(s)).id)) as Session;
  const compaction = back.entries.find((e) => e.kind === 'compaction');
  expect(compaction).toMatchObject({ model: 'summary-model' });
  expect(compaction).not.toHaveProperty('usage');
  expect(compaction).not.toHaveProperty('cost');
});
