/**
 * A user's message found among a response's results and a result of that response recorded after it, and the
 * real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in). Copilot CLI's
 * `delivery` says only when a message came (its schema: idle, steering, queued: "the timing axis only"); an
 * older Copilot CLI, or another writer, records none. Resumed, Copilot CLI sends each call's result recorded
 * after the message, whatever its delivery (none, idle) and even after the next response, in the call's
 * place, the message after the results: the message answers no call. threadbase reads it so: the words a
 * call still open there was answered in give way to its result (no call gets two).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import type { AnthropicBlock, AnthropicMessage } from '../helpers/anthropic-standin.js';
import {
  type CopilotHome,
  closeCopilotHome,
  plainTextResults,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  setupCopilotHome,
} from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

type Event = { type: string; data: Record<string, unknown>; id: string; timestamp: string; parentId: string | null };

let home: CopilotHome;
beforeAll(async () => {
  if (SKIP) return;
  home = await setupCopilotHome('tb-copilot-plain-');
});
afterAll(() => closeCopilotHome(home));

const call = (id: string, n: number) => ({ type: 'tool_call' as const, id, name: 'bash', input: { command: `echo ${n}` } });
const result = (id: string, text: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool_result', callId: id, content: text }],
});
const reply = (id: string, ...parts: Message['parts']): Message => ({
  role: 'assistant',
  responseId: id,
  model: 'claude-sonnet-4.5',
  parts,
});

/** each message sent as its role and its blocks in short */
const shape = (ms: readonly AnthropicMessage[]) =>
  ms.map((m) => [
    m.role,
    (m.content as AnthropicBlock[]).map((b) =>
      b.type === 'text'
        ? `text ${String(b.text)}`
        : b.type === 'tool_use'
          ? `use ${b.id}`
          : `result ${b.tool_use_id}: ${b.content}`,
    ),
  ]);

/** A response with two calls answered, as Copilot CLI records them, edited, as a new session in the home. */
async function recorded(edit: (events: Event[]) => Event[]): Promise<string> {
  const id = randomUUID();
  const base = chainSession('base', 'copilot', home.project, [
    ['u1', textMessage('user', 'go')],
    ['a1', reply('msg_r1', call('toolu_c1', 1), call('toolu_c2', 2))],
    ['t1', result('toolu_c1', 'out1')],
    ['t2', result('toolu_c2', 'out2')],
    ['a2', reply('msg_r2', { type: 'text', text: 'done' })],
  ]);
  const events = edit(encodeCopilotEvents(base, { sessionId: id }).records as unknown as Event[]);
  events.forEach((e, n) => {
    if (n > 0) e.parentId = (events[n - 1] as Event).id;
  });
  const dir = join(home.dir, '.copilot', 'session-state', id);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return id;
}

const event = (type: string, data: Record<string, unknown>): Event => ({
  type,
  data,
  id: randomUUID(),
  timestamp: '2026-01-01T00:00:30.000Z',
  parentId: null,
});
const userEvent = (content: string, delivery?: string) =>
  event('user.message', { content, transformedContent: content, messageId: randomUUID(), ...(delivery ? { delivery } : {}) });
const replyEvent = (content: string) =>
  event('assistant.message', { messageId: randomUUID(), apiCallId: `r-${randomUUID()}`, content, toolRequests: [] });
const completions = (events: Event[]) => events.flatMap((e, i) => (e.type === 'tool.execution_complete' ? [i] : []));

describe.skipIf(SKIP)("a user's message with a result recorded after it, and the real Copilot CLI", () => {
  it('answers no call: each call is sent with its real result, the message after them, as threadbase reads it', async () => {
    const cases: [string, (events: Event[]) => Event[], string[]][] = [
      [
        'plain between the results',
        (ev) => {
          ev.splice((completions(ev)[0] as number) + 1, 0, userEvent('plain between the results'));
          return ev;
        },
        ['text done'],
      ],
      [
        'plain before the results',
        (ev) => {
          ev.splice(completions(ev)[0] as number, 0, userEvent('plain before the results'));
          return ev;
        },
        ['text done'],
      ],
      [
        'idle between the results',
        (ev) => {
          ev.splice((completions(ev)[0] as number) + 1, 0, userEvent('idle between the results', 'idle'));
          return ev;
        },
        ['text done'],
      ],
      // a reply before the second result: the result still goes in its call's place
      [
        'plain, then a reply, then the result',
        (ev) => {
          ev.splice(
            (completions(ev)[0] as number) + 1,
            0,
            userEvent('plain, then a reply, then the result'),
            replyEvent('meanwhile'),
          );
          return ev;
        },
        ['text meanwhile', 'text done'],
      ],
    ];
    for (const [name, edit, last] of cases) {
      const id = await recorded(edit);
      const { sent, ours } = await resumedByCopilot(home, id, `probe ${name}`, plainTextResults);
      expect(shape(sent), name).toEqual([
        ['user', ['text go']],
        ['assistant', ['use toolu_c1', 'use toolu_c2']],
        ['user', ['result toolu_c1: out1', 'result toolu_c2: out2']],
        ['user', [`text ${name}`]],
        ['assistant', last],
      ]);
      expect(sent, name).toEqual(ours);
      // one result a call in the session read, not the interrupted words beside it
      const session = (await home.driver.getSession(id)) as Session;
      const results = buildContext(session).messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'));
      expect(
        results.map((p) => (p.type === 'tool_result' ? [p.callId, p.content] : [])),
        name,
      ).toEqual([
        ['toolu_c1', 'out1'],
        ['toolu_c2', 'out2'],
      ]);
    }
  }, 900_000);
});
