/**
 * What an OpenCode copy keeps of another agent's files and of a response split around a result:
 * a plain-text file in a prompt is written as OpenCode records one the user attached inline (a synthetic
 * "Called the Read tool" text naming it, a synthetic text of its text, the data: text/plain file part)
 * and reads back as the file (name, type, text); a tool result's plain-text file and order are kept
 * beside its output and attachments and read back as they came; a response whose first call's result
 * Claude Code recorded before its second call is one OpenCode message, its usage counted once.
 */
import { describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { conversionLosses } from '../../src/convert/losses.js';
import '../../src/formats/all.js';
import { opencodeContext, sessionFromExport, sessionToExport } from '../../src/formats/opencode/index.js';
import { asOpenCodeSends } from '../../src/formats/opencode/parse.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { messageEntry, ONE_PIXEL_PNG, textMessage } from '../helpers/sessions.js';

const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const MODEL = 'claude-sonnet-4-5';

const sessionOf = (id: string, entries: Entry[]): Session => ({
  id,
  source: 'claude',
  project: '/w',
  createdAt: '',
  updatedAt: '',
  messageCount: 0,
  entries,
});
const messagesOf = (s: Session): Message[] => pathToLeaf(s).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
const roundTrip = (s: Session) => {
  const exported = sessionToExport(s, { sessionId: `ses_${s.id}`, directory: '/w' });
  return { exported, back: sessionFromExport(exported, `ses_${s.id}.json`) };
};

describe('a plain-text file in a prompt', () => {
  const prompt: Message = {
    role: 'user',
    parts: [
      { type: 'text', text: 'look at these' },
      { type: 'file', mediaType: 'text/plain', text: 'doc body\nline two', name: 'notes.txt' },
      { type: 'file', mediaType: 'text/markdown', text: '# Title', name: 'README.md', meta: { context: 'the readme' } },
      { type: 'file', mediaType: 'text/plain', data: Buffer.from('base64 body').toString('base64'), name: 'b.txt' },
      png,
    ],
  };
  const session = sessionOf('files', [
    messageEntry('u1', null, 1, prompt),
    messageEntry('a1', 'u1', 2, textMessage('assistant', 'Seen.', { model: MODEL, responseId: 'r1', usage })),
  ]);
  const { exported, back } = roundTrip(session);

  it('is written as OpenCode records a text file the user attached', () => {
    const parts = exported.messages[0]?.parts ?? [];
    expect(parts.map((p) => [p.type, p.synthetic ?? null, p.text ?? p.filename])).toEqual([
      ['text', null, 'look at these'],
      ['text', true, 'Called the Read tool with the following input: {"filePath":"notes.txt"}'],
      ['text', true, 'doc body\nline two'],
      ['file', null, 'notes.txt'],
      ['text', true, 'Called the Read tool with the following input: {"filePath":"README.md"}'],
      ['text', true, '# Title'],
      ['file', null, 'README.md'],
      ['text', true, 'Called the Read tool with the following input: {"filePath":"b.txt"}'],
      ['text', true, 'base64 body'],
      ['file', null, 'b.txt'],
      ['file', null, 'attachment'],
    ]);
    // OpenCode sends a data: file of another text type as a file the Anthropic provider refuses
    expect(parts.filter((p) => p.type === 'file').map((p) => p.mime)).toEqual([
      'text/plain',
      'text/plain',
      'text/plain',
      'image/png',
    ]);
    expect(parts[3]?.url).toBe(`data:text/plain;base64,${Buffer.from('doc body\nline two').toString('base64')}`);
  });

  it('reads back as the same files', () => {
    expect(messagesOf(back)[0]?.parts).toEqual([...prompt.parts.slice(0, 4), { ...png, meta: { filename: 'attachment' } }]);
  });

  it('the loss report says a Markdown file is sent as text/plain', () => {
    expect(conversionLosses(session, 'opencode')).toEqual([
      'claude:files → opencode: plain-text files of another type (Markdown) are recorded and sent as text/plain in OpenCode, as it sends a file it read; their type kept for the way back (1)',
    ]);
  });

  it('is sent as the texts OpenCode recorded for it', () => {
    const sent = contextToAnthropic({ messages: opencodeContext(back).messages.map(asOpenCodeSends) }).messages;
    expect(sent[0]?.content).toEqual([
      { type: 'text', text: 'look at these' },
      { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"notes.txt"}' },
      { type: 'text', text: 'doc body\nline two' },
      { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"README.md"}' },
      { type: 'text', text: '# Title' },
      { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"b.txt"}' },
      { type: 'text', text: 'base64 body' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG } },
    ]);
  });
});

it('an empty plain-text file is sent as its note only, as OpenCode leaves an empty text out', () => {
  const empty = { type: 'file' as const, mediaType: 'text/plain', text: '', name: 'empty.txt' };
  const { back } = roundTrip(sessionOf('empty', [messageEntry('u1', null, 1, { role: 'user', parts: [empty] })]));
  expect(messagesOf(back)[0]?.parts).toEqual([empty]);
  expect(asOpenCodeSends(messagesOf(back)[0] as Message).parts).toEqual([
    { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"empty.txt"}', meta: { synthetic: true } },
  ]);
});

