/** How `show` describes an entry in one line. */
import { expect, it } from 'vitest';
import { describeEntry } from '../../src/cli/tree-view.js';
import type { Entry } from '../../src/model/types.js';

const change = (fields: Partial<Extract<Entry, { kind: 'model_change' }>>): Entry => ({
  id: 'e1',
  parentId: null,
  timestamp: '2026-01-01T10:00:00.000Z',
  kind: 'model_change',
  ...fields,
});

it('a model change names the provider and model; a thinking-level change says it is one (pi writes them apart)', () => {
  expect(describeEntry(change({ provider: 'anthropic', model: 'claude-opus-4-5' }))).toBe('model: anthropic/claude-opus-4-5');
  expect(describeEntry(change({ thinkingLevel: 'off' }))).toBe('thinking: off');
  expect(describeEntry(change({ model: 'gpt-5', thinkingLevel: 'high' }))).toBe('model: gpt-5, thinking: high');
  expect(describeEntry(change({ provider: 'openai' }))).toBe('provider: openai');
});

const userSays = (text: string): Entry => ({
  id: 'e2',
  parentId: null,
  timestamp: '2026-01-01T10:00:00.000Z',
  kind: 'message',
  message: { role: 'user', parts: [{ type: 'text', text }] },
});

it("a long message is cut to 70 columns with '…' where cut, never silently, a wide character counted as two", () => {
  const long = `with a very long tail that keeps going and going past any terminal ${'x'.repeat(40)}`;
  const line = describeEntry(userSays(long));
  expect(line.startsWith('user: with a very long tail')).toBe(true);
  expect(line.endsWith('…')).toBe(true);
  expect(line.length).toBe('user: '.length + 70);
  expect(describeEntry(userSays('short and whole'))).toBe('user: short and whole');
  // 40 CJK characters are 80 columns: 34 of them and the '…' fill the 70
  expect(describeEntry(userSays('日'.repeat(40)))).toBe(`user: ${'日'.repeat(34)}…`);
});

const assistantWith = (
  parts: Extract<Entry, { kind: 'message' }>['message']['parts'],
  role: 'assistant' | 'user' | 'tool' = 'assistant',
): Entry => ({
  id: 'e3',
  parentId: null,
  timestamp: '2026-01-01T10:00:00.000Z',
  kind: 'message',
  message: { role, parts },
});

it('a reply of thinking alone shows its thinking (it showed an empty "assistant:"), redacted thinking says so', () => {
  expect(describeEntry(assistantWith([{ type: 'thinking', thinking: 'Let me look at\nthe file first.', signature: 's' }]))).toBe(
    'assistant: (thinking) Let me look at the file first.',
  );
  expect(describeEntry(assistantWith([{ type: 'redacted_thinking', data: 'x' }]))).toBe('assistant: (thinking, redacted)');
  // beside text, a mark only
  expect(
    describeEntry(
      assistantWith([
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'text', text: 'Done.' },
      ]),
    ),
  ).toBe('assistant: Done. [thinking]');
});

it('tool calls name what they act on, results show what the tool printed and how many failed, images and files are counted', () => {
  const call = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_call' as const, id, name, input });
  expect(
    describeEntry(
      assistantWith([
        call('c1', 'Bash', { command: 'ls -la\n/tmp', description: 'list' }),
        call('c2', 'Read', { file_path: '/work/src/a-very-long-directory-name/and-a-file-name.ts' }),
        call('c3', 'TodoWrite', { todos: [] }),
        call('c4', 'Grep', { pattern: 'x' }),
      ]),
    ),
  ).toBe('assistant: [calls Bash(ls -la /tmp), Read(/work/src/a-very-long-directo…), TodoWrite +1 more]');
  expect(
    describeEntry(
      assistantWith(
        [
          { type: 'tool_result', callId: 'c1', content: 'ok' },
          { type: 'tool_result', callId: 'c2', content: 'no such file', isError: true },
        ],
        'tool',
      ),
    ),
  ).toBe('tool: ok no such file [2 results (1 failed)]');
  expect(
    describeEntry(
      assistantWith(
        [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
          { type: 'file', mediaType: 'application/pdf', data: 'AAAA', name: 'spec.pdf' },
        ],
        'user',
      ),
    ),
  ).toBe('user: What is this? [2 images; file spec.pdf]');
});

it('a message of results alone shows what the tool printed, cut to one line (it showed only "[1 result]")', () => {
  const result = (content: Extract<Entry, { kind: 'message' }>['message']['parts'][number]) => assistantWith([content], 'tool');
  expect(describeEntry(result({ type: 'tool_result', callId: 'c1', content: 'total 12\n-rw-r--r-- app.txt\n' }))).toBe(
    'tool: total 12 -rw-r--r-- app.txt [1 result]',
  );
  expect(
    describeEntry(
      result({ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'x'.repeat(100) }], isError: true }),
    ),
  ).toBe(`tool: ${'x'.repeat(69)}… [1 result (1 failed)]`);
  // a result with no text (an image alone, an empty output) is counted as before
  expect(describeEntry(result({ type: 'tool_result', callId: 'c1', content: '' }))).toBe('tool: [1 result]');
});
