import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StandIn, startAnthropicStandIn } from './anthropic-standin.js';

describe('anthropic stand-in', () => {
  let s: StandIn;
  beforeAll(async () => {
    s = await startAnthropicStandIn();
  });
  afterAll(() => s.close());

  const post = (body: unknown) =>
    fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers RUN: with a tool_use of the request bash tool and records the request', async () => {
    const res = await post({
      model: 'm',
      max_tokens: 10,
      tools: [{ name: 'Bash' }],
      messages: [{ role: 'user', content: 'RUN: echo hi' }],
    });
    const j = (await res.json()) as {
      content: { type: string; name?: string; input?: { command: string } }[];
      stop_reason: string;
    };
    expect(j.stop_reason).toBe('tool_use');
    expect(j.content[0]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } });
    expect(s.messageRequests().at(-1)?.messages[0]?.content).toBe('RUN: echo hi');
  });

  it('streams SSE ending in message_stop, answering a tool result with text', async () => {
    const res = await post({
      model: 'm',
      stream: true,
      messages: [
        { role: 'user', content: 'RUN: x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'hello there' }] },
      ],
    });
    const text = await res.text();
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toContain('Tool finished: hello there');
    expect(text.trim().endsWith('data: {"type":"message_stop"}')).toBe(true);
  });
});
