import { describe, expect, it } from 'vitest';
import { contextFromAiSdk, contextToAiSdk, messagesFromAiSdk, messagesToAiSdk } from '../../src/convert/ai-sdk.js';
import { contextFromOpenAI, contextToOpenAI, messagesFromOpenAI, messagesToOpenAI } from '../../src/convert/openai.js';
import type { Message } from '../../src/model/types.js';

const convo: Message[] = [
  {
    role: 'user',
    parts: [
      { type: 'text', text: 'look' },
      { type: 'image', mediaType: 'image/png', data: 'iVBO' },
    ],
  },
  {
    role: 'assistant',
    parts: [
      { type: 'thinking', thinking: 'let me see', signature: 'SIG' },
      { type: 'redacted_thinking', data: 'REDACTED' },
      { type: 'text', text: 'checking' },
      { type: 'tool_call', id: 'c1', name: 'Read', input: { path: '/a' } },
      { type: 'tool_call', id: 'c2', name: 'Bash', input: { command: 'false' } },
    ],
  },
  {
    role: 'tool',
    parts: [
      {
        type: 'tool_result',
        callId: 'c1',
        content: [
          { type: 'text', text: 'file body' },
          { type: 'image', mediaType: 'image/jpeg', data: '/9j/' },
        ],
      },
      { type: 'tool_result', callId: 'c2', content: 'exit 1', isError: true },
      { type: 'text', text: 'user note alongside' },
    ],
  },
];

describe('OpenAI chat', () => {
  it('writes tool_calls with JSON-string arguments, one tool message per result, and media after them as user content', () => {
    const out = contextToOpenAI({ system: 'sys', messages: convo }).messages;
    expect(out).toEqual([
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
        ],
      },
      {
        role: 'assistant',
        content: 'checking',
        reasoning_content: 'let me see',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"path":"/a"}' } },
          { id: 'c2', type: 'function', function: { name: 'Bash', arguments: '{"command":"false"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: [
          { type: 'text', text: 'file body' },
          { type: 'text', text: '[image]' },
        ],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'exit 1' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } },
          { type: 'text', text: 'user note alongside' },
        ],
      },
    ]);
  });

  it('reads OpenAI messages: arguments parsed to objects, tool names from their calls, consecutive tool messages merged', () => {
    const ctx = contextFromOpenAI([
      { role: 'developer', content: 'dev rules' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
          { id: 't2', type: 'function', function: { name: 'b', arguments: 'not json' } },
          { id: 't3', type: 'function', function: { name: 'c', arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'r1' },
      { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'r2' }] },
      { role: 'assistant', content: 'fin', refusal: null },
      'garbage',
    ]);
    expect(ctx.system).toBe('dev rules');
    expect(ctx.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'q' },
          { type: 'image', mediaType: '', url: 'https://x/y.png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 't1', name: 'a', input: { x: 1 } },
          { type: 'tool_call', id: 't2', name: 'b', input: { input: 'not json' } },
          { type: 'tool_call', id: 't3', name: 'c', input: {} },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', callId: 't1', name: 'a', content: 'r1' },
          { type: 'tool_result', callId: 't2', name: 'b', content: [{ type: 'text', text: 'r2' }] },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'fin' }] },
    ]);
  });

  it('model → OpenAI → model keeps text, images, calls and results (minus what OpenAI has no slot for)', () => {
    const back = messagesFromOpenAI(messagesToOpenAI(convo));
    expect(back[1]?.parts).toEqual([
      { type: 'thinking', thinking: 'let me see' },
      { type: 'text', text: 'checking' },
      { type: 'tool_call', id: 'c1', name: 'Read', input: { path: '/a' } },
      { type: 'tool_call', id: 'c2', name: 'Bash', input: { command: 'false' } },
    ]);
    expect(back[0]?.parts[1]).toEqual({ type: 'image', mediaType: 'image/png', data: 'iVBO' });
  });
});

describe('AI SDK ModelMessage', () => {
  it('writes v5 parts: reasoning with the Anthropic signature, tool-call input objects, tool-result outputs', () => {
    const out = contextToAiSdk({ messages: convo }).messages;
    expect(out[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'let me see', providerOptions: { anthropic: { signature: 'SIG' } } },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'REDACTED' } } },
        { type: 'text', text: 'checking' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'Read', input: { path: '/a' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'Bash', input: { command: 'false' } },
      ],
    });
    expect(out[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'Read',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'file body' },
              { type: 'media', data: '/9j/', mediaType: 'image/jpeg' },
            ],
          },
        },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'Bash', output: { type: 'error-text', value: 'exit 1' } },
      ],
    });
    expect(out[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'user note alongside' }] });
  });

  it('reads AI SDK messages: data URLs, bytes, URLs, json and error outputs', () => {
    const ctx = contextFromAiSdk([
      { role: 'system', content: 'be nice' },
      {
        role: 'user',
        content: [
          { type: 'image', image: 'data:image/gif;base64,R0lG' },
          { type: 'image', image: new Uint8Array([1, 2, 3]), mediaType: 'image/png' },
          { type: 'image', image: new URL('https://e.x/i.png') },
          { type: 'file', data: 'JVBE', mediaType: 'application/pdf', filename: 'a.pdf' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'k', toolName: 'calc', input: '{"n":2}' }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'k', toolName: 'calc', output: { type: 'json', value: { n: 4 } } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'k2', toolName: 'calc', output: { type: 'error-json', value: { code: 7 } } },
        ],
      },
      { role: 'assistant', content: 'four' },
    ]);
    expect(ctx.system).toBe('be nice');
    expect(ctx.messages[0]?.parts).toEqual([
      { type: 'image', mediaType: 'image/gif', data: 'R0lG' },
      { type: 'image', mediaType: 'image/png', data: 'AQID' },
      { type: 'image', mediaType: 'image/*', url: 'https://e.x/i.png' },
      { type: 'file', mediaType: 'application/pdf', data: 'JVBE', name: 'a.pdf' },
    ]);
    expect(ctx.messages[1]?.parts).toEqual([{ type: 'tool_call', id: 'k', name: 'calc', input: { n: 2 } }]);
    expect(ctx.messages[2]).toEqual({
      role: 'tool',
      parts: [
        { type: 'tool_result', callId: 'k', name: 'calc', content: '{"n":4}' },
        { type: 'tool_result', callId: 'k2', name: 'calc', content: '{"code":7}', isError: true },
      ],
    });
    expect(ctx.messages[3]).toEqual({ role: 'assistant', parts: [{ type: 'text', text: 'four' }] });
  });

  it('model → AI SDK → model is lossless for Anthropic-made messages', () => {
    const back = messagesFromAiSdk(JSON.parse(JSON.stringify(messagesToAiSdk(convo))));
    // the tool message comes back with names filled in from the calls, and its note as a user message
    expect(back[1]).toEqual(convo[1]);
    expect(back[2]?.parts.map((p) => (p.type === 'tool_result' ? { ...p, name: undefined } : p))).toEqual(
      convo[2]?.parts.filter((p) => p.type === 'tool_result').map((p) => ({ ...p, name: undefined })),
    );
    expect(back[3]).toEqual({ role: 'user', parts: [{ type: 'text', text: 'user note alongside' }] });
  });
});
