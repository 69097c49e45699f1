/**
 * Claude Code → Qwen Code → Claude Code with the real `qwen` (0.24.4, on the loopback Anthropic stand-in)
 * in between: a compacted Claude Code session (signed and redacted thinking, a user image, a PDF, a Task
 * call run by a sub-agent, cache tokens, a compaction) converted with `threadbase convert`, resumed by
 * qwen with what threadbase's context says it sends (Qwen Code's own reminders aside), and converted
 * back: every turn comes back with its parts and usage, and the compaction still cuts what is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertInto } from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { conversationOf } from '../helpers/anthropic-standin.js';
import { copyOlderClaudeSession, expectBackInClaude, OLDER_ID } from '../helpers/claude-round-trip.js';
import { okProbeRule, readContext, readSession } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';

const PROBE = 'probe after the round trip';

let home: AgentHome;
beforeAll(async () => {
  home = await setupQwenHome({ rules: [okProbeRule] });
  await copyOlderClaudeSession(home);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

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

    await expectBackInClaude(home, source, written.id, 'qwen', PROBE);
  }, 180_000);
});
