/**
 * GitHub Copilot CLI in the local index: each session's events.jsonl is an append-only unit known by
 * its size and time (its id is its folder's name), each sub-agent run in it a unit of its own (listed
 * from the index's rows while the file is unchanged: listing reads no unchanged file); events appended are read
 * from the last byte read, a usage record before the offset still reaching its assistant.message
 * after it; a rename in workspace.yaml re-reads that session; a rewind reads it whole.
 */
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { DriverEnv, ReadFrom, SourceUnit } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';

const REAL = '44b0e2d9-5ac6-46a4-b568-ce0f72a10d33';
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let events: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-copilot-units-', (dir) => ({ COPILOT_HOME: join(dir, 'copilot-home') }));
  env = home.env;
  await cp(resolve('test/fixtures/copilot/real-1.0.102/.copilot'), join(home.dir, 'copilot-home'), { recursive: true });
  events = join(home.dir, 'copilot-home', 'session-state', REAL, 'events.jsonl');
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  project: s.project,
  messageCount: s.messageCount,
  usage: s.usage,
  updatedAt: s.updatedAt,
});

async function sync() {
  let reads: { mock: { calls: [SourceUnit, ReadFrom?][] } } | undefined;
  const { report, listed } = await syncStore<CopilotDriver>(env, 'copilot', (driver) => {
    reads = vi.spyOn(driver, 'readUnit');
  });
  return {
    report,
    indexed: listed.map(fields),
    reads: (reads?.mock.calls ?? []).map(([u, from]) => [u.sessionId, from?.offset]),
  };
}

let lastId = '';
/** Events hung after the file's last one, as Copilot CLI appends a turn. */
async function appendTurn(n: number, usage: Record<string, unknown> | undefined) {
  const lines = (await readFile(events, 'utf8')).trim().split('\n');
  lastId ||= (JSON.parse(lines.at(-1) as string) as { id: string }).id;
  const ev = (type: string, data: Record<string, unknown>) => {
    const id = `added-${n}-${type}`;
    const e = { type, data, id, timestamp: `2026-11-26T05:0${n}:00.000Z`, parentId: lastId };
    lastId = id;
    return `${JSON.stringify(e)}\n`;
  };
  let text = ev('user.message', { content: `appended question ${n}` });
  if (usage) text += ev('session.usage_record', { usage: { ...usage, apiCallId: `api-${n}` } });
  return {
    text,
    answer: () => ev('assistant.message', { content: `appended answer ${n}`, model: 'claude-sonnet-4.5', apiCallId: `api-${n}` }),
  };
}

describe('Copilot CLI sessions as units of the index', () => {
  it('indexes each session and each sub-agent run in it with the listing the driver gives', async () => {
    const first = await sync();
    const fromDriver = (await new CopilotDriver(env).listSessions()).map(fields).sort(byId);
    expect(first.indexed).toEqual(fromDriver);
    // the sub-agent run in f99f5ed3's file a session (and a unit) of its own, by its agentId
    expect(first.indexed.map((s) => s.id)).toEqual([
      REAL,
      'dbc5e332-8b80-4a98-a522-e470049ee15a',
      'f99f5ed3-753c-4039-b5b4-94f890e7fd56',
    ]);
    expect(first.report.units).toBe(3);
    const store = openSqliteStore(indexPath(env));
    try {
      expect(await store.getSession('dbc5e332-8b80-4a98-a522-e470049ee15a')).toMatchObject({
        parentId: 'f99f5ed3-753c-4039-b5b4-94f890e7fd56',
        parentToolCallId: 'toolu_standin_0001',
        messageCount: 2,
      });
    } finally {
      await store.close();
    }
  });

  it('an unchanged file is not read again, not even to list its runs', async () => {
    const parsed = vi.spyOn(CopilotDriver.prototype as unknown as { readWhole: () => unknown }, 'readWhole');
    const again = await sync();
    expect(again.reads).toEqual([]);
    expect(parsed).not.toHaveBeenCalled();
    parsed.mockRestore();
    expect(again.report).toMatchObject({ unchanged: 3, reread: 0, appended: 0 });
  });

  it('appended events are read from the last byte read; a usage record before that offset reaches its message after it', async () => {
    const size = (await readFile(events)).length;
    const turn = await appendTurn(1, { inputTokens: 1500, outputTokens: 7, cacheReadTokens: 1200, cacheWriteTokens: 0 });
    // the user message and the usage record first (a sync sees them), the answer after
    await appendFile(events, turn.text);
    const mid = await sync();
    expect(mid.reads).toEqual([[REAL, size]]);
    expect(mid.report.appended).toBe(1);
    const midSize = (await readFile(events)).length;
    await appendFile(events, turn.answer());
    const after = await sync();
    expect(after.reads).toEqual([[REAL, midSize]]);
    expect(after.report).toMatchObject({ appended: 1, reread: 0 });
    const whole = (await new CopilotDriver(env).listSessions()).map(fields).sort(byId);
    expect(after.indexed).toEqual(whole);
    expect(after.indexed[0]?.messageCount).toBe(8);
    // 355 input before, and this response's 1500 less its 1200 cache reads
    expect(after.indexed[0]?.usage).toMatchObject({ input: 655, cacheRead: 2200, output: 85 });
    const store = openSqliteStore(indexPath(env));
    try {
      const ctx = await store.getContext(REAL);
      expect(ctx.messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'appended answer 1' }]);
    } finally {
      await store.close();
    }
  });

  it('a rename in workspace.yaml re-reads the session with its new name', async () => {
    const ws = join(home.dir, 'copilot-home', 'session-state', REAL, 'workspace.yaml');
    const text = await readFile(ws, 'utf8');
    await writeFile(
      ws,
      text.replace(/^name: .*$/m, 'name: Renamed by the user').replace('user_named: false', 'user_named: true'),
    );
    const renamed = await sync();
    expect(renamed.report.reread + renamed.report.appended).toBe(1);
    expect(renamed.indexed[0]?.title).toBe('Renamed by the user');
  });

  it('a rewind appended is read whole (what it removed may lie before the offset)', async () => {
    await appendFile(
      events,
      `${JSON.stringify({ type: 'session.snapshot_rewind', data: { upToEventId: 'added-1-user.message', eventsRemoved: 3, eventIds: ['added-1-user.message', 'added-1-session.usage_record', 'added-1-assistant.message'] }, id: 'rw-1', timestamp: '2026-11-26T05:09:00.000Z', parentId: lastId })}\n`,
    );
    const rewound = await sync();
    expect(rewound.report).toMatchObject({ appended: 0, reread: 1 });
    expect(rewound.indexed).toEqual((await new CopilotDriver(env).listSessions()).map(fields).sort(byId));
    const store = openSqliteStore(indexPath(env));
    try {
      const ctx = await store.getContext(REAL);
      expect(ctx.messages.at(-1)?.parts).toEqual([
        { type: 'thinking', thinking: 'pondering the echo', signature: 'sig-standin-3' },
        { type: 'text', text: 'thought about it' },
      ]);
    } finally {
      await store.close();
    }
  });
});
