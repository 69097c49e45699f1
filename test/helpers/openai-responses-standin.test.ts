/** The loopback Responses API stand-in answers by its rules and streams the events codex reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResponsesStandIn, startResponsesStandIn } from './openai-responses-standin.js';

let standIn: ResponsesStandIn;
beforeAll(async () => {
  standIn = await startResponsesStandIn({
    rules: [
      (req) =>
        JSON.stringify(req.input).includes('PARTS')
          ? { reasoning: ['one', 'two'], encryptedReasoning: 'enc', text: 'done' }
          : undefined,
      (req) => (JSON.stringify(req.input).includes('THINK') ? { reasoning: 'hmm', text: 'done' } : undefined),
    ],
  });
});
afterAll(async () => {
  await standIn.close();
});

async function post(body: unknown): Promise<{ type: string; [k: string]: unknown }[]> {
  const res = await fetch(`${standIn.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.includes('data: '))
    .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as { type: string });
}

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const tool = (name: string, command: object) => ({ type: 'function', name, parameters: { type: 'object', properties: command } });

describe('OpenAI Responses stand-in', () => {
  it('answers RUN: with a call of the shell tool offered, in that tool’s argument shape', async () => {
    const unified = await post({
      model: 'm',
      stream: true,
      input: [user('RUN: ls -la')],
      tools: [tool('exec_command', { cmd: { type: 'string' } })],
    });
    expect(unified.map((e) => e.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(unified[2]?.item).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls -la"}' });
    const argv = await post({ model: 'm', input: [user('RUN: ls')], tools: [tool('shell', { command: { type: 'array' } })] });
    const call = argv[2]?.item as { arguments?: string } | undefined;
    expect(JSON.parse(String(call?.arguments))).toEqual({ command: ['bash', '-lc', 'ls'] });
  });

  it('answers a function_call_output, a custom rule with reasoning, and plain text; records bodies', async () => {
    const after = await post({
      model: 'm',
      input: [user('x'), { type: 'function_call_output', call_id: 'c1', output: 'file-a\nfile-b' }],
    });
    expect(after.find((e) => e.type === 'response.output_text.done')?.text).toBe('Tool finished: file-a');
    const thought = await post({ model: 'm', input: [user('THINK please')] });
    expect(thought.filter((e) => e.type === 'response.output_item.done').map((e) => (e.item as { type: string }).type)).toEqual([
      'reasoning',
      'message',
    ]);
    const plain = await post({ model: 'm', input: [user('hello there')] });
    const done = plain.at(-1) as unknown as {
      response: { usage: { input_tokens: number; output_tokens: number; total_tokens: number } };
    };
    expect(done.response.usage.total_tokens).toBe(done.response.usage.input_tokens + done.response.usage.output_tokens);
    expect(plain.find((e) => e.type === 'response.output_text.done')?.text).toBe('ok: hello there');
    expect(standIn.responseRequests()).toHaveLength(5);
    expect(standIn.responseRequests()[4]?.input).toEqual([user('hello there')]);
  });

  it('streams a summary of several parts part by part, the encrypted content on the item', async () => {
    const events = await post({ model: 'm', input: [user('PARTS please')] });
    const reasoning = events.filter((e) => e.type.startsWith('response.reasoning_summary'));
    expect(reasoning.map((e) => [e.type, e.summary_index])).toEqual([
      ['response.reasoning_summary_part.added', 0],
      ['response.reasoning_summary_text.delta', 0],
      ['response.reasoning_summary_text.done', 0],
      ['response.reasoning_summary_part.done', 0],
      ['response.reasoning_summary_part.added', 1],
      ['response.reasoning_summary_text.delta', 1],
      ['response.reasoning_summary_text.done', 1],
      ['response.reasoning_summary_part.done', 1],
    ]);
    expect(events.find((e) => e.type === 'response.output_item.done')?.item).toMatchObject({
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: 'one' },
        { type: 'summary_text', text: 'two' },
      ],
      encrypted_content: 'enc',
    });
  });
});
