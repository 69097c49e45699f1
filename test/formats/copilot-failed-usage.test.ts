/**
 * The tokens of a failed call, and of a response continued after max_tokens, through Copilot CLI and back.
 * Copilot CLI 1.0.102 records a failed call's tokens (seen with the real binary against a stand-in answering
 * max_tokens, then 400 to its "Please continue"): a session.usage_record (`finishReason: "length"`), no
 * assistant.message, then the session.error; its session.shutdown counts the record. A call that failed outright
 * (400, or an error mid-stream, retried five times) it records no usage for. The failed call is read with that
 * usage (before, it was dropped: `stats` counted nothing), and another agent's failed turn with usage is written
 * the same way (before, its usage was left out with a warning). A message read from several records (a continued
 * response, a failed call) keeps each, so a copilot → copilot copy writes the same records, not one of their sum.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { type CopilotReadState, initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: string;
let env: DriverEnv;
let sources: Sources;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-copilot-failed-usage-'));
  env = { home, env: {} };
  sources = new Sources(env);
});
afterAll(async () => {
  await sources?.close();
  await rm(home, { recursive: true, force: true });
});

type Event = { type: string; data: Record<string, unknown>; agentId?: string };

const usageRecord = (apiCallId: string, inputTokens: number, outputTokens: number, finishReason: string) => ({
  type: 'session.usage_record',
  data: {
    usage: {
      model: 'claude-sonnet-4.5',
      inputTokens,
      outputTokens,
      cacheReadTokens: 30,
      cacheWriteTokens: 20,
      modelProvider: 'anthropic',
      apiEndpoint: '/v1/messages',
      apiCallId,
      finishReason,
    },
  },
});

/** A Copilot CLI session of these events (trimmed to the fields read) in the home; its id. */
async function recorded(id: string, events: Event[]): Promise<string> {
  const lines = [
    { type: 'session.start', data: { sessionId: id, startTime: '2026-11-27T07:35:14.185Z', context: { cwd: '/p' } } },
    ...events,
  ].map((e, i) => ({
    ...e,
    id: `${id.slice(0, 24)}${String(i + 1).padStart(12, '0')}`,
    timestamp: `2026-11-27T07:35:${String(15 + i)}.000Z`,
    parentId: i ? `${id.slice(0, 24)}${String(i).padStart(12, '0')}` : null,
  }));
  const dir = join(home, '.copilot', 'session-state', id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'events.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return id;
}

async function session(agent: string, id: string): Promise<Session> {
  const s = await sources.driver(agent).getSession(id);
  if (!s) throw new Error(`${agent} session ${id} not found`);
  return s;
}

/** The usage records of a Copilot CLI session, each as its tokens, apiCallId (threadbase's made-up ones alike) and finishReason. */
async function usageRecords(s: Session): Promise<unknown[]> {
  const lines = (await readFile(s.path as string, 'utf8')).trim().split('\n');
  return lines
    .map((l) => JSON.parse(l) as Event)
    .filter((e) => e.type === 'session.usage_record')
    .map((e) => {
      const u = e.data.usage as Record<string, unknown>;
      const apiCallId = String(u.apiCallId).startsWith('threadbase-') ? 'threadbase-' : u.apiCallId;
      return [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, apiCallId, u.finishReason];
    });
}

const assistants = (s: Session): Message[] =>
  s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));

const copy = async (s: Session, to: string) => session(to, (await convertSession(s, { to, env })).id);