describe('files in a tool result', () => {
  const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'Read', input: { file_path: `/p/${id}` } });
  const results: Message = {
    role: 'tool',
    parts: [
      {
        type: 'tool_result',
        callId: 'toolu_1',
        content: [
          { type: 'text', text: 'listed\nthree' },
          { type: 'file', mediaType: 'text/plain', text: 'file text', name: 'a.txt' },
          png,
          { type: 'text', text: 'after' },
        ],
      },
      { type: 'tool_result', callId: 'toolu_2', content: [png, { type: 'text', text: 'image first' }] },
      { type: 'tool_result', callId: 'toolu_3', content: [{ type: 'text', text: 'plain' }, png] },
    ],
  };
  const session = sessionOf('results', [
    messageEntry('u1', null, 1, textMessage('user', 'read them')),
    messageEntry('a1', 'u1', 2, {
      role: 'assistant',
      model: MODEL,
      responseId: 'r1',
      usage,
      parts: [call('toolu_1'), call('toolu_2'), call('toolu_3')],
    }),
    messageEntry('t1', 'a1', 3, results),
    messageEntry('a2', 't1', 4, textMessage('assistant', 'Read.', { model: MODEL, responseId: 'r2', usage })),
  ]);
  const { exported, back } = roundTrip(session);

  it('keeps the images as attachments and the texts in the output', () => {
    const tools = (exported.messages[1]?.parts ?? []).filter((p) => p.type === 'tool');
    const states = tools.map((p) => p.state as { output: string; attachments?: { mime: string }[] });
    expect(states.map((s) => [s.output, s.attachments?.map((a) => a.mime)])).toEqual([
      ['listed\nthree\nfile text\nafter', ['image/png']],
      ['image first', ['image/png']],
      ['plain', ['image/png']],
    ]);
    // a result already in OpenCode's order keeps nothing beside it
    expect(tools[2]?.threadbase).toBeUndefined();
  });

  it('reads back as the results came', () => {
    expect(messagesOf(back)[2]?.parts.map((p) => (p.type === 'tool_result' ? p.content : p))).toEqual(
      results.parts.map((p) => (p.type === 'tool_result' ? p.content : p)),
    );
  });

  it("the loss report says a result's plain-text file is sent in its output without its name", () => {
    expect(conversionLosses(session, 'opencode')).toEqual([
      "claude:results → opencode: plain-text files in tool results are sent joined into the result's output text, without their names (OpenCode sends a result's text, then its images); kept whole for the way back (1)",
    ]);
  });

  it('is sent as OpenCode sends a result: its output, then its attachments', () => {
    const sent = contextToAnthropic({ messages: messagesOf(back).map(asOpenCodeSends) }).messages;
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG } };
    expect(sent[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'text', text: 'listed\nthree\nfile text\nafter' }, image],
      },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'image first' }, image] },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: [{ type: 'text', text: 'plain' }, image] },
    ]);
  });
});

describe("Claude Code's first result recorded between a response's two calls", () => {
  const block = (parts: Message['parts']): Message => ({ role: 'assistant', model: MODEL, responseId: 'msg_1', usage, parts });
  const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command: `echo ${id}` } });
  const result = (callId: string): Message => ({ role: 'tool', parts: [{ type: 'tool_result', callId, content: callId }] });
  const session = sessionOf('layout-two', [
    messageEntry('u1', null, 1, textMessage('user', 'two calls')),
    messageEntry('a1', 'u1', 2, block([{ type: 'text', text: 'Running.' }])),
    messageEntry('a2', 'a1', 3, block([call('toolu_1')])),
    messageEntry('r1', 'a2', 4, result('toolu_1')),
    messageEntry('a3', 'r1', 5, block([call('toolu_2')])),
    messageEntry('r2', 'a3', 6, result('toolu_2')),
    messageEntry('a4', 'r2', 7, textMessage('assistant', 'Both done.', { model: MODEL, responseId: 'msg_2', usage })),
  ]);
  const { exported, back } = roundTrip(session);

  it('is one OpenCode message with both calls, at its last record’s time', () => {
    const assistants = exported.messages.filter((m) => m.info.role === 'assistant');
    expect(assistants.map((m) => m.parts.map((p) => p.type))).toEqual([
      ['step-start', 'text', 'tool', 'tool', 'step-finish'],
      ['step-start', 'text', 'step-finish'],
    ]);
    expect((assistants[0]?.info.time as { created?: number } | undefined)?.created).toBe(Date.parse('2026-01-01T00:00:05Z'));
    expect(assistants[0]?.info.threadbase).toEqual({ responseId: 'msg_1' });
  });

  it('reads back as one response with its results, its usage once', () => {
    const messages = messagesOf(back);
    expect(messages.map((m) => [m.role, ...m.parts.map((p) => ('text' in p ? p.text : p.type))])).toEqual([
      ['user', 'two calls'],
      ['assistant', 'Running.', 'tool_call', 'tool_call'],
      ['tool', 'tool_result', 'tool_result'],
      ['assistant', 'Both done.'],
    ]);
    expect(messages.filter((m) => m.responseId === 'msg_1')).toHaveLength(1);
    expect(messages.filter((m) => m.usage?.input === 10)).toHaveLength(2);
  });
});
