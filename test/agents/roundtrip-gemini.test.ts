/**
 * Claude Code → Gemini CLI → Claude Code with the real `gemini` (0.61.0, on the loopback stand-in) in
 * between: a compacted Claude Code session (signed and redacted thinking, a user image, a PDF, a Task
 * call run by a sub-agent, cache tokens, a compaction) converted with `threadbase convert`, resumed by
 * gemini with what threadbase's Gemini context says it sends, and converted back: every turn before the
 * compaction comes back too, with its parts and usage, and the compaction still cuts what is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToGeminiContents } from '../../src/formats/gemini/index.js';
import type { Part } from '../../src/model/types.js';
import { convertInto } from '../helpers/agent-fixtures.js';
import { type ConversationView, copyOlderClaudeSession, expectBackInClaude, OLDER_ID } from '../helpers/claude-round-trip.js';
import { readContext, readSession } from '../helpers/conversions.js';
import { type GeminiHome, resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';

const PROBE = 'probe after the round trip';

let home: GeminiHome;
beforeAll(async () => {
  home = await setupGeminiHome();
  await copyOlderClaudeSession(home);
});
afterAll(async () => {
  await home?.close();
});

/** Gemini CLI's own session context, which its resume writes before the conversation (here before the compaction: unsent), and a result's `isError: false`, which Gemini keeps as none, aside */
const GEMINI_VIEW: ConversationView = {
  skip: (e) => {
    const first = e.kind === 'message' ? e.message.parts[0] : undefined;
    return first?.type === 'text' && first.text.startsWith('<session_context>');
  },
  part: (p) => ({ ...p, ...(p.type === 'tool_result' && !p.isError ? { isError: undefined } : {}) }) as Part,
};

describe('a compacted Claude Code session through Gemini CLI and back', () => {
  it('is resumed by the real gemini as threadbase says, and comes back with every turn before the compaction', async () => {
    const source = await readSession(home, 'claude', OLDER_ID);
    const written = await convertInto(home, OLDER_ID, 'claude', 'gemini');
    const expected = contextToGeminiContents(await readContext(home, 'gemini', written.id));
    await runGemini(home, ['--resume', written.id, '-p', PROBE]);
    const sent = resumedContents(home, PROBE);
    expect(sent).toEqual(expected);
    // the compaction cuts what is sent: its summary first, nothing from before it
    expect(JSON.stringify(sent[0])).toContain('The user asked about cats');
    expect(JSON.stringify(sent)).not.toContain('What is in this image?');

    // the chat gemini appended to (its resume wrote the conversation again) goes back into Claude Code
    await expectBackInClaude(home, source, written.id, 'gemini', PROBE, GEMINI_VIEW);
  }, 180_000);
});
