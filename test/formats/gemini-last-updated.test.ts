/**
 * A chat's times: the session's last entry time (of a compacted session, inside the `$set.messages` record,
 * which has no timestamp of its own) is kept as `threadbase.lastUpdated` and read back as updatedAt; the
 * `lastUpdated` Gemini CLI's session cleanup compares (general.sessionRetention, 30 days by default) is the time
 * of the write, so a chat converted from an older session is not deleted at Gemini CLI's next start.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2025, 4, 1, 10, 0, s)).toISOString();

function compacted(project: string): Session {
  const entries: Entry[] = [
    messageEntry('u1', null, t(1), textMessage('user', 'first')),
    messageEntry('a1', 'u1', t(2), textMessage('assistant', 'one')),
    { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(3), summary: 'we said first and one', firstKeptEntryId: 'a1' },
    messageEntry('u2', 'c', t(4), textMessage('user', 'second')),
    messageEntry('a2', 'u2', t(5), textMessage('assistant', 'two')),
  ];
  return { id: 's', source: 'pi', project, createdAt: t(1), updatedAt: t(5), messageCount: 4, entries };
}

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-updated-'));
  await fs.mkdir(join(root, 'project'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('gemini: lastUpdated of a chat written from a compacted session', () => {
  it("is the session's last entry time, and so is the chat's updatedAt read back", async () => {
    const driver = new GeminiDriver(env);
    const info = await driver.writeSession(compacted(join(root, 'project')));
    const lines = (await fs.readFile(info.path as string, 'utf8')).trim().split('\n');
    const meta = JSON.parse(lines[0] as string) as { threadbase: { lastUpdated: string } };
    // the records: u1, a1, then the $set that replaces the conversation
    expect(JSON.parse(lines.at(-1) as string)).toHaveProperty('$set.messages');
    expect(meta.threadbase.lastUpdated).toBe(t(5));
    expect(info.updatedAt).toBe(t(5));
    expect((await driver.getSession(info.id))?.updatedAt).toBe(t(5));
  });
});

describe("gemini: the lastUpdated Gemini CLI's session cleanup compares", () => {
  it('is the time of the write, and the session its times are read back', async () => {
    const driver = new GeminiDriver(env);
    const before = Date.now();
    const info = await driver.writeSession(compacted(join(root, 'project')));
    const text = await fs.readFile(info.path as string, 'utf8');
    const meta = JSON.parse(text.split('\n')[0] as string) as { startTime: string; lastUpdated: string };
    // Gemini CLI deletes a chat whose lastUpdated is more than 30 days old (cleanupExpiredSessions)
    expect(Date.parse(meta.lastUpdated)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(meta.lastUpdated)).toBeLessThanOrEqual(Date.now());
    expect(meta.startTime).toBe(t(1));
    const read = await new GeminiDriver(env).getSession(info.id);
    expect([read?.createdAt, read?.updatedAt]).toEqual([t(1), t(5)]);

    // Gemini CLI carrying the chat on sets a later lastUpdated: that one is the chat's updatedAt then
    const later = new Date(Date.now() + 60_000).toISOString();
    await fs.writeFile(info.path as string, `${text}${JSON.stringify({ $set: { lastUpdated: later } })}\n`);
    expect((await new GeminiDriver(env).getSession(info.id))?.updatedAt).toBe(later);
  });
});
