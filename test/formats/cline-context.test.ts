/**
 * The context of a Cline session is what Cline CLI 3.0.65 sends: its message builder cuts each tool
 * result's text past 8,000 characters in the middle (`...[truncated N chars]...`, the marker counted
 * in the 8,000), strings in its own tools' JSON one by one, a user's file past 50,000. The real cline
 * proves it in test/agents/cline-truncation.test.ts; here the exact cut, and that it is Cline's alone.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { resumeContextOf } from '../../src/model/resume.js';
import type { Message, Part, ToolResultPart } from '../../src/model/types.js';
import { chainSession, ONE_PIXEL_PNG } from '../helpers/sessions.js';

const long = (n: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
const big = long(10_000);
/** 10,000 characters cut to 8,000: 3,984 of the head and of the tail around the 32 of the marker. */
const cut = `${big.slice(0, 3984)}\n\n...[truncated 2032 chars]...\n\n${big.slice(-3984)}`;

function sessionWith(source: string, result: ToolResultPart, extra: Part[] = []): ReturnType<typeof chainSession> {
  const call: Message = {
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    parts: [{ type: 'tool_call', id: 'c1', name: 'read_files', input: { path: 'a.txt' } }],
  };
  return chainSession('s', source, '/p', [
    ['u', { role: 'user', parts: [{ type: 'text', text: 'read a.txt' }, ...extra] }],
    ['a', call],
    ['r', { role: 'tool', parts: [result] }],
  ]);
}

const contextOf = (source: string, result: ToolResultPart, extra: Part[] = []) => {
  const build = resumeContextOf(source);
  if (!build) throw new Error(`no context of ${source}`);
  return build(sessionWith(source, result, extra)).messages;
};
const resultOf = (messages: Message[]) => messages.at(-1)?.parts[0] as ToolResultPart;

describe("a Cline session's context cuts long tool results as Cline does", () => {
  it('a string result: head and tail around the marker, 8,000 characters in all', () => {
    const sent = resultOf(contextOf('cline', { type: 'tool_result', callId: 'c1', content: big }));
    expect(sent.content).toBe(cut);
    expect(cut).toHaveLength(8000);
    const short = resultOf(contextOf('cline', { type: 'tool_result', callId: 'c1', content: long(8000) }));
    expect(short.content).toBe(long(8000));
  });

  it('each text block of a result on its own; its own tools’ JSON string by string, sent as its JSON text', () => {
    const blocks = resultOf(
      contextOf('cline', {
        type: 'tool_result',
        callId: 'c1',
        content: [
          { type: 'text', text: big },
          { type: 'text', text: 'short' },
        ],
      }),
    );
    expect(blocks.content).toEqual([
      { type: 'text', text: cut },
      { type: 'text', text: 'short' },
    ]);
    const value = [{ query: 'a.txt', result: big, success: true }];
    const json = resultOf(
      contextOf('cline', { type: 'tool_result', callId: 'c1', content: JSON.stringify(value), meta: { clineContent: value } }),
    );
    expect(json.content).toBe(JSON.stringify([{ query: 'a.txt', result: cut, success: true }]));
  });

  it('a file the user attached is cut past 50,000 characters (the marker one longer, one under)', () => {
    const text = long(60_000);
    const [first] = contextOf('cline', { type: 'tool_result', callId: 'c1', content: 'ok' }, [
      { type: 'file', mediaType: 'text/plain', text, name: 'f.txt' },
    ]);
    // sent as its text in Cline's tag (clineContext's sentPart), the cut made on the file's text first
    const file = first?.parts[1];
    const sent =
      file?.type === 'text' ? /^<file_content path="f.txt">\n([\s\S]*)\n<\/file_content>$/.exec(file.text)?.[1] : undefined;
    expect(sent).toMatch(/^a[\s\S]*\n\n\.\.\.\[truncated 10034 chars\]\.\.\.\n\n[\s\S]*$/);
    expect(sent?.length).toBe(49_999);
  });

  it('an assistant text repeating tool-call markup 8 times is cut past 12,000 characters, else past 200,000', () => {
    const answer = (times: number) => `${'<invoke name="read">x</invoke>'.repeat(times)}${long(13_000)}`;
    const textOf = (source: string, text: string) => {
      const build = resumeContextOf(source);
      const s = chainSession('s', source, '/p', [
        ['u', { role: 'user', parts: [{ type: 'text', text: 'go' }] }],
        ['a', { role: 'assistant', model: 'claude-sonnet-4-5', parts: [{ type: 'text', text }] }],
      ]);
      const part = build?.(s).messages[1]?.parts[0];
      return part?.type === 'text' ? part.text : undefined;
    };
    // 4 opening and 4 closing tags: 8
    const cut = textOf('cline', answer(4));
    expect(cut).toMatch(/\n\n\.\.\.\[assistant text truncated: omitted \d+ chars due to repeated tool-call markup\]\.\.\.\n\n/);
    expect(cut?.length).toBeLessThanOrEqual(12_000);
    expect(cut?.startsWith('<invoke name="read">x</invoke>')).toBe(true);
    // 6: sent whole
    expect(textOf('cline', answer(3))).toBe(answer(3));
  });

  it("a call no message answers gets Cline's error result, after the results of its turn or on its own", () => {
    const build = resumeContextOf('cline');
    const s = chainSession('s', 'cline', '/p', [
      ['u', { role: 'user', parts: [{ type: 'text', text: 'go' }] }],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [
            { type: 'tool_call', id: 'c1', name: 'read_files', input: {} },
            { type: 'tool_call', id: 'c2', name: 'run_commands', input: {} },
          ],
        },
      ],
      ['r', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: 'ok' }] }],
      [
        'b',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'c3', name: 'read_files', input: {} }],
        },
      ],
      ['c', { role: 'assistant', model: 'claude-sonnet-4-5', parts: [{ type: 'text', text: 'done' }] }],
    ]);
    const missing = (name: string) =>
      JSON.stringify([{ type: 'text', text: `Tool execution was interrupted before a result was produced. Tool: ${name}.` }]);
    const messages = build?.(s).messages ?? [];
    expect(
      messages.map((m) => [m.role, m.parts.map((p) => (p.type === 'tool_result' ? `${p.callId}:${p.content}` : p.type))]),
    ).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_call', 'tool_call']],
      ['tool', ['c1:ok', `c2:${missing('run_commands')}`]],
      ['assistant', ['tool_call']],
      ['tool', [`c3:${missing('read_files')}`]],
      ['assistant', ['text']],
    ]);
    // an interrupted call, as Cline's words say (a refusal's, a run's abort's are read so already): cancelled, an error as sent
    const made = messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' && p.callId !== 'c1' ? [p] : [])));
    expect(made.map((p) => [p.callId, p.isError, p.meta])).toEqual([
      ['c2', true, { cancelled: true, clineInterrupted: true }],
      ['c3', true, { cancelled: true, clineInterrupted: true }],
    ]);
  });

  it("another agent's session keeps its result whole", () => {
    const sent = resultOf(contextOf('pi', { type: 'tool_result', callId: 'c1', content: big }));
    expect(sent.content).toBe(big);
  });
});

