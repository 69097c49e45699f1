/**
 * The wire readers (Anthropic, OpenAI chat, AI SDK) given items they cannot read: each one is
 * reported with its path and index and skipped, the rest is read as without it, alike in every reader;
 * with no `onIssue`, a process warning says it.
 */
import { describe, expect, it } from 'vitest';
import {
  contextFromAiSdk,
  contextFromAnthropic,
  contextFromOpenAI,
  messageFromAnthropic,
  messagesFromAiSdk,
  messagesFromAnthropic,
  messagesFromOpenAI,
  type ReadIssue,
} from '../../src/index.js';

function collect(): { issues: ReadIssue[]; onIssue: (i: ReadIssue) => void } {
  const issues: ReadIssue[] = [];
  return { issues, onIssue: (i) => issues.push(i) };
}

const paths = (issues: ReadIssue[]) => issues.map((i) => [i.path, i.index]);

describe('messagesFromAnthropic', () => {
  it('reports and skips a message, a content block and a tool result item that are not objects', () => {
    const { issues, onIssue } = collect();
    const msgs = messagesFromAnthropic(
      [
        { role: 'user', content: [{ type: 'text', text: 'hi' }, 42, 'plain'] },
        null,
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'ls', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'a' }, false, 'b'] }],
        },
      ],
      { onIssue },
    );
    expect(paths(issues)).toEqual([
      ['messages[0].content[1]', 1],
      ['messages[1]', 1],
      ['messages[3].content[0].content[1]', 1],
    ]);
    expect(issues[0]?.message).toBe('messages[0].content[1]: a content block is a number, not an object, skipped');
    expect(issues[1]?.message).toMatch(/^messages\[1\]: a message is null/);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    // strings are read as text, as a string content is
    expect(msgs[0]?.parts).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'plain' },
    ]);
    expect(msgs[2]?.parts[0]).toMatchObject({
      type: 'tool_result',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    });
  });

  it('contextFromAnthropic reports a system block that is not an object; messageFromAnthropic its own blocks', () => {
    const { issues, onIssue } = collect();
    const ctx = contextFromAnthropic(
      { system: [{ type: 'text', text: 'be brief' }, 7], messages: [{ role: 'user', content: 'x' }, 'y'] },
      { onIssue },
    );
    expect(ctx.system).toBe('be brief');
    expect(ctx.messages).toHaveLength(1);
    expect(paths(issues)).toEqual([
      ['messages[1]', 1],
      ['system[1]', 1],
    ]);
    const one = collect();
    expect(messageFromAnthropic({ role: 'user', content: [undefined, 'z'] }, { onIssue: one.onIssue }).parts).toEqual([
      { type: 'text', text: 'z' },
    ]);
    expect(paths(one.issues)).toEqual([['content[0]', 0]]);
  });
});

describe('messagesFromOpenAI', () => {
  it('reports and skips a message, a content part, a tool call and an unknown role', () => {
    const { issues, onIssue } = collect();
    const msgs = messagesFromOpenAI(
      [
        { role: 'system', content: 'be brief' },
        7,
        { role: 'user', content: [{ type: 'text', text: 'hi' }, null] },
        {
          role: 'assistant',
          content: null,
          tool_calls: ['junk', { id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'a b' },
        { role: 'robot', content: 'beep' },
      ],
      { onIssue },
    );
    expect(paths(issues)).toEqual([
      ['messages[1]', 1],
      ['messages[2].content[1]', 1],
      ['messages[3].tool_calls[0]', 0],
      ['messages[5]', 5],
    ]);
    expect(issues[3]?.message).toContain('"robot"');
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(msgs[2]?.parts).toEqual([{ type: 'tool_call', id: 'c', name: 'ls', input: {} }]);
    const ctx = contextFromOpenAI([{ role: 'user', content: 'x' }, []], { onIssue });
    expect(ctx.messages).toHaveLength(1);
    expect(issues.at(-1)).toMatchObject({ path: 'messages[1]', index: 1 });
  });
});

describe('messagesFromAiSdk', () => {
  it('reports and skips a message, a content part, a tool result item and an unknown role', () => {
    const { issues, onIssue } = collect();
    const msgs = messagesFromAiSdk(
      [
        { role: 'user', content: [{ type: 'text', text: 'hi' }, 3, 'plain'] },
        undefined,
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'ls', input: {} }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c',
              toolName: 'ls',
              output: { type: 'content', value: [{ type: 'text', text: 'a' }, null] },
            },
          ],
        },
        { role: 'robot', content: 'beep' },
      ],
      { onIssue },
    );
    expect(paths(issues)).toEqual([
      ['messages[0].content[1]', 1],
      ['messages[1]', 1],
      ['messages[3].content[0].output.value[1]', 1],
      ['messages[4]', 4],
    ]);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(msgs[0]?.parts).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'plain' },
    ]);
    expect(msgs[2]?.parts[0]).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: 'a' }] });
    const ctx = contextFromAiSdk([{ role: 'system', content: 's' }, false], { onIssue });
    expect(ctx.system).toBe('s');
    expect(issues.at(-1)).toMatchObject({ path: 'messages[1]', index: 1 });
  });
});

describe('without onIssue', () => {
  it('each skipped item is a process warning naming where it was', async () => {
    const warnings: (Error & { code?: string })[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on('warning', listen);
    try {
      messagesFromOpenAI([{ role: 'user', content: 'ok' }, 5]);
      messagesFromAiSdk([null]);
      messagesFromAnthropic(['x']);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', listen);
    }
    const ours = warnings.filter((w) => w.code === 'THREADBASE_SKIPPED_INPUT').map((w) => w.message);
    expect(ours).toEqual([
      'messages[1]: a message is a number, not an object, skipped',
      'messages[0]: a message is null, not an object, skipped',
      'messages[0]: a message is a string, not an object, skipped',
    ]);
  });
});
