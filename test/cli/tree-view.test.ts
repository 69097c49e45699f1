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
