/**
 * Two more things Cline CLI 3.0.65 does to a session when it sends it (@cline/core 0.0.86 MessageBuilder,
 * @cline/llms): a file read again later is replaced in the earlier read's result by
 * `[outdated - see the latest file content]` once all such replacements save 64 KiB (counted as sent:
 * each entry's strings already cut to 8,000), and an error result's blocks go as their JSON text.
 * The real cline proves both in test/agents/cline-rewrites.test.ts.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { resumeContextOf } from '../../src/model/resume.js';
import type { Message, ToolResultPart } from '../../src/model/types.js';
import { chainSession, toolResultsIn } from '../helpers/sessions.js';

const OUTDATED = '[outdated - see the latest file content]';
const big = 'x'.repeat(10_000);

/** A read_files call and Cline's JSON answer for each query, one turn each. */
function readsSession(queries: string[]): ReturnType<typeof chainSession> {
  const turns: [string, Message][] = [['u', { role: 'user', parts: [{ type: 'text', text: 'read' }] }]];
  queries.forEach((query, i) => {
    const value = [{ query, result: big, success: true }];
    turns.push([
      `a${i}`,
      {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        parts: [{ type: 'tool_call', id: `c${i}`, name: 'read_files', input: { path: query } }],
      },
    ]);
    turns.push([
      `r${i}`,
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: `c${i}`,
            name: 'read_files',
            content: JSON.stringify(value),
            meta: { clineContent: value },
          },
        ],
      },
    ]);
  });
  return chainSession('s', 'cline', '/p', turns);
}

function sentResults(session: ReturnType<typeof chainSession>): ToolResultPart[] {
  const build = resumeContextOf('cline');
  if (!build) throw new Error('no Cline context');
  return toolResultsIn(build(session).messages);
}
const resultValue = (p: ToolResultPart | undefined): string => {
  const [entry] = JSON.parse(String(p?.content)) as { result: string }[];
  return entry?.result ?? '';
};

describe('a file read again later, in a Cline context', () => {
  it('is left whole while the replacements would save under 64 KiB (8 outdated reads of ~8 KB each)', () => {
    const results = sentResults(readsSession(Array(9).fill('a.txt')));
    expect(results.map(resultValue).filter((r) => r === OUTDATED)).toEqual([]);
    expect(resultValue(results[0])).toMatch(/\.\.\.\[truncated 2032 chars\]\.\.\./);
  });

  it('is replaced in every earlier read by the note once they save 64 KiB (9 outdated reads), the latest kept', () => {
    const results = sentResults(readsSession(Array(10).fill('a.txt')));
    expect(results.slice(0, 9).map(resultValue)).toEqual(Array(9).fill(OUTDATED));
    expect(resultValue(results[9])).toMatch(/\.\.\.\[truncated 2032 chars\]\.\.\./);
    expect(results[0]?.content).toBe(JSON.stringify([{ query: 'a.txt', result: OUTDATED, success: true }]));
  });

  it('a range is outdated by any other read of the whole file (even an earlier one), the whole file not by a range', () => {
    const results = sentResults(readsSession([...Array(9).fill('a.txt:1-EOF'), 'a.txt', 'a.txt:5-9', 'b.txt:1-3']));
    expect(results.map(resultValue).map((r) => r === OUTDATED)).toEqual([
      ...Array(9).fill(true),
      false, // the latest read of the whole file
      true, // a range, while another read holds the whole file
      false, // another file's range
    ]);
  });
});

