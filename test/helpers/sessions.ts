/** Small building blocks the tests' hand-made sessions share. */
import type { Entry, MessageEntry, Session } from '../../src/model/types.js';

/** A 1×1 PNG, base64: a real image every agent and encoder accepts, small enough to inline. */
export const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The ISO time `second` seconds into 2026 (UTC): distinct, ordered timestamps for hand-made entries. */
export function secondInto2026(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
}

/**
 * A session of one prompt and its text reply, written from threadbase (`at`: the entries' times,
 * default seconds into 2026), for tests of where an agent files or finds what we write.
 */
export function oneExchange(opts: {
  id: string;
  project: string;
  prompt: string;
  reply: string;
  assistant?: Partial<MessageEntry['message']>;
  title?: string;
  at?: (n: number) => string;
}): Session {
  const t = opts.at ?? secondInto2026;
  return {
    id: opts.id,
    source: 'threadbase',
    project: opts.project,
    ...(opts.title ? { title: opts.title } : {}),
    createdAt: t(0),
    updatedAt: t(2),
    messageCount: 2,
    entries: [
      {
        id: 'u1',
        parentId: null,
        timestamp: t(1),
        kind: 'message',
        message: { role: 'user', parts: [{ type: 'text', text: opts.prompt }] },
      },
      {
        id: 'a1',
        parentId: 'u1',
        timestamp: t(2),
        kind: 'message',
        message: { role: 'assistant', ...opts.assistant, parts: [{ type: 'text', text: opts.reply }] },
      },
    ],
  };
}

/**
 * Assistant records whose responses spread usage and cost over several records (a cost alone on a
 * later record, a response with neither, a record of its own without either), after one user message
 * `<prefix>0`, and a compaction whose summary's request was recorded (as OpenCode records it): what
 * every store must count as summarizeUsage counts (127 input, 10 output, 0.75, 4 responses).
 */
export function spreadUsageEntries(prefix = 'k'): Entry[] {
  const u = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
  const specs: [string, Partial<MessageEntry['message']>][] = [
    ['go', { role: 'user' }],
    // usage on the first record, a cost on the last alone (the last with usage gives the tokens)
    ['a', { model: 'big', responseId: 'r1', usage: u(100, 5), cost: 0.5 }],
    ['b', { model: 'big', responseId: 'r1', cost: 0.75 }],
    // a split response with neither counts as a response
    ['c', { model: 'big', responseId: 'r2' }],
    ['d', { model: 'big', responseId: 'r2' }],
    // a record of its own counts only with usage or a cost
    ['e', { model: 'small', usage: u(7, 3) }],
    ['f', { model: 'small' }],
  ];
  const messages: Entry[] = specs.map(([text, extra], i) => ({
    kind: 'message',
    id: `${prefix}${i}`,
    parentId: i ? `${prefix}${i - 1}` : null,
    timestamp: secondInto2026(i + 1),
    message: { role: 'assistant', parts: [{ type: 'text', text }], ...extra },
  }));
  const compaction: Entry = {
    kind: 'compaction',
    id: `${prefix}${specs.length}`,
    parentId: `${prefix}${specs.length - 1}`,
    timestamp: secondInto2026(specs.length + 1),
    summary: 'what we did so far',
    usage: u(20, 2),
    model: 'big',
  };
  return [...messages, compaction];
}

/** Every token count and price term Claude Code records of a request (usage the agents must keep). */
export const PRICE_TERMS = {
  input: 100,
  output: 50,
  cacheRead: 0,
  cacheWrite: 20,
  cacheWrite1h: 10,
  reasoning: 30,
  webSearches: 1,
  speed: 'fast' as const,
  inferenceGeo: 'us',
  advisors: [{ model: 'claude-opus-5', input: 400, output: 60, cacheRead: 0, cacheWrite: 0 }],
};