/**
 * What Cline's provider layer (@cline/llms) makes of its blocks when it sends them; the real cline
 * resuming a converted Claude Code session sends the same (test/agents/cline-kilo-rich-copy.test.ts).
 */
describe("a Cline session's context is what Cline's provider layer sends of its blocks", () => {
  const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
  const doc = { type: 'file' as const, mediaType: 'text/plain', text: 'file text', name: 'a.txt' };

  it("a user's plain-text file as its text in Cline's <file_content> tag", () => {
    const [first] = contextOf('cline', { type: 'tool_result', callId: 'c1', content: 'ok' }, [doc]);
    expect(first?.parts[1]).toEqual({ type: 'text', text: '<file_content path="a.txt">\nfile text\n</file_content>' });
  });

  it('a successful result with a file block: its blocks as their JSON text, its images after it as blocks', () => {
    const result = (content: ToolResultPart['content']) =>
      resultOf(contextOf('cline', { type: 'tool_result', callId: 'c1', content })).content;
    expect(result([{ type: 'text', text: 'listed' }, doc])).toBe(
      JSON.stringify([
        { type: 'text', text: 'listed' },
        { type: 'file', path: 'a.txt', content: 'file text' },
      ]),
    );
    // with an image, each text its bare text and the images taken out after the JSON
    expect(result([{ type: 'text', text: 'listed' }, doc, png])).toEqual([
      { type: 'text', text: JSON.stringify(['listed', { type: 'file', path: 'a.txt', content: 'file text' }]) },
      png,
    ]);
    // texts and images alone go as blocks
    expect(result([{ type: 'text', text: 'listed' }, png])).toEqual([{ type: 'text', text: 'listed' }, png]);
  });

  it('redacted thinking and thinking without a signature are left out, signed thinking sent', () => {
    const build = resumeContextOf('cline');
    const s = chainSession('s', 'cline', '/p', [
      ['u', { role: 'user', parts: [{ type: 'text', text: 'go' }] }],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [
            { type: 'redacted_thinking', data: 'ENCRYPTED' },
            { type: 'thinking', thinking: 'unsigned' },
            { type: 'thinking', thinking: 'signed', signature: 'sig' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    ]);
    expect(build?.(s).messages[1]?.parts).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 'sig' },
      { type: 'text', text: 'done' },
    ]);
  });
});