describe('an error result with blocks, in a Cline context', () => {
  const withResult = (result: ToolResultPart) =>
    sentResults(
      chainSession('s', 'cline', '/p', [
        ['u', { role: 'user', parts: [{ type: 'text', text: 'go' }] }],
        [
          'a',
          {
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            parts: [{ type: 'tool_call', id: 'c1', name: 'mcp_tool', input: {} }],
          },
        ],
        ['r', { role: 'tool', parts: [result] }],
      ]),
    )[0];

  it('is sent as the JSON text of its blocks (cut first), a successful one as blocks', () => {
    const blocks = [
      { type: 'text' as const, text: 'boom' },
      { type: 'text' as const, text: big },
    ];
    const failed = withResult({ type: 'tool_result', callId: 'c1', content: blocks, isError: true });
    const cut = `${big.slice(0, 3984)}\n\n...[truncated 2032 chars]...\n\n${big.slice(-3984)}`;
    expect(failed?.content).toBe(
      JSON.stringify([
        { type: 'text', text: 'boom' },
        { type: 'text', text: cut },
      ]),
    );
    const ok = withResult({ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'fine' }] });
    expect(ok?.content).toEqual([{ type: 'text', text: 'fine' }]);
  });

  it('with an image: each text as its bare text, the image as Cline’s placeholder', () => {
    const failed = withResult({
      type: 'tool_result',
      callId: 'c1',
      isError: true,
      content: [
        { type: 'text', text: 'boom' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
    expect(failed?.content).toBe(JSON.stringify(['boom', '[media omitted: invalid or exceeds size limit]']));
  });
});

describe("Cline's image budget, in a Cline context", () => {
  const MiB = 1_048_576;
  const png = (bytes: number) => ({ type: 'image' as const, mediaType: 'image/png', data: 'A'.repeat(bytes) });
  const sentParts = (parts: Message['parts'], result?: ToolResultPart) => {
    const build = resumeContextOf('cline');
    const turns: [string, Message][] = [['u', { role: 'user', parts }]];
    if (result) {
      turns.push([
        'a',
        { role: 'assistant', model: 'claude-sonnet-4-5', parts: [{ type: 'tool_call', id: 'c1', name: 'view', input: {} }] },
      ]);
      turns.push(['r', { role: 'tool', parts: [result] }]);
    }
    return build?.(chainSession('s', 'cline', '/p', turns)).messages.flatMap((m) => m.parts) ?? [];
  };
  const omitted = { type: 'text', text: '[media omitted: invalid or exceeds size limit]' };

  it('keeps images while 8 MiB in all, each up to 5 MiB of base64, a supported type, canonical base64', () => {
    const parts = sentParts([png(3 * MiB), png(3 * MiB), png(3 * MiB), png(2 * MiB)]);
    expect(parts.map((p) => (p.type === 'image' ? p.data?.length : p))).toEqual([3 * MiB, 3 * MiB, omitted, 2 * MiB]);
    const bad = sentParts([
      png(5 * MiB + 4),
      { type: 'image', mediaType: 'image/bmp', data: 'AAAA' },
      { type: 'image', mediaType: 'image/png', data: 'abc' },
      { type: 'image', mediaType: 'image/PNG', data: ' iVBORw0KGgo= ' },
    ]);
    expect(bad).toEqual([omitted, omitted, omitted, { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }]);
  });

  it("counts a tool result's images after the message's, in order", () => {
    const parts = sentParts([png(5 * MiB)], { type: 'tool_result', callId: 'c1', content: [png(4 * MiB), png(MiB)] });
    const result = parts.find((p): p is ToolResultPart => p.type === 'tool_result');
    expect(Array.isArray(result?.content) && result.content.map((c) => (c.type === 'image' ? c.data?.length : c))).toEqual([
      omitted,
      MiB,
    ]);
  });
});

describe("Cline's 6 MB budget of all text, in a Cline context", () => {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  const build = (turns: [string, Message][]) =>
    resumeContextOf('cline')?.(chainSession('s', 'cline', '/p', turns)).messages ?? [];

  it('cuts the largest assistant texts first, each to no less than 40,000 bytes, until the request fits', () => {
    const turns: [string, Message][] = [];
    for (let i = 0; i < 40; i++) {
      turns.push([`u${i}`, { role: 'user', parts: [{ type: 'text', text: `q${i}` }] }]);
      const text = `${i}:${'y'.repeat(199_000 - String(i).length - 1)}`;
      turns.push([`a${i}`, { role: 'assistant', model: 'claude-sonnet-4-5', parts: [{ type: 'text', text }] }]);
    }
    const texts = build(turns)
      .filter((m) => m.role === 'assistant')
      .map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''));
    const total = build(turns).reduce((n, m) => n + m.parts.reduce((k, p) => k + (p.type === 'text' ? bytes(p.text) : 0), 0), 0);
    expect(total).toBeLessThanOrEqual(6_000_000);
    expect(total).toBeGreaterThan(6_000_000 - 200);
    const marker = /\n\n\.\.\.\[assistant text truncated: omitted \d+ chars to fit provider request budget\]\.\.\.\n\n/;
    const cut = texts.filter((t) => marker.test(t));
    // 7,960,000 + the prompts: 12 cut to 40,000, the 13th less, in order (all equally long)
    expect(cut).toHaveLength(13);
    expect(texts.slice(0, 12).every((t) => marker.test(t) && bytes(t) <= 40_000 && bytes(t) > 39_900)).toBe(true);
    expect(texts[0]?.startsWith('0:yyy')).toBe(true);
    expect(texts.slice(13).every((t) => bytes(t) === 199_000)).toBe(true);
  });

  it('cuts a tool call input string after the texts, not a user text; within budget, nothing', () => {
    const turns = (inputBytes: number): [string, Message][] => [
      ['u', { role: 'user', parts: [{ type: 'text', text: 'u'.repeat(1_000_000) }] }],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'c1', name: 'editor', input: { path: 'a.txt', text: 'z'.repeat(inputBytes) } }],
        },
      ],
      ['r', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: 'done' }] }],
    ];
    const inputOf = (ms: Message[]) => {
      const call = ms[1]?.parts[0];
      return call?.type === 'tool_call' ? String((call.input as { text: string }).text) : '';
    };
    const over = build(turns(5_500_000));
    expect(over[0]?.parts[0]?.type === 'text' && over[0].parts[0].text.length).toBe(1_000_000);
    const input = inputOf(over);
    expect(input).toMatch(/^z+\n\n\.\.\.\[truncated \d+ chars to fit provider request budget\]\.\.\.\n\nz+$/);
    // the path (5 bytes), the prompt, the result: the input's text takes the rest
    expect(bytes(input)).toBeLessThanOrEqual(6_000_000 - 1_000_000 - 5 - 4);
    expect(bytes(input)).toBeGreaterThan(6_000_000 - 1_000_000 - 5 - 4 - 2);
    expect(inputOf(build(turns(4_900_000)))).toHaveLength(4_900_000);
  });

  it("makes a string item of its own tools' JSON an object of its characters, a number {}, once over the budget", () => {
    const json = ['abc', 5, { query: 'q', result: 'r' }];
    const sentJson = (userBytes: number) => {
      const ms = build([
        ['u', { role: 'user', parts: [{ type: 'text', text: 'u'.repeat(userBytes) }] }],
        [
          'a',
          {
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            parts: [{ type: 'tool_call', id: 'c1', name: 'run_commands', input: { commands: ['ls'] } }],
          },
        ],
        [
          'r',
          {
            role: 'tool',
            parts: [{ type: 'tool_result', callId: 'c1', content: JSON.stringify(json), meta: { clineContent: json } }],
          },
        ],
      ]);
      const result = ms[2]?.parts[0];
      return result?.type === 'tool_result' ? JSON.parse(String(result.content)) : undefined;
    };
    // Cline copies each item ({...item}) only when it cuts to the budget
    expect(sentJson(6_100_000)).toEqual([{ 0: 'a', 1: 'b', 2: 'c' }, {}, { query: 'q', result: 'r' }]);
    expect(sentJson(1_000)).toEqual(json);
  });

  it("cuts a text item in its own tools' JSON as a result's text, before the call input", () => {
    // Cline's JSON: an entry and a text item of 8,000 characters each once cut to fit a result
    const json = [
      { query: 'ls', result: 'r'.repeat(8_000), success: true },
      { type: 'text', text: 't'.repeat(8_000) },
    ];
    const ms = build([
      ['u', { role: 'user', parts: [{ type: 'text', text: 'u'.repeat(5_000_000) }] }],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'c1', name: 'run_commands', input: { commands: ['z'.repeat(1_000_000)] } }],
        },
      ],
      [
        'r',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'c1', content: JSON.stringify(json), meta: { clineContent: json } }],
        },
      ],
    ]);
    const result = ms[2]?.parts[0];
    const [entry, text] = JSON.parse(result?.type === 'tool_result' ? String(result.content) : '[]') as [
      { result: string },
      { text: string },
    ];
    // both cut to 2,000 bytes (the entry's string first, the text after it), then the input takes the rest
    expect(entry.result.length).toBeGreaterThan(1_990);
    expect(entry.result.length).toBeLessThanOrEqual(2_000);
    expect(text.text.length).toBeGreaterThan(1_990);
    expect(text.text.length).toBeLessThanOrEqual(2_000);
    expect(text.text).toMatch(/^t+\n\n\.\.\.\[truncated \d+ chars to fit provider request budget\]\.\.\.\n\nt+$/);
    const call = ms[1]?.parts[0];
    const input = call?.type === 'tool_call' ? ((call.input as { commands: string[] }).commands[0] ?? '') : '';
    // the rest: the 5 MB prompt, the two cut strings and the query (a text item counts its text only)
    expect(bytes(input)).toBeLessThanOrEqual(6_000_000 - 5_000_000 - bytes(entry.result) - bytes(text.text) - 2);
    expect(bytes(input)).toBeGreaterThan(6_000_000 - 5_000_000 - 4_000 - 10);
  });
});

