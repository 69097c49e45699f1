/**
 * Claude Code → Qwen Code → Claude Code with the real `qwen` (0.24.4, on the loopback Anthropic stand-in)
 * in between: a compacted Claude Code session (signed and redacted thinking, a user image, a PDF, a Task
 * call run by a sub-agent, cache tokens, a compaction) converted with `threadbase convert`, resumed by
 * qwen with what threadbase's context says it sends (Qwen Code's own reminders aside), and converted
 * back: every turn comes back with its parts and usage, and the compaction still cuts what is sent.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Part, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { convertInto, copyFixture } from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, readSession } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';

/** test/fixtures/claude/older: the hand-written Claude Code 2.0 session with every kind of block */
const OLDER_ID = '11111111-1111-4111-8111-111111111111';
const OLDER_DIR = 'test/fixtures/claude/older/projects/-work-proj-a';
const PROBE = 'probe after the round trip';

let home: AgentHome;
beforeAll(async () => {
  home = await setupQwenHome({ rules: [okProbeRule] });
  for (const f of [`${OLDER_ID}.jsonl`, 'agent-abcd1234.jsonl'])
    await copyFixture(home, join(OLDER_DIR, f), join('.claude/projects/-work-proj-a', f), '/work/proj.a');
}, 60_000);
afterAll(async () => {
  await home?.close();
});

/** Each message on the path as its role and parts (meta aside), split responses joined; other entries by kind. */
function conversation(s: Session): unknown[] {
  const out: { role?: string; responseId?: string; parts?: Part[]; kind?: string }[] = [];
  for (const e of pathToLeaf(s)) {
    if (e.kind === 'metadata') continue;
    if (e.kind !== 'message') {
      out.push({ kind: e.kind });
      continue;
    }
    const parts = e.message.parts.map(({ meta: _m, ...p }) => p as Part);
    const last = out.at(-1);
    const { role, responseId } = e.message;
    if (last?.parts && ((responseId && last.responseId === responseId) || (role === 'tool' && last.role === 'tool')))
      last.parts.push(...parts);
    else out.push({ role, ...(responseId ? { responseId } : {}), parts });
  }
  return out;
}

describe('a compacted Claude Code session through Qwen Code and back', () => {
  it('is resumed by the real qwen as threadbase says, and comes back with every turn and its tokens', async () => {
    const source = await readSession(home, 'claude', OLDER_ID);
    const written = await convertInto(home, OLDER_ID, 'claude', 'qwen');
    const ours = conversationOf(contextToAnthropic(await readContext(home, 'qwen', written.id)).messages);
    await runQwen(home, ['--resume', written.id, PROBE]);
    const sent = conversationOf(requestEndingWith(home, PROBE).messages.slice(0, -1))
      .map((m) => ({ ...m, content: m.content.filter((b) => !isQwenReminder(b)) }))
      .filter((m) => m.content.length > 0);
    expect(sent).toEqual(ours);
    // the compaction cuts what is sent: its summary first, nothing from before it
    expect(JSON.stringify(sent[0])).toContain('The user asked about cats');
    expect(JSON.stringify(sent)).not.toContain('What is in this image?');

    const back = await convertInto(home, written.id, 'qwen', 'claude');
    const read = await readSession(home, 'claude', back.id);
    const want = conversation(source);
    const got = conversation(read);
    expect(got.slice(0, want.length)).toEqual(want);
    expect(JSON.stringify(got.slice(want.length))).toContain(PROBE);
    const tokens = summarizeUsage(read.entries);
    const sourceTokens = summarizeUsage(source.entries.filter((e) => !e.sidechain));
    expect(tokens.responses).toBe(sourceTokens.responses + 1);
    expect(tokens.usage.cacheRead).toBe(sourceTokens.usage.cacheRead);
    expect(tokens.usage.cacheWrite).toBe(sourceTokens.usage.cacheWrite);
    const ctx = await readContext(home, 'claude', back.id);
    expect(JSON.stringify(ctx.messages[0])).toContain('The user asked about cats');
  }, 180_000);
});
