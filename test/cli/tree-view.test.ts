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
