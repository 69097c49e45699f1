/**
 * A chat written from a compacted session: its `lastUpdated` is the time of the session's last entry
 * (written inside the `$set.messages` record, which has no timestamp of its own), not the time of writing.
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
    const meta = JSON.parse(lines[0] as string) as { lastUpdated: string };
    // the records: u1, a1, then the $set that replaces the conversation
    expect(JSON.parse(lines.at(-1) as string)).toHaveProperty('$set.messages');
    expect(meta.lastUpdated).toBe(t(5));
    expect(info.updatedAt).toBe(t(5));
    expect((await driver.getSession(info.id))?.updatedAt).toBe(t(5));
  });
});