describe("Cline's own tools' JSON answer, cut as Cline cuts a result (truncateToolResultContent)", () => {
  const long = (c: string) => c.repeat(10_000);
  const cutMark = /^(.)\1+\n\n\.\.\.\[truncated 2032 chars\]\.\.\.\n\n\1+$/;
  // an item of each kind: a string, a text item (with a field of its own), a file item, an entry, a nested array, a number
  const json = [
    long('s'),
    { type: 'text', text: long('t'), note: long('n') },
    { type: 'file', path: `/p/${long('p')}`, content: long('c') },
    { query: long('q'), result: long('r'), nested: { path: long('x') } },
    [long('a')],
    7,
  ];
  const sent = (): unknown[] => {
    const ms =
      resumeContextOf('cline')?.(
        chainSession('s', 'cline', '/p', [
          ['u', { role: 'user', parts: [{ type: 'text', text: 'go' }] }],
          [
            'a',
            {
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              parts: [{ type: 'tool_call', id: 'c1', name: 'search_codebase', input: { queries: ['x'] } }],
            },
          ],
          [
            'r',
            {
              role: 'tool',
              parts: [{ type: 'tool_result', callId: 'c1', content: JSON.stringify(json), meta: { clineContent: json } }],
            },
          ],
        ]),
      ).messages ?? [];
    const result = ms[2]?.parts[0];
    return JSON.parse(result?.type === 'tool_result' ? String(result.content) : '[]') as unknown[];
  };

  it("cuts a text item's text, a file item's content and every string of an entry; a string item, a path, a text item's other field whole", () => {
    const [str, text, file, entry, arr, num] = sent() as [
      string,
      { text: string; note: string },
      { path: string; content: string },
      { query: string; result: string; nested: { path: string } },
      string[],
      number,
    ];
    expect(str).toBe(long('s'));
    expect(text.text).toMatch(cutMark);
    expect(text.note).toBe(long('n'));
    expect(file.path).toBe(`/p/${long('p')}`);
    expect(file.content).toMatch(cutMark);
    expect([entry.query, entry.result, entry.nested.path].every((s) => cutMark.test(s))).toBe(true);
    expect(arr[0]).toMatch(cutMark);
    expect(num).toBe(7);
  });
});
