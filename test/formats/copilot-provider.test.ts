/**
 * A reply's provider through Copilot CLI and back: only a usage record says it (modelProvider), so a
 * reply written without usage (pi's turns a compaction kept, another agent's) kept it nowhere, and
 * pi, which resumes on the last response's provider and model and sends another provider's signed
 * thinking as text, was sent the copy's thinking as text (agents/roundtrip-pi-compaction, pi → copilot → pi).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import '../../src/formats/all.js';
import { type CopilotReadState, initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { Message, Usage } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const usage: Usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

async function readBack(replies: Message[]): Promise<Message[]> {
  const session = chainSession(
    's',
    'pi',
    '/p',
    replies.flatMap((m, i): [string, Message][] => [
      [`u${i}`, textMessage('user', `go ${i}`)],
      [`a${i}`, m],
    ]),
  );
  const { records } = encodeCopilotEvents(session);
  const dir = await mkdtemp(join(tmpdir(), 'tb-copilot-provider-'));
  try {
    const file = join(dir, 'events.jsonl');
    await writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const state: CopilotReadState = initialState('s', '2026-01-01T00:00:00.000Z');
    const { entries } = await parseEvents(file, state);
    return entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('keeps the provider of a reply with usage and of one without', async () => {
  const read = await readBack([
    { role: 'assistant', provider: 'standin', model: 'claude-standin', responseId: 'r1', parts: [{ type: 'text', text: 'a' }] },
    {
      role: 'assistant',
      provider: 'standin',
      model: 'claude-standin',
      responseId: 'r2',
      usage,
      parts: [{ type: 'text', text: 'b' }],
    },
  ]);
  expect(read.map((m) => m.provider)).toEqual(['standin', 'standin']);
});
