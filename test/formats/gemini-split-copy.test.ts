/**
 * A response split over several records (Claude Code writes one per block) is one Gemini turn; the copy
 * is dated by the record whose usage counts, so the response's copy key (response id and time) is the
 * original's and `stats` counts it once, not once in the original and again in the copy.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { copyKeyOf } from '../../src/model/copies.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { countedUsage } from '../../src/model/usage.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2025, 4, 1, 10, 0, s)).toISOString();
const usage = (output: number) => ({ input: 100, output, cacheRead: 50, cacheWrite: 10, reasoning: 0 });

function split(project: string): Session {
  const reply = (text: string, output: number) =>
    textMessage('assistant', text, { responseId: 'msg_1', model: 'claude-sonnet-4-5', usage: usage(output) });
  const entries: Entry[] = [
    messageEntry('u1', null, t(1), textMessage('user', 'count')),
    messageEntry('a1', 'u1', t(2), reply('one', 5)),
    messageEntry('a2', 'a1', t(3), reply('two', 5)),
    messageEntry('a3', 'a2', t(4), reply('three', 40)),
  ];
  return { id: 's', source: 'claude', project, createdAt: t(1), updatedAt: t(4), messageCount: 4, entries };
}

/** The copy key of each record whose usage counts. */
const countedKeys = (s: Session) => {
  const counted = countedUsage(s.entries);
  return s.entries.filter((e) => counted.has(e.id)).map((e) => copyKeyOf(e, s.id));
};

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-split-'));
  await fs.mkdir(join(root, 'project'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('gemini: a response split over records, written as one turn', () => {
  it('is dated by its counted record: the copy key is the original response’s', async () => {
    const source = split(join(root, 'project'));
    const driver = new GeminiDriver(env);
    const copy = (await driver.getSession((await driver.writeSession(source)).id)) as Session;
    const reply = copy.entries.filter((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(reply).toHaveLength(1);
    expect(countedKeys(copy)).toEqual(countedKeys(source));
    expect(countedKeys(source)).toEqual([`r\u0000msg_1\u0000${t(4)}`]);
  });
});
