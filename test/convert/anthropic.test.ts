import { describe, expect, it } from 'vitest';
import {
  advisorIterations,
  anthropicToolId,
  contextFromAnthropic,
  contextToAnthropic,
  messagesFromAnthropic,
  messagesToAnthropic,
  toolInputObject,
  usageFromAnthropic,
} from '../../src/convert/anthropic.js';
import { renderContext } from '../../src/convert/formats.js';
import type { Message } from '../../src/model/types.js';

describe('model → Anthropic request', () => {
  const messages: Message[] = [
    { role: 'system', parts: [{ type: 'text', text: 'be brief' }] },
    { role: 'user', parts: [{ type: 'text', text: 'list files' }] },
    {
      role: 'assistant',
      model: 'claude-x',
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      parts: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'tool_call', id: 'tu1', name: 'Bash', input: { command: 'ls' } },
      ],
    },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'tu1', content: 'a\nb', isError: false }] },
    {
      role: 'user',
      parts: [
        { type: 'text', text: 'thanks' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      ],
    },
    {
      role: 'assistant',
      parts: [
        { type: 'text', text: '' },
        { type: 'thinking', thinking: 'unsigned' },
        { type: 'text', text: 'done' },
      ],
    },
  ];

  it('lifts system, turns tool messages into user tool_result blocks, merges same-role neighbours, drops model/usage', () => {
    const req = contextToAnthropic({ messages });
    expect(req).toEqual({
      system: 'be brief',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'list files' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'tu1', content: 'a\nb', is_error: false },
            { type: 'text', text: 'thanks' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
        // empty text dropped, unsigned thinking replayed as text (the API rejects both as they are)
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'unsigned' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    });
  });

  it('is registered as the anthropic context format and joins context.system first', () => {
    const out = renderContext({ system: 'sys', messages }, 'anthropic') as { system: string };
    expect(out.system).toBe('sys\n\nbe brief');
  });

  it('keeps unsigned thinking and empty text in plain conversion', () => {
    const { messages: out } = messagesToAnthropic(messages.slice(5));
    expect(out[0]?.content).toEqual([
      { type: 'text', text: '' },
      { type: 'thinking', thinking: 'unsigned' },
      { type: 'text', text: 'done' },
    ]);
  });

  it('gives tool ids the API refuses (outside [a-zA-Z0-9_-]) one valid id, the same in the call and its result', () => {
    const { messages: out } = messagesToAnthropic([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_1|fc_2', name: 'bash', input: {} },
          { type: 'tool_call', id: 'toolu_ok-1', name: 'bash', input: {} },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', callId: 'call_1|fc_2', content: 'a' },
          { type: 'tool_result', callId: 'toolu_ok-1', content: 'b' },
        ],
      },
    ]);
    const [odd, ok] = (out[0]?.content ?? []) as { id: string }[];
    const [oddResult, okResult] = (out[1]?.content ?? []) as { tool_use_id: string }[];
    expect(odd?.id).toMatch(/^call_1_fc_2_[0-9a-f]{8}$/);
    expect(oddResult?.tool_use_id).toBe(odd?.id);
    expect(ok?.id).toBe('toolu_ok-1');
    expect(okResult?.tool_use_id).toBe('toolu_ok-1');
    // two ids that differ only in refused characters stay apart
    expect(anthropicToolId('a|b')).not.toBe(anthropicToolId('a.b'));
  });
});

