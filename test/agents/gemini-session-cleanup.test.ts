/**
 * A session over 30 days old converted into Gemini CLI survives Gemini CLI's next start with its default
 * settings: Gemini CLI 0.61 deletes at every start each chat (but the one it resumes) whose `lastUpdated` is
 * older than general.sessionRetention.maxAge (enabled, 30 days, by default). The real `gemini` on the loopback
 * stand-in, in a home whose settings leave that alone:
 * - a Claude Code session dated January 2026 is converted with `threadbase convert <id> --to gemini`;
 * - `gemini -p <another prompt>` starts a fresh session (the cleanup runs);
 * - the converted chat is still there, and `gemini --resume <id> -p <probe>` sends its context; threadbase
 *   reads the chat back with the session's own times.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToGeminiContents } from '../../src/formats/gemini/index.js';
import { Sources } from '../../src/formats/registry.js';
import { convertInto } from '../helpers/agent-fixtures.js';
import { readContext, readSession } from '../helpers/conversions.js';
import { type GeminiHome, resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: GeminiHome;
beforeAll(async () => {
  home = await setupGeminiHome();
});
afterAll(async () => {
  await home?.close();
});

describe('a session over 30 days old converted into Gemini CLI, with its default session cleanup', () => {
  it("is still there after Gemini CLI's next start, and resumed with its context", async () => {
    const settings = JSON.parse(await fs.readFile(join(home.root, '.gemini', 'settings.json'), 'utf8')) as {
      general: Record<string, unknown>;
    };
    expect(settings.general.sessionRetention).toBeUndefined();

    // dated one second apart from 2026-01-01 (chainSession): far more than 30 days before now
    const old = chainSession('9d1e0c52-3b7a-4f0e-9a51-5c2f7d8e1a01', 'claude', home.project, [
      ['u1', textMessage('user', 'remember the word heliotrope')],
      ['a1', textMessage('assistant', 'heliotrope, noted', { model: 'claude-sonnet-4-5' })],
    ]);
    const sources = new Sources(home.env);
    const source = await sources.driver('claude').writeSession?.(old);
    await sources.close();
    if (!source) throw new Error('claude wrote no session');
    const sourceSession = await readSession(home, 'claude', source.id);
    expect(Date.now() - Date.parse(sourceSession.updatedAt)).toBeGreaterThan(30 * 24 * 3600_000);

    const written = await convertInto(home, source.id, 'claude', 'gemini');
    const expected = contextToGeminiContents(await readContext(home, 'gemini', written.id));

    // Gemini CLI starts on another prompt: its cleanup looks at every chat of the project
    await runGemini(home, ['-p', 'another prompt']);
    expect(home.standIn.chatRequests().some((r) => r.contents.at(-1)?.parts.at(-1)?.text === 'another prompt')).toBe(true);
    await expect(fs.stat(written.path)).resolves.toBeTruthy();

    // the chat read back has the source's times
    const copy = await readSession(home, 'gemini', written.id);
    expect([copy.createdAt, copy.updatedAt]).toEqual([sourceSession.createdAt, sourceSession.updatedAt]);

    await runGemini(home, ['--resume', written.id, '-p', 'probe after cleanup']);
    const sent = resumedContents(home, 'probe after cleanup');
    expect(sent).toEqual(expected);
    expect(JSON.stringify(sent)).toContain('heliotrope, noted');
  }, 180_000);
});
