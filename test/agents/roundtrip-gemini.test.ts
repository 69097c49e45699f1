/**
 * Claude Code → Gemini CLI → Claude Code with the real `gemini` (0.61.0, on the loopback stand-in) in
 * between: a compacted Claude Code session (signed and redacted thinking, a user image, a PDF, a Task
 * call run by a sub-agent, cache tokens, a compaction) converted with `threadbase convert`, resumed by
 * gemini with what threadbase's Gemini context says it sends, and converted back: every turn before the
 * compaction comes back too, with its parts and usage, and the compaction still cuts what is sent.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToGeminiContents } from '../../src/formats/gemini/index.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Part, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { convertInto, copyFixture } from '../helpers/agent-fixtures.js';
import { readContext, readSession } from '../helpers/conversions.js';
import { type GeminiHome, resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';

/** test/fixtures/claude/older: the hand-written Claude Code 2.0 session with every kind of block */
const OLDER_ID = '11111111-1111-4111-8111-111111111111';
const OLDER_DIR = 'test/fixtures/claude/older/projects/-work-proj-a';
const PROBE = 'probe after the round trip';

let home: GeminiHome;
beforeAll(async () => {
  home = await setupGeminiHome();
  for (const f of [`${OLDER_ID}.jsonl`, 'agent-abcd1234.jsonl'])
    await copyFixture(home, join(OLDER_DIR, f), join('.claude/projects/-work-proj-a', f), '/work/proj.a');
});
afterAll(async () => {
  await home?.close();
});

/** Each message on the path as its role and parts (meta aside), split responses joined; other entries by kind. */
function conversation(s: Session): unknown[] {
  const out: { role?: string; responseId?: string; parts?: Part[]; kind?: string }[] = [];
  for (const e of pathToLeaf(s) as Entry[]) {
    // Gemini CLI's own session context, which its resume writes before the conversation (here before the compaction: unsent)
    const first = e.kind === 'message' ? e.message.parts[0] : undefined;
    if (e.kind === 'metadata' || (first?.type === 'text' && first.text.startsWith('<session_context>'))) continue;
    if (e.kind !== 'message') {
      out.push({ kind: e.kind });
      continue;
    }
    const parts = e.message.parts.map(
      ({ meta: _m, ...p }) => ({ ...p, ...(p.type === 'tool_result' && !p.isError ? { isError: undefined } : {}) }) as Part,
    );
    const last = out.at(-1);
    const { role, responseId } = e.message;
    if (last?.parts && ((responseId && last.responseId === responseId) || (role === 'tool' && last.role === 'tool')))
      last.parts.push(...parts);
    else out.push({ role, ...(responseId ? { responseId } : {}), parts });
  }
  return out;
}

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
    const back = await convertInto(home, written.id, 'gemini', 'claude');
    const read = await readSession(home, 'claude', back.id);
    const want = conversation(source);
    const got = conversation(read);
    expect(got.slice(0, want.length)).toEqual(want);
    expect(JSON.stringify(got.slice(want.length))).toContain(PROBE);
    // the source's requests are counted again, with the one gemini made
    const tokens = summarizeUsage(read.entries);
    const sourceTokens = summarizeUsage(source.entries.filter((e) => !e.sidechain));
    expect(tokens.responses).toBe(sourceTokens.responses + 1);
    expect(tokens.usage.cacheRead).toBe(sourceTokens.usage.cacheRead);
    expect(tokens.usage.cacheWrite).toBe(sourceTokens.usage.cacheWrite);
    // and Claude Code's context of the copy is cut by the compaction as the source's
    const ctx = await readContext(home, 'claude', back.id);
    expect(JSON.stringify(ctx.messages[0])).toContain('The user asked about cats');
  }, 180_000);
});
