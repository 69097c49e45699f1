/**
 * A Gemini CLI sub-agent chat (`chats/<main id>/<agent id>.jsonl`) that no call of the main chat names
 * (no ToolCallRecord.agentId) is not lost: placed at the invoke_agent call that gave it its prompt (as
 * Claude Code's in-file side chains are placed), it goes along with its parent when converted; one no call
 * gave its prompt is warned about, on it and on the main chat, naming its file and id. The same through
 * `threadbase sync`'s readUnit.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { childSessionsFrom } from '../../src/convert/session.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { ORPHANS_MAIN, writeOrphanProject, writeSubAgentChat } from '../helpers/gemini-orphans.js';

const MAIN = ORPHANS_MAIN;

let home: string;
let chats: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-gemini-orphan-'));
  chats = join(home, '.gemini/tmp/p/chats');
  await writeOrphanProject(chats);
  await writeSubAgentChat(chats, 'lost-1', '2026-01-01T00:00:04.000Z', 'a task no call gave');
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('gemini: a sub-agent chat no call names', () => {
  it('is placed at the call that gave it its prompt, and goes along with its parent', async () => {
    const driver = new GeminiDriver({ home, env: {} });
    const listed = new Map((await driver.listSessions()).map((s) => [s.id, s]));
    expect(listed.get('named-1')).toMatchObject({ parentId: MAIN, parentToolCallId: 'call-named' });
    expect(listed.get('bare-1')).toMatchObject({ parentId: MAIN, parentToolCallId: 'call-bare' });
    expect((await driver.getSession('bare-1'))?.parentToolCallId).toBe('call-bare');
    expect((await driver.getSession('bare-1'))?.warnings ?? []).toEqual([]);
    const children = await childSessionsFrom(driver)(MAIN);
    expect(children.map((c) => [c.id, c.parentToolCallId]).sort()).toEqual([
      ['bare-1', 'call-bare'],
      ['named-1', 'call-named'],
    ]);
  });

  it('that no call gave its prompt either is warned about, on it and on its main chat, by file and id', async () => {
    const driver = new GeminiDriver({ home, env: {} });
    const lost = await driver.getSession('lost-1');
    expect(lost).toMatchObject({ parentId: MAIN });
    expect(lost?.parentToolCallId).toBeUndefined();
    const file = join(chats, MAIN, 'lost-1.jsonl');
    expect(lost?.warnings).toEqual([
      expect.objectContaining({ file, id: 'lost-1', message: expect.stringContaining(`no call of session ${MAIN} names it`) }),
    ]);
    const main = await driver.getSession(MAIN);
    expect(main?.warnings).toEqual([
      expect.objectContaining({ file: main?.path, id: 'lost-1', message: expect.stringContaining(file) }),
    ]);
  });

  it('reads the same through sync (readUnit)', async () => {
    const driver = new GeminiDriver({ home, env: {} });
    const units = new Map((await driver.listUnits()).map((u) => [u.sessionId, u]));
    const read = async (id: string) => {
      const unit = units.get(id);
      if (!unit) throw new Error(`no unit ${id}`);
      return (await driver.readUnit(unit))?.session;
    };
    expect((await read('named-1'))?.parentToolCallId).toBe('call-named');
    expect((await read('bare-1'))?.parentToolCallId).toBe('call-bare');
    const lost = await read('lost-1');
    expect(lost?.parentToolCallId).toBeUndefined();
    expect(lost?.warnings).toEqual([expect.objectContaining({ file: join(chats, MAIN, 'lost-1.jsonl'), id: 'lost-1' })]);
  });
});
