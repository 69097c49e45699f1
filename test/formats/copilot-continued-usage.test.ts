/**
 * A reply Copilot CLI continued after max_tokens. Seen with the real 1.0.102 against the stand-in answering
 * `stop_reason: "max_tokens"`: it asks "Please continue from where you left off." (not recorded) twice, records a
 * session.usage_record (`finishReason: "length"`) for each of the three responses but one assistant.message (the
 * last response's), and its session.shutdown counts all three. The message's usage is all three's, so the
 * session's usage is what Copilot CLI counts (before, the first two were dropped); read in two parts too.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CopilotReadState, initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-continued-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const ID = '5b0c7f0e-3d1a-4f7e-9a52-6c1d2e3f4a5b';

/** the events of the real run (trimmed to the fields read), three responses of 44/86/127 input and 11 output tokens each */
function events(): Record<string, unknown>[] {
  const usage = (n: number, input: number, initiator: string) => ({
    type: 'session.usage_record',
    data: {
      usage: {
        model: 'claude-sonnet-4.5',
        inputTokens: input,
        outputTokens: 11,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        initiator,
        modelProvider: 'anthropic',
        apiCallId: `msg_standin_000${n}`,
        apiEndpoint: '/v1/messages',
        finishReason: 'length',
      },
    },
  });
  return [
    { type: 'session.start', data: { sessionId: ID, startTime: '2026-11-27T01:46:18.076Z', context: { cwd: '/p' } } },
    { type: 'user.message', data: { content: 'PROBE please', delivery: 'idle' } },
    { type: 'assistant.turn_start', data: { turnId: '0' } },
    usage(1, 44, 'user'),
    { type: 'assistant.turn_end', data: { turnId: '0' } },
    { type: 'assistant.turn_start', data: { turnId: '1' } },
    usage(2, 86, 'agent'),
    { type: 'assistant.turn_end', data: { turnId: '1' } },
    { type: 'assistant.turn_start', data: { turnId: '2' } },
    usage(3, 127, 'agent'),
    {
      type: 'assistant.message',
      data: {
        messageId: 'm1',
        model: 'claude-sonnet-4.5',
        content: 'partial answer',
        toolRequests: [],
        apiCallId: 'msg_standin_0003',
      },
    },
    { type: 'assistant.turn_end', data: { turnId: '2' } },
  ].map((e, i) => ({
    ...e,
    id: `ev-${i + 1}`,
    timestamp: `2026-11-27T01:46:${String(20 + i)}.000Z`,
    parentId: i ? `ev-${i}` : null,
  }));
}
const lines = (evs: unknown[]) => evs.map((e) => `${JSON.stringify(e)}\n`).join('');
const ALL = { input: 257, output: 33, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

describe('a reply Copilot CLI continued after max_tokens', () => {
  it("has the usage of every response it took, as Copilot CLI's shutdown counts them", async () => {
    const d = join(dir, 'whole', 'session-state', ID);
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'events.jsonl'), lines(events()));
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: join(dir, 'whole') } });
    const session = (await driver.getSession(ID)) as Session;
    const reply = buildContext(session).messages.at(-1);
    expect(reply).toMatchObject({ role: 'assistant', responseId: 'msg_standin_0003', stopReason: 'max_tokens', usage: ALL });
    expect(session.usage).toEqual(ALL);
  });

  it('read in two parts (the records in the first, the message in the second), the same', async () => {
    const file = join(dir, 'parts', 'events.jsonl');
    await mkdir(join(dir, 'parts'), { recursive: true });
    await writeFile(file, lines(events().slice(0, 9)));
    const first = await parseEvents(file, initialState(ID, '2026-11-27T01:46:18.076Z'));
    await writeFile(file, lines(events()));
    const state = JSON.parse(JSON.stringify(first.state)) as CopilotReadState;
    const second = await parseEvents(file, state, { start: first.offset });
    const reply = second.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(reply?.kind === 'message' ? reply.message.usage : undefined).toEqual(ALL);
  });
});
