/** The warnings for what each target cannot keep (src/convert/losses.ts and each agent's losses.ts, the table in CONVERT.md). */
import { describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import { sessionAlongPath } from '../../src/convert/session.js';
import { SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
// each agent registers what it loses
import '../../src/formats/all.js';
import type { Entry, Session } from '../../src/model/types.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 5, 0, 0, s)).toISOString();

function lossy(source: string): Session {
  const entries: Entry[] = [
    {
      kind: 'model_change',
      id: 'mc',
      parentId: null,
      timestamp: t(0),
      model: 'gpt-5',
      provider: 'openai',
      thinkingLevel: 'high',
    },
    messageEntry('s', 'mc', t(1), textMessage('system', 'be brief')),
    messageEntry('u', 's', t(2), {
      role: 'user',
      parts: [{ type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' }],
    }),
    messageEntry('a', 'u', t(3), {
      role: 'assistant',
      model: 'gpt-5',
      provider: 'openai',
      cost: 0.02,
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 9, cacheWrite1h: 6, reasoning: 7, speed: 'fast', webSearches: 1 },
      parts: [
        { type: 'thinking', thinking: 'plain reasoning' },
        { type: 'thinking', thinking: 'signed', signature: 'c2ln' },
        { type: 'text', text: 'hi' },
      ],
    }),
    { kind: 'label', id: 'l', parentId: 'a', timestamp: t(4), targetId: 'a', label: 'good' },
    { kind: 'metadata', id: 'm', parentId: 'l', timestamp: t(5), type: 'snapshot', rawSource: source },
  ];
  return { id: 'x', source, createdAt: t(0), updatedAt: t(5), messageCount: 3, entries };
}

describe('conversionLosses', () => {
  it('Claude Code: cost, provider, unsigned thinking, settings, labels, metadata; reasoning tokens and 1-hour cache writes kept (system messages: the encoder says them)', () => {
    const w = conversionLosses(lossy('codex'), 'claude').join('\n');
    expect(w).toMatch(/codex:x → claude: Claude Code records no cost per message.*\(1\)/);
    expect(w).toMatch(/providers openai dropped/);
    expect(w).toMatch(
      /unsigned thinking written as text \(Claude Code replays only signed thinking; kept as thinking .*\) \(1\)/,
    );
    expect(w).toMatch(/leaves it out when resumed with another model \(resume with --model gpt-5\) \(1\)/);
    expect(w).not.toMatch(/reasoning token|cache write|fast mode/);
    expect(w).not.toMatch(/system message/);
    expect(w).toMatch(/model\/thinking-level changes.*\(1\)/);
    expect(w).toMatch(/labels.*\(1\)/);
    expect(w).toMatch(/metadata records.*\(1\)/);
  });

  it('pi: thinking replayed as text by another model; token counts and price terms kept (images by URL and system messages: the encoder says them)', () => {
    const w = conversionLosses(lossy('codex'), 'pi').join('\n');
    expect(w).toMatch(/pi replays it as thinking only to the model that recorded it, to another model as plain text \(2\)/);
    // kept in a usage field pi ignores
    expect(w).not.toMatch(/reasoning token|cache-write|fast mode/);
    expect(w).not.toMatch(/by URL|system messages/);
    expect(w).not.toMatch(/cost/);
    expect(w).not.toMatch(/labels/);
  });

  it('OpenCode: thinking replayed as text, unsigned thinking not sent, settings, labels, metadata; cost, token counts and price terms kept (system messages: the encoder says them)', () => {
    const w = conversionLosses(lossy('codex'), 'opencode').join('\n');
    // the signed thinking; the plain reasoning (no signature, no encrypted content) the AI SDK drops on its model
    expect(w).toMatch(/OpenCode replays reasoning recorded by another model as plain text \(1\)/);
    expect(w).toMatch(/thinking without a signature \(another agent's\) is kept, but OpenCode does not send it .*\(1\)/);
    expect(w).not.toMatch(/system message/);
    expect(w).toMatch(/labels have no OpenCode record/);
    // kept in a tokens field OpenCode ignores
    expect(w).not.toMatch(/cost|reasoning token|cache-write|fast mode/);
  });

  it('OpenCode, Kilo CLI: reasoning OpenCode sends (encrypted content) is not said to be dropped; blank thinking is not counted', () => {
    const s = lossy('codex');
    const a = s.entries.find((e) => e.id === 'a');
    if (a?.kind !== 'message') throw new Error('no reply');
    a.message.parts = [
      { type: 'thinking', thinking: 'encrypted reasoning', meta: { encryptedContent: 'gAAA' } },
      { type: 'thinking', thinking: '  ' },
      { type: 'text', text: 'hi' },
    ];
    for (const [target, label] of [
      ['opencode', 'OpenCode'],
      ['kilo', 'Kilo CLI'],
    ] as const) {
      const w = conversionLosses(s, target).join('\n');
      expect(w).toMatch(new RegExp(`${label} replays reasoning recorded by another model as plain text \\(1\\)`));
      expect(w).not.toMatch(/does not send it/);
    }
  });

  it('Codex: thinking of other models not sent, redacted thinking, cost, images in answers, files, settings, labels, metadata; token counts and price terms kept', () => {
    const session = lossy('claude');
    const answer = session.entries.find((e) => e.id === 'a');
    if (answer?.kind !== 'message') throw new Error('no answer');
    answer.message.parts.push(
      { type: 'redacted_thinking', data: 'b3BhcXVl' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' },
      { type: 'file', mediaType: 'application/pdf', name: 'a.pdf', data: 'JVBERi0=' },
    );
    const w = conversionLosses(session, 'codex').join('\n');
    expect(w).toMatch(/claude:x → codex: another model's thinking is kept in the rollout.*sends only OpenAI reasoning.*\(2\)/);
    expect(w).toMatch(/redacted thinking has no codex form; kept in the rollout .* but not sent to the model \(1\)/);
    expect(w).toMatch(/codex records no cost per message.*\(1\)/);
    expect(w).toMatch(/images in assistant messages have no Responses item; written as a text note \(1\)/);
    expect(w).toMatch(/non-text files have no codex form; written as a text note \(1\)/);
    expect(w).toMatch(/model\/thinking-level changes have no codex record; left out \(1\)/);
    expect(w).toMatch(/labels have no codex record; left out \(1\)/);
    expect(w).toMatch(/metadata records have no codex form; left out \(1\)/);
    // kept: usage in codex's own fields and a field it ignores; system messages as developer messages
    expect(w).not.toMatch(/reasoning token|cache-write|fast mode|system message/);
    // OpenAI reasoning (codex's own API) is sent back: no warning for it
    answer.message.api = 'openai-responses';
    answer.message.parts = answer.message.parts.filter((p) => p.type !== 'redacted_thinking');
    expect(conversionLosses(session, 'codex').join('\n')).not.toMatch(/thinking is kept|redacted thinking/);
  });

  it("a codex compaction's kept messages: written after the summary in Claude Code, pi and OpenCode (warned), before it in codex", () => {
    const env = '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>';
    const item = (role: string, text: string) => ({ type: 'message', role, content: [{ type: 'input_text', text }] });
    const said = (id: string, parentId: string | null, s: number, role: 'user' | 'assistant', text: string): Entry => ({
      ...messageEntry(id, parentId, t(s), textMessage(role, text)),
      rawSource: 'codex',
      raw: {},
    });
    const summary = `${SUMMARY_PREFIX}\nSUMMARY`;
    const codex: Session = {
      id: 'cx',
      source: 'codex',
      createdAt: t(0),
      updatedAt: t(5),
      messageCount: 4,
      entries: [
        said('u1', null, 1, 'user', 'first question'),
        said('a1', 'u1', 2, 'assistant', 'first answer'),
        {
          kind: 'compaction',
          id: 'c',
          parentId: 'a1',
          timestamp: t(3),
          summary: 'SUMMARY',
          rawSource: 'codex',
          raw: {
            timestamp: t(3),
            type: 'compacted',
            payload: {
              message: summary,
              replacement_history: [
                item('developer', 'rules'),
                item('user', env),
                item('user', 'first question'),
                item('user', summary),
              ],
            },
          },
        },
        said('u2', 'c', 4, 'user', 'second question'),
        said('a2', 'u2', 5, 'assistant', 'second answer'),
      ],
    };
    const warning =
      /codex:cx → (claude|pi|opencode): messages codex's compaction kept .* are written after \1's compaction summary, so \1 sends them after it \(codex sent them before its summary\) \(2\)/;
    for (const to of ['claude', 'pi', 'opencode'])
      expect(conversionLosses(sessionAlongPath(codex, undefined, to), to).join('\n'), to).toMatch(warning);
    // codex puts them back before its summary; a copy within codex keeps its own record
    expect(conversionLosses(sessionAlongPath(codex, undefined, 'codex'), 'codex').join('\n')).not.toMatch(/compaction kept/);
    // a codex session without a compaction: nothing to say
    const plain = { ...codex, entries: codex.entries.filter((e) => e.kind === 'message' && e.id.endsWith('1')) };
    expect(conversionLosses(sessionAlongPath(plain, undefined, 'claude'), 'claude').join('\n')).not.toMatch(/compaction kept/);
  });

  it("a copy within one agent loses nothing of the agent's own records", () => {
    const own = lossy('claude');
    for (const e of own.entries) {
      e.rawSource = 'claude';
      e.raw = {};
    }
    expect(conversionLosses(own, 'claude')).toEqual([]);
  });
});
