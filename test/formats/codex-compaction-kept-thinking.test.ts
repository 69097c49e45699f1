/**
 * Claude Code's compaction (/compact) keeps the last reply in its preserved segment, and a reply's
 * signed thinking is a record of its own before the record of its text (one message each in
 * threadbase). Written into codex, that thinking is kept beside the items of the compaction's
 * replacement history (codex has no item for another provider's thinking) and read back onto the
 * kept reply, so Claude Code sends it again when it resumes the copy converted back; a thinking-only
 * reply kept before a user's message, or last, comes back as that reply. Codex sends none of it.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexContext, contextToResponses, encodeRollout, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { Entry, Message, Part, Session } from '../../src/model/types.js';
import { itemText } from '../helpers/openai-responses-standin.js';
import { messageEntry, secondInto2026 as t, textMessage } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const MODEL = 'claude-opus-4-5';
/** One record of a Claude Code response: its thinking, or its text. */
const thought = (thinking: string, n: number): Message => ({
  role: 'assistant',
  model: MODEL,
  responseId: `msg_${n}`,
  parts: [{ type: 'thinking', thinking, signature: `sig-${n}` }],
});
const said = (text: string, n: number): Message => textMessage('assistant', text, { model: MODEL, responseId: `msg_${n}` });

/** A Claude Code session: `kept` (entries k1…) after the first turn, then /compact keeping them from k1, then a turn. */
function compactedSession(kept: Message[]): Session {
  const entries: Entry[] = [
    messageEntry('u1', null, 1, textMessage('user', 'first question')),
    messageEntry('a1', 'u1', 2, said('first answer', 1)),
  ];
  kept.forEach((m, i) => {
    entries.push(messageEntry(`k${i + 1}`, entries.at(-1)?.id ?? null, 3 + i, m));
  });
  const last = entries.at(-1)?.id ?? null;
  entries.push(
    { kind: 'compaction', id: 'c', parentId: last, timestamp: t(20), summary: 'SUMMARY', firstKeptEntryId: 'k1' },
    messageEntry('u9', 'c', 21, textMessage('user', 'after compact')),
    messageEntry('a9', 'u9', 22, said('later answer', 9)),
  );
  return { id: 'claude-kept', source: 'claude', project: '/w', createdAt: t(1), updatedAt: t(22), messageCount: 0, entries };
}

/** `s` written into codex and read back: the messages its context keeps after the summary, as parts, and what codex sends. */
async function throughCodex(s: Session) {
  const { lines } = encodeRollout(s, '01a20600-0000-7000-8000-0000000071a1');
  const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-kept-thinking-'));
  temps.push(dir);
  const file = join(dir, 'rollout-2026-01-01T00-00-00-01a20600-0000-7000-8000-0000000071a1.jsonl');
  await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const ctx = codexContext(await readRollout(file));
  const kept = ctx.messages.filter((m) => m.meta?.compactionReplacement === true && m.meta.compactionSummary !== true);
  const view = (p: Part) =>
    p.type === 'thinking' ? { thinking: p.thinking, signature: p.signature } : p.type === 'text' ? p.text : p.type;
  return {
    kept: kept.map((m) => ({ role: m.role, model: m.model, parts: m.parts.map(view) })),
    sent: contextToResponses(ctx).input,
  };
}

describe("codex: signed thinking Claude Code's compaction kept", () => {
  it("a reply's thinking in a record of its own before its text is kept with the reply", async () => {
    const { kept, sent } = await throughCodex(
      compactedSession([textMessage('user', 'second question'), thought('Thinking on it.', 2), said('second answer', 2)]),
    );
    expect(kept).toEqual([
      { role: 'user', model: undefined, parts: ['second question'] },
      { role: 'assistant', model: MODEL, parts: [{ thinking: 'Thinking on it.', signature: 'sig-2' }, 'second answer'] },
    ]);
    // codex sends the kept reply's text alone, and no field of threadbase's own
    expect(sent.map((i) => itemText(i))).toEqual([
      `${SUMMARY_PREFIX}\nSUMMARY`,
      'second question',
      'second answer',
      'after compact',
      'later answer',
    ]);
    expect(JSON.stringify(sent)).not.toContain('threadbase');
    expect(JSON.stringify(sent)).not.toContain('Thinking on it.');
  });

  it('a thinking-only reply kept before a prompt, and one kept last, stay replies where they were', async () => {
    const { kept, sent } = await throughCodex(
      compactedSession([
        said('second answer', 2),
        thought('Only thinking.', 3),
        textMessage('user', 'THINKONLY again'),
        thought('Last thought.', 4),
      ]),
    );
    expect(kept).toEqual([
      { role: 'assistant', model: MODEL, parts: ['second answer'] },
      { role: 'assistant', model: MODEL, parts: [{ thinking: 'Only thinking.', signature: 'sig-3' }] },
      { role: 'user', model: undefined, parts: ['THINKONLY again'] },
      { role: 'assistant', model: MODEL, parts: [{ thinking: 'Last thought.', signature: 'sig-4' }] },
    ]);
    expect(sent.map((i) => itemText(i))).toEqual([
      `${SUMMARY_PREFIX}\nSUMMARY`,
      'second answer',
      'THINKONLY again',
      'after compact',
      'later answer',
    ]);
    expect(JSON.stringify(sent)).not.toContain('threadbase');
  });
});
