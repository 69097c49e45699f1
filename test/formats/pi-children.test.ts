/**
 * A sub-agent session written into pi (writeChildSession): its header's threadbase field links it to
 * the parent and the call that ran it, read back whole, listed under the parent, and kept by an
 * incremental read of lines appended later (the index's).
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/driver.js';
import type { Session } from '../../src/model/types.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { textEntry } from '../helpers/sessions.js';

let home: string;
let pi: PiDriver;

const session = (id: string, text: string): Session => ({
  id,
  source: 'threadbase',
  project: '/tmp',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:02.000Z',
  messageCount: 2,
  entries: [textEntry(`${id}-u`, null, 1, 'user', text), textEntry(`${id}-a`, `${id}-u`, 2, 'assistant', `${text}: done`)],
});

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-pi-children-'));
  pi = new PiDriver(homeEnv(home));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('pi sub-agent sessions', () => {
  it('are linked in the header, listed under the parent, and keep the link when read on from an offset', async () => {
    const parent = await pi.writeSession(session('P', 'plan'));
    const child = await pi.writeChildSession(parent, { ...session('C', 'look'), parentToolCallId: 'call_1' });
    expect(await pi.getSession(child.id)).toMatchObject({ parentId: parent.id, parentToolCallId: 'call_1' });
    expect((await pi.listSessions({ parentId: parent.id })).map((s) => s.id)).toEqual([child.id]);
    // the parent itself is no one's child
    expect((await pi.getSession(parent.id))?.parentId).toBeUndefined();

    const unit = (await pi.listUnits()).find((u) => u.sessionId === child.id);
    if (!unit?.path) throw new Error('no unit for the child');
    const whole = await pi.readUnit(unit);
    if (!whole?.offset || !whole.state) throw new Error('no offset to read on from');
    appendFileSync(
      unit.path,
      `${JSON.stringify({ type: 'message', id: 'more', parentId: 'C-a', timestamp: '2026-01-01T00:00:03.000Z', message: { role: 'user', content: 'more', timestamp: 3 } })}\n`,
    );
    const more = await pi.readUnit(unit, { offset: whole.offset, state: whole.state });
    expect(more?.appended).toBe(true);
    expect(more?.session).toMatchObject({ parentId: parent.id, parentToolCallId: 'call_1' });
  });
});
