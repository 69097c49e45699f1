/**
 * A Copilot CLI session's title from its first user line is cut as every reader cuts one (titleLine,
 * model/tree.ts: at most 100 UTF-16 units, between graphemes), so an emoji at the cut is not halved; so
 * is the prompt a warning quotes of a side chain left out when written into Copilot CLI.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { Session } from '../../src/model/types.js';
import { chainSession, textEntry, textMessage } from '../helpers/sessions.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-title-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('Copilot CLI: a title from the first user line', () => {
  it('is cut between graphemes, not inside a surrogate pair', async () => {
    const id = '0a6c3a52-6f0e-4c4e-9a59-6d2f0c1b7e11';
    const d = join(dir, 'session-state', id);
    await mkdir(d, { recursive: true });
    // 99 units, then an emoji (two units) across the 100-unit cut
    const prompt = `${'a'.repeat(99)}\u{1F600} and more\nsecond line`;
    const events = [
      { type: 'session.start', data: { sessionId: id, startTime: '2026-01-02T10:00:00.000Z', context: { cwd: '/p' } } },
      { type: 'user.message', data: { content: prompt, transformedContent: prompt } },
    ].map((e, i) => ({ ...e, id: `ev-${i + 1}`, timestamp: `2026-01-02T10:00:0${i}.000Z`, parentId: i ? `ev-${i}` : null }));
    await writeFile(join(d, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: dir } });
    const title = (await driver.getSession(id))?.title;
    expect(title).toBe('a'.repeat(99));
    expect((await driver.listSessions()).map((s) => s.title)).toEqual(['a'.repeat(99)]);
  });
});

describe("convert --to copilot: the prompt a left-out side chain's warning quotes", () => {
  it('is cut between graphemes, with an ellipsis', () => {
    const main = chainSession('s', 'claude', '/p', [
      ['u1', textMessage('user', 'hi')],
      ['a1', textMessage('assistant', 'hello', { model: 'claude-sonnet-4-5' })],
    ]);
    // 58 units, then an emoji across the cut at 59
    const prompt = `${'b'.repeat(58)}\u{1F600} nobody asked for this errand`;
    const session: Session = {
      ...main,
      entries: [...main.entries, { ...textEntry('x1', null, 5, 'user', prompt), sidechain: true }],
    };
    const warning = encodeCopilotEvents(session).warnings.find((w) => w.includes('side chain'));
    expect(warning).toContain(`prompt "${'b'.repeat(58)}…"`);
  });
});
