/**
 * The real qwen (0.24.4, `--auth-type anthropic` on the loopback stand-in) compressing a chat with
 * `/compress`: its `chat_compression` record keeps the history it resumes from (the summary as a user
 * turn, then its "Got it. Thanks for the additional context!" as a model turn). `threadbase context`
 * of the chat is the request qwen sends after compressing (the summary, the acknowledgement, the
 * next prompt), its own `<system-reminder>` texts aside; converted into Claude Code, the
 * acknowledgement still follows the summary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicBlock, type AnthropicMessage, textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { convertWith, newestSession, okProbeRule, readContext, readSession } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';

const SNAPSHOT = '<state_snapshot>Stand-in summary: apples were asked about.</state_snapshot>';
const ACK = 'Got it. Thanks for the additional context!';
const PROBE = 'probe after compress';

let home: AgentHome;
let chatId: string;

beforeAll(async () => {
  home = await setupQwenHome({
    rules: [
      // the compression's side query asks for a <state_snapshot>; every other turn is answered "ok: …"
      (req) =>
        textOf(req.messages.findLast((m) => m.role === 'user')).includes('<state_snapshot>')
          ? { text: `<analysis>stand-in analysis</analysis>\n${SNAPSHOT}` }
          : undefined,
      okProbeRule,
    ],
  });
  await runQwen(home, ['first question about apples']);
  chatId = (await newestSession(home, 'qwen')).id;
  expect(await runQwen(home, ['--resume', chatId, '/compress'])).toContain('Context compressed');
  await runQwen(home, ['--resume', chatId, PROBE]);
}, 240_000);
afterAll(async () => {
  await home?.close();
});

/** A message without Qwen Code's `<system-reminder>` texts and cache markers: the conversation it sent. */
function conversation(m: AnthropicMessage): AnthropicMessage {
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  const content = blocks.filter((b) => !isQwenReminder(b)).map(({ cache_control: _c, ...b }): AnthropicBlock => b);
  return { role: m.role, content };
}

describe('a chat the real qwen compressed with /compress', () => {
  it('is read as a compaction whose summary is the first turn of the history qwen resumes from', async () => {
    const chat = await readSession(home, 'qwen', chatId);
    const compaction = chat.entries.find((e) => e.kind === 'compaction');
    expect(compaction?.kind === 'compaction' && compaction.summary.startsWith(SNAPSHOT)).toBe(true);
    expect(compaction?.kind === 'compaction' && compaction.summary).not.toContain(ACK);
  });

  it('threadbase context is the request qwen sent after compressing', async () => {
    const sent = requestEndingWith(home, PROBE).messages.map(conversation);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const ctx = JSON.parse(await runCliOk(home.env, ['context', chatId, '--format', 'anthropic', '--json'])) as {
      messages: AnthropicMessage[];
    };
    // the context at the leaf holds qwen's answer to the probe after what it sent
    expect(ctx.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: `ok: ${PROBE}` }] });
    expect(ctx.messages.slice(0, -1).map(conversation)).toEqual(sent);
  });

  it('converted into Claude Code: the acknowledgement follows the summary, then the probe', async () => {
    const back = await convertWith(home, chatId, 'qwen', 'claude');
    const texts = (await readContext(home, 'claude', back.id)).messages.map((m) =>
      m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'),
    );
    const ack = texts.indexOf(ACK);
    expect(ack, JSON.stringify(texts)).toBeGreaterThan(0);
    expect(texts[ack - 1]).toContain(SNAPSHOT);
    expect(texts[ack + 1]).toBe(PROBE);
  });
});
