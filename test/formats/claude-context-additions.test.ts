/**
 * claudeContext sends Claude Code's hook output and plan-mode reminders (attachment records it renders
 * into its request) as the real 2.1.332 does (test/agents/claude-additions-context.test.ts): a `system`
 * message after the user turn they came with, SessionStart's (before the first prompt on the chain)
 * after that prompt, their rendered words unwrapped and joined by a blank line; the harness's own
 * additions (environment) left out. Records as the real binary wrote them, shortened.
 */
import { describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { claudeContext } from '../../src/formats/claude/driver.js';
import { claudeSentEntries } from '../../src/formats/claude/reminders.js';
import type { Entry, Message, Session } from '../../src/model/types.js';

const T = '2026-11-27T04:09:42.000Z';
const reminder = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`;
const SS = 'SessionStart hook additional context: SS-CONTEXT from hook';
const SS_PLAIN = 'SessionStart:startup hook success: PLAIN-SS from hook';
const PLAN = 'Plan mode is active. The user indicated that they do not want you to execute yet.';
const UPS = 'UserPromptSubmit hook additional context: UPS-CONTEXT from hook';

let n = 0;
const attachment = (type: string, rendered: string): Entry => {
  const id = `a${++n}`;
  return {
    kind: 'metadata',
    id,
    parentId: null,
    timestamp: T,
    type: 'attachment',
    data: { type },
    rawSource: 'claude',
    raw: { type: 'attachment', uuid: id, attachment: { type }, rendered: [{ content: rendered }], renderedRole: 'system' },
  };
};
const message = (role: Message['role'], text: string): Entry => ({
  kind: 'message',
  id: `m${++n}`,
  parentId: null,
  timestamp: T,
  rawSource: 'claude',
  message: { role, parts: [{ type: 'text', text }], ...(role === 'assistant' ? { responseId: `msg_${n}` } : {}) },
});

function session(entries: Entry[]): Session {
  const linked = entries.map((e, i) => ({ ...e, parentId: i === 0 ? null : (entries[i - 1] as Entry).id }));
  return {
    id: 's',
    source: 'claude',
    createdAt: T,
    updatedAt: T,
    entries: linked,
    leafId: linked.at(-1)?.id ?? null,
  } as Session;
}

const S = session([
  attachment('hook_success', reminder(SS_PLAIN)),
  attachment('hook_additional_context', reminder(SS)),
  message('user', 'hello there'),
  attachment('environment', reminder('# Environment\nYou have been invoked in the following environment: ')),
  attachment('plan_mode', reminder(PLAN)),
  attachment('hook_additional_context', reminder(UPS)),
  message('assistant', 'hi'),
  message('user', 'second prompt'),
  attachment('hook_additional_context', reminder(UPS)),
  message('assistant', 'ok'),
]);

const shape = (ms: readonly Message[]) =>
  ms.map((m) => [m.role, m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')]);

describe('claudeContext with hook output and plan mode', () => {
  it('sends them in a system message after their user turn, SessionStart’s after the first prompt', () => {
    expect(shape(claudeContext(S).messages)).toEqual([
      ['user', 'hello there'],
      ['system', [SS_PLAIN, SS, PLAN, UPS].join('\n\n')],
      ['assistant', 'hi'],
      ['user', 'second prompt'],
      ['system', UPS],
      ['assistant', 'ok'],
    ]);
  });

  it('leaves no mark of its own on the messages', () => {
    for (const m of claudeContext(S).messages) expect(JSON.stringify(m.meta ?? {})).not.toContain('claudeAdditionsAfter');
  });

  it('sends them after a chain that ends on the user’s turn, before Claude Code’s "No response requested."', () => {
    const open = session([message('user', 'only prompt'), attachment('hook_additional_context', reminder(UPS))]);
    expect(shape(claudeContext(open).messages)).toEqual([
      ['user', 'only prompt'],
      ['system', UPS],
      ['assistant', 'No response requested.'],
    ]);
  });
});

describe('claudeContext as a Messages API request (context --format anthropic)', () => {
  it('keeps those system messages among the messages, where Claude Code sends them, not in `system`', () => {
    const req = contextToAnthropic(claudeContext(S));
    expect(req.system ?? '').not.toContain('SS-CONTEXT');
    expect(req.messages.map((m) => [m.role, typeof m.content === 'string' ? m.content : 'blocks'])).toEqual([
      ['user', 'blocks'],
      ['system', [SS_PLAIN, SS, PLAN, UPS].join('\n\n')],
      ['assistant', 'blocks'],
      ['user', 'blocks'],
      ['system', UPS],
      ['assistant', 'blocks'],
    ]);
  });

  it('lifts another agent’s system messages into `system` as before', () => {
    const ctx = claudeContext(S);
    const req = contextToAnthropic({ ...ctx, anthropicLayout: {} });
    expect(req.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(req.system).toContain('UPS-CONTEXT');
  });
});

describe('the copy into another agent (claudeSentEntries)', () => {
  it('has SessionStart’s output after the first prompt, relinked as one chain', () => {
    const sent = claudeSentEntries(S.entries);
    expect(
      sent
        .map((e) => (e.kind === 'message' ? e.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : e.kind))
        .slice(0, 4),
    ).toEqual(['hello there', reminder(SS_PLAIN), reminder(SS), 'metadata']);
    expect(sent.map((e) => e.parentId)).toEqual(sent.map((_, i) => (i === 0 ? null : (sent[i - 1] as Entry).id)));
  });
});