describe("Copilot CLI's failed call after a response cut short", () => {
  const id = '9c1e2a44-1b0f-4c1d-8e57-0a1b2c3d4e5f';
  const events: Event[] = [
    { type: 'user.message', data: { content: 'please', messageId: 'u-1' } },
    { type: 'assistant.turn_start', data: { turnId: '0' } },
    usageRecord('msg_probe_1', 151, 7, 'length'),
    { type: 'assistant.turn_end', data: { turnId: '0' } },
    { type: 'assistant.turn_start', data: { turnId: '1' } },
    { type: 'assistant.turn_end', data: { turnId: '1' } },
    {
      type: 'session.error',
      data: {
        errorType: 'query',
        message: '400 PROBE continuation refused',
        statusCode: 400,
        providerCallId: 'req_2',
        originatingMessageId: 'u-1',
      },
    },
  ];
  // what its session.shutdown counted: inputTokens 151 (30 cache reads, 20 writes), outputTokens 7
  const spent = { input: 101, output: 7, cacheRead: 30, cacheWrite: 20, reasoning: 0 };

  it('is read with the usage Copilot CLI recorded for it, which the session counts', async () => {
    const s = await session('copilot', await recorded(id, events));
    expect(assistants(s)).toHaveLength(1);
    expect(assistants(s)[0]).toMatchObject({
      stopReason: 'error',
      error: '400 PROBE continuation refused',
      model: 'claude-sonnet-4.5',
      usage: spent,
    });
    expect(s.usage).toEqual(spent);
  });

  it('read in two parts (the record in the first, the error in the second), the same', async () => {
    const file = join(home, 'parts', 'events.jsonl');
    await mkdir(join(home, 'parts'), { recursive: true });
    const all = (await readFile(join(home, '.copilot', 'session-state', await recorded(id, events), 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n');
    await writeFile(file, `${all.slice(0, 4).join('\n')}\n`);
    const first = await parseEvents(file, initialState(id, '2026-11-27T07:35:14.185Z'));
    await writeFile(file, `${all.join('\n')}\n`);
    const state = JSON.parse(JSON.stringify(first.state)) as CopilotReadState;
    const second = await parseEvents(file, state, { start: first.offset });
    const failedCall = second.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(failedCall?.kind === 'message' ? failedCall.message.usage : undefined).toEqual(spent);
  });

  it('copied into Copilot CLI, has the same usage records and usage', async () => {
    const original = await session('copilot', await recorded(id, events));
    const copied = await copy(original, 'copilot');
    expect(await usageRecords(copied)).toEqual([[151, 7, 30, 20, 'msg_probe_1', 'length']]);
    expect(assistants(copied).map((m) => [m.stopReason, m.error, m.usage, m.responseId])).toEqual([
      ['error', '400 PROBE continuation refused', spent, 'msg_probe_1'],
    ]);
    expect(copied.usage).toEqual(original.usage);
  });
});

describe("another agent's failed turn with usage, into Copilot CLI", () => {
  const usage = { input: 12, output: 5, cacheRead: 3, cacheWrite: 4, reasoning: 0 };
  const failed = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const claudeSession = () =>
    chainSession('failed-usage', 'claude', join(home, 'project'), [
      ['u1', textMessage('user', 'hello')],
      [
        'a1',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'text', text: failed }],
          stopReason: 'error',
          error: failed,
          usage,
        },
      ],
      ['u2', textMessage('user', 'again')],
      ['a2', textMessage('assistant', 'hi', { model: 'claude-sonnet-4-5', responseId: 'msg_2', stopReason: 'end_turn', usage })],
    ]);

  it('is written as Copilot CLI records a failed call’s tokens, counted after claude → copilot → claude', async () => {
    const inClaude = await copy(claudeSession(), 'claude');
    const inCopilot = await copy(inClaude, 'copilot');
    const lines = (await readFile(inCopilot.path as string, 'utf8')).trim().split('\n');
    const types = lines.map((l) => (JSON.parse(l) as Event).type).filter((t) => t !== 'session.start');
    expect(types).toEqual([
      'user.message',
      'session.usage_record',
      'session.error',
      'user.message',
      'session.usage_record',
      'assistant.message',
    ]);
    expect(JSON.stringify(inCopilot.meta?.warnings ?? [])).not.toContain('usage');
    expect(assistants(inCopilot).map((m) => [m.stopReason, m.error, m.usage])).toEqual([
      ['error', failed, usage],
      ['end_turn', undefined, usage],
    ]);
    expect(inCopilot.usage).toEqual(inClaude.usage);
    const back = await copy(inCopilot, 'claude');
    expect(assistants(back).map((m) => [m.stopReason, m.usage])).toEqual([
      ['error', usage],
      ['end_turn', usage],
    ]);
    expect(back.usage).toEqual(inClaude.usage);
    // copilot → copilot: the same
    const again = await copy(inCopilot, 'copilot');
    expect(again.usage).toEqual(inCopilot.usage);
    expect(await usageRecords(again)).toEqual(await usageRecords(inCopilot));
  });
});

describe('a response Copilot CLI continued after max_tokens, copied into Copilot CLI', () => {
  const id = '2f7d3b10-6a4e-4b8c-9d21-3e4f5a6b7c8d';
  const events: Event[] = [
    { type: 'user.message', data: { content: 'PROBE please', messageId: 'u-1' } },
    usageRecord('msg_standin_0001', 94, 11, 'length'),
    usageRecord('msg_standin_0002', 136, 11, 'length'),
    usageRecord('msg_standin_0003', 177, 11, 'stop'),
    {
      type: 'assistant.message',
      data: { messageId: 'm1', model: 'claude-sonnet-4.5', content: 'done', toolRequests: [], apiCallId: 'msg_standin_0003' },
    },
  ];

  it('has its usage records one by one, as the original, and the same usage', async () => {
    const original = await session('copilot', await recorded(id, events));
    expect(assistants(original)[0]?.usage).toEqual({ input: 257, output: 33, cacheRead: 90, cacheWrite: 60, reasoning: 0 });
    const copied = await copy(original, 'copilot');
    expect(await usageRecords(copied)).toEqual(await usageRecords(original));
    expect(assistants(copied).map((m) => [m.responseId, m.stopReason, m.usage])).toEqual(
      assistants(original).map((m) => [m.responseId, m.stopReason, m.usage]),
    );
    expect(copied.usage).toEqual(original.usage);
  });

  it('whose usage no longer adds up to its records is written as one record of its usage', async () => {
    const original = await session('copilot', await recorded(id, events));
    const reply = assistants(original)[0] as Message;
    reply.usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const copied = await copy(original, 'copilot');
    expect(await usageRecords(copied)).toEqual([[1, 2, 0, 0, 'msg_standin_0003', 'stop']]);
    expect(copied.usage).toEqual(reply.usage);
  });
});
