/**
 * A pi session file with an entry id written twice, resumed by the real pi (against the loopback
 * stand-in): pi finds only the later record of the id (SessionManager indexes by id with Map.set), so
 * the leaf's path runs through it, and threadbase's context is what pi sends (no parentId cycle cut).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/driver.js';
import { agentHomeForFile, piResumeRequest } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { wireMessages } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { piAssistantRecord, piUserRecord } from '../helpers/pi-records.js';

const home = agentHomeForFile({ timeout: 60_000 });
let driver: PiDriver;
beforeAll(() => {
  driver = new PiDriver(home.env);
});

const SESSION_ID = '0194f1c2-3b4d-7e5f-8a9b-0c1d2e3f4d01';
const T0 = Date.parse('2025-01-02T03:04:05.000Z');
const user = (id: string, parentId: string | null, text: string, ts: number) => ({ id, parentId, ...piUserRecord(text, ts) });
const assistant = (id: string, parentId: string | null, text: string, ts: number) => ({
  id,
  parentId,
  ...piAssistantRecord(text, ts),
});

describe('a pi session with an entry id written twice', () => {
  it('real pi resumes it through the later record, as threadbase reads it', async () => {
    const lines = [
      { type: 'session', version: 3, id: SESSION_ID, timestamp: new Date(T0).toISOString(), cwd: home.project },
      user('u1', null, 'first question', T0 + 1000),
      assistant('a1', 'u1', 'first answer', T0 + 2000),
      // the earlier x: pi's lookups of x find the later one, so b hangs under that
      user('x', 'b', 'x first', T0 + 3000),
      user('x', 'a1', 'x again', T0 + 4000),
      assistant('b', 'x', 'b answer', T0 + 5000),
    ];
    const dir = driver.sessionDirFor(home.project);
    await fs.mkdir(dir, { recursive: true });
    const file = join(dir, `2025-01-02T03-04-05-000Z_${SESSION_ID}.jsonl`);
    await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

    const session = await driver.getSession(SESSION_ID);
    expect(session?.warnings?.map((w) => [w.line, w.message])).toEqual([
      [4, 'duplicate id x: line 5 has it again and pi finds only that later record by the id; this one left out'],
    ]);
    const ours = JSON.parse(
      await runCliOk(home.env, ['context', SESSION_ID, '--source', 'pi', '--format', 'anthropic', '--no-index']),
    ) as AnthropicRequest;
    const texts = wireMessages(ours.messages).map((m) => [m.role, m.content.map((b) => b.text).join(' | ')]);
    expect(texts).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'x again'],
      ['assistant', 'b answer'],
    ]);
    const sent = await piResumeRequest(home, file, 'next');
    expect(wireMessages(sent.messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'next' }] }]),
    );
  });
});