describe('Anthropic → model', () => {
  it("reads advisor requests from usage.iterations, leaving out malformed ones and the response's own iterations", () => {
    const u = usageFromAnthropic({
      input_tokens: 10,
      output_tokens: 5,
      iterations: [
        { type: 'message', input_tokens: 10, output_tokens: 5 },
        { type: 'advisor_message', model: 'claude-opus-5', input_tokens: 40, output_tokens: -3, cache_creation_input_tokens: 8 },
        { type: 'advisor_message', input_tokens: 99 },
        {
          type: 'advisor_message',
          model: 'claude-opus-5',
          cache_creation: { ephemeral_1h_input_tokens: 6 },
          cache_creation_input_tokens: 6,
        },
        'junk',
      ],
    });
    expect(u?.advisors).toEqual([
      { model: 'claude-opus-5', input: 40, output: 0, cacheRead: 0, cacheWrite: 8 },
      { model: 'claude-opus-5', input: 0, output: 0, cacheRead: 0, cacheWrite: 6, cacheWrite1h: 6 },
    ]);
    expect(u && { ...u, advisors: undefined }).toEqual({
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      advisors: undefined,
    });
    // written back: the response's own counts first, then each advisor request, which reads back the same
    const back = usageFromAnthropic({ input_tokens: 10, output_tokens: 5, iterations: u && advisorIterations(u) });
    expect(back?.advisors).toEqual(u?.advisors);
    expect(u && advisorIterations(u)?.[0]).toEqual({
      type: 'message',
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(usageFromAnthropic({ input_tokens: 1, output_tokens: 1, iterations: [] })?.advisors).toBeUndefined();
  });

  it('makes a user message carrying tool_result blocks a tool message, keeping blocks alongside in order', () => {
    const [m] = messagesFromAnthropic([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'out' }], is_error: true },
          { type: 'text', text: 'also this' },
        ],
      },
    ]);
    expect(m).toEqual({
      role: 'tool',
      parts: [
        { type: 'tool_result', callId: 't', content: [{ type: 'text', text: 'out' }], isError: true },
        { type: 'text', text: 'also this' },
      ],
    });
  });

  it('reads string content, response fields, documents, redacted thinking and unknown blocks', () => {
    const msgs = messagesFromAnthropic([
      { role: 'user', content: 'hi' },
      {
        id: 'msg_1',
        role: 'assistant',
        model: 'claude-y',
        stop_reason: 'end_turn',
        usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 3, cache_creation_input_tokens: null },
        content: [
          { type: 'redacted_thinking', data: 'xyz' },
          { type: 'server_tool_use', id: 's1', name: 'web_search', input: { q: 1 } },
          { type: 'text', text: 'see', citations: [{ cited_text: 'c' }] },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'document',
            title: 'notes',
            source: { type: 'text', media_type: 'text/plain', data: 'hello' },
            cache_control: { type: 'ephemeral' },
          },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'data:application/pdf;base64,JVBE' },
          },
        ],
      },
    ]);
    expect(msgs[0]).toEqual({ role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    expect(msgs[1]).toMatchObject({
      role: 'assistant',
      model: 'claude-y',
      responseId: 'msg_1',
      stopReason: 'end_turn',
      usage: { input: 5, output: 7, cacheRead: 3, cacheWrite: 0, reasoning: 0 },
    });
    expect(msgs[1]?.parts[0]).toEqual({ type: 'redacted_thinking', data: 'xyz' });
    expect(msgs[2]?.parts[0]).toMatchObject({ type: 'file', name: 'notes', text: 'hello', mediaType: 'text/plain' });
    expect(msgs[2]?.parts[1]).toEqual({ type: 'file', mediaType: 'application/pdf', data: 'JVBE' });
    // back out: unknown blocks and extra fields come back as they were
    const back = messagesToAnthropic(msgs).messages;
    expect(back[1]?.content).toEqual([
      { type: 'redacted_thinking', data: 'xyz' },
      { type: 'server_tool_use', id: 's1', name: 'web_search', input: { q: 1 } },
      { type: 'text', text: 'see', citations: [{ cited_text: 'c' }] },
    ]);
    expect(back[2]?.content).toEqual([
      {
        type: 'document',
        title: 'notes',
        source: { type: 'text', media_type: 'text/plain', data: 'hello' },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
    ]);
  });

  it('keeps is_error: false as Claude Code sends it', () => {
    const block = { type: 'tool_result', tool_use_id: 't', content: 'hi', is_error: false };
    const msgs = messagesFromAnthropic([{ role: 'user', content: [block] }]);
    expect(msgs[0]?.parts[0]).toEqual({ type: 'tool_result', callId: 't', content: 'hi', isError: false });
    expect(messagesToAnthropic(msgs).messages[0]?.content).toEqual([block]);
  });

  it('reads the system param as string or text blocks', () => {
    expect(
      contextFromAnthropic({
        system: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        messages: [],
      }).system,
    ).toBe('a\n\nb');
  });

  it('always makes tool input an object', () => {
    expect(toolInputObject({ a: 1 })).toEqual({ a: 1 });
    expect(toolInputObject('{"a":2}')).toEqual({ a: 2 });
    expect(toolInputObject('plain')).toEqual({ input: 'plain' });
    expect(toolInputObject(null)).toEqual({});
    expect(toolInputObject([1])).toEqual({ input: [1] });
  });
});
