/**
 * A reply of only thinking Cline does not send (redacted, or without a signature): Cline CLI 3.0.65 still
 * sends its turn, as an assistant message with no content (`content: []`; consecutive assistant messages
 * merged into one turn first), so threadbase's context of a Cline session has it too. The Messages API
 * refuses such a message, so threadbase writes another agent's reply of unsigned thinking only as text,
 * which Cline sends, read back as thinking. The real cline: test/agents/cline-rewrites.test.ts.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { resumeContextOf } from '../../src/model/resume.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession } from '../helpers/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const reply = (parts: Message['parts']): Message => ({ role: 'assistant', model: MODEL, parts });

const conversation: [string, Message][] = [
  ['u1', user('q1')],
  ['a1', reply([{ type: 'thinking', thinking: 'unsigned only' }])],
  ['u2', user('q2')],
  ['a2', reply([{ type: 'redacted_thinking', data: 'ENCRYPTED' }])],
  ['u3', user('q3')],
  // a turn of two messages: the thinking one merged into the text one, not sent empty
  ['a3', reply([{ type: 'thinking', thinking: 'before a text' }])],
  ['a3b', reply([{ type: 'text', text: 'after the thinking' }])],
  ['u4', user('q4')],
  ['a4', reply([{ type: 'thinking', thinking: '  ' }])],
  ['u5', user('q5')],
];

/** `threadbase context <id> --format anthropic` of a session as its agent sends it. */
function sentOf(session: Session) {
  const build = resumeContextOf('cline');
  if (!build) throw new Error('no context of cline');
  return contextToAnthropic(build(session)).messages;
}

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

async function writtenIntoCline(session: Session) {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-thinking-'));
  homes.push(home);
  const driver = new ClineDriver({ home, env: {} });
  const info = await driver.writeSession(session);
  const doc = JSON.parse(await fs.readFile(info.path as string, 'utf8')) as {
    messages: { id: string; content: Record<string, unknown>[] }[];
  };
  return { doc, back: (await driver.getSession(info.id)) as Session };
}

describe("a Cline session's reply of only thinking Cline does not send", () => {
  it('is in the context as Cline sends it: an assistant message with no content', () => {
    expect(sentOf(chainSession('s', 'cline', '/p', conversation))).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q1' }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'q3' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'after the thinking' }] },
      { role: 'user', content: [{ type: 'text', text: 'q4' }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'q5' }] },
    ]);
  });
});

describe("another agent's reply of unsigned thinking only, written into Cline", () => {
  it('is written as text, which Cline sends; read back as thinking, the rest as it was', async () => {
    const original = chainSession('s', 'claude', '/p', conversation);
    const { doc, back } = await writtenIntoCline(original);
    const blocks = (id: string) =>
      doc.messages.find((m) => m.id === id)?.content.map(({ type, text, thinking }) => ({ type, text, thinking }));
    expect(blocks('a1')).toEqual([{ type: 'text', text: 'unsigned only', thinking: undefined }]);
    // thinking beside a text of its turn, redacted or blank thinking: nothing to write as text
    expect(blocks('a3')).toEqual([{ type: 'thinking', text: undefined, thinking: 'before a text' }]);
    expect(blocks('a4')).toEqual([{ type: 'thinking', text: undefined, thinking: '  ' }]);
    expect(doc.messages.find((m) => m.id === 'a2')?.content).toEqual([{ type: 'redacted_thinking', data: 'ENCRYPTED' }]);

    const parts = (s: Session, id: string) => s.entries.find((e) => e.id === id && e.kind === 'message');
    expect(parts(back, 'a1')).toMatchObject({
      message: { parts: [{ type: 'thinking', thinking: 'unsigned only', meta: { sentAsText: true } }] },
    });
    for (const id of ['a2', 'a3', 'a3b', 'a4'])
      expect(parts(back, id)).toMatchObject({ message: { parts: (parts(original, id) as { message: Message }).message.parts } });
    expect(JSON.stringify(back.entries)).not.toContain('"sentAsText":false');

    expect(sentOf(back).slice(0, 4)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q1' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'unsigned only' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      { role: 'assistant', content: [] },
    ]);
  });

  it('a mark of thinking sent as text carried from another agent is not kept where Cline gets it as thinking', async () => {
    const marked = conversation.map(([id, m]): [string, Message] =>
      id === 'a3' ? [id, reply([{ type: 'thinking', thinking: 'before a text', meta: { sentAsText: true } }])] : [id, m],
    );
    const { back } = await writtenIntoCline(chainSession('s', 'opencode', '/p', marked));
    const a3 = back.entries.find((e) => e.id === 'a3');
    expect(a3?.kind === 'message' && a3.message.parts).toEqual([{ type: 'thinking', thinking: 'before a text' }]);
    expect(sentOf(back)[5]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'after the thinking' }] });
  });
});
