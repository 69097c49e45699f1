/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in) loads and
 * resumes a session threadbase wrote whose replies without a response id keep their entry id and time in
 * the assistant.message's `threadbase` (Copilot CLI validates every event it loads); read back after
 * Copilot CLI appended its turn, the replies still have them, so `stats` counts the copy once.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { CountedResponses } from '../../src/model/copies.js';
import type { Message, Session } from '../../src/model/types.js';
import { copilotHomeForFile, COPILOT_MODEL as MODEL, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-copy-key-');

const reply = (text: string, input: number): Message =>
  textMessage('assistant', text, { model: MODEL, usage: { input, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 } });

describe.skipIf(SKIP)('a reply without a response id written into the real Copilot CLI', () => {
  it('is loaded and resumed with its kept entry id and time, and read back a copy of the original', async () => {
    const original: Session = chainSession('zed-like', 'zed', home.project, [
      ['m1', textMessage('user', 'where are the otters')],
      ['m2', reply('By the river.', 100)],
      ['m3', textMessage('user', 'and the badgers')],
      ['m4', reply('Under the hill.', 40)],
    ]);
    const info = await home.driver.writeSession(original);
    if (!info.path) throw new Error('no path');
    expect(await readFile(info.path, 'utf8')).toContain('"threadbase":{"entryId":"m2"');
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe kept ids');
    expect(sent).toEqual(ours);
    expect(JSON.stringify(sent)).toContain('Under the hill.');
    const copy = await home.driver.getSession(info.id);
    if (!copy) throw new Error('no copy');
    // Copilot CLI's own turn appended: its reply is a third one, with its own response id
    const replies = copy.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e] : []));
    expect(replies.map((e) => e.id).slice(0, 2)).toEqual(['m2', 'm4']);
    expect(replies.map((e) => e.timestamp).slice(0, 2)).toEqual(
      original.entries.filter((e) => e.id === 'm2' || e.id === 'm4').map((e) => e.timestamp),
    );
    expect(replies.length).toBeGreaterThan(2);
    const counted = new CountedResponses();
    counted.add(original);
    counted.add({ ...copy, entries: copy.entries.filter((e) => e.id === 'm2' || e.id === 'm4' || e.kind !== 'message') });
    expect(counted.totals()).toMatchObject({ input: 140, messages: 2 });
  }, 240_000);
});
