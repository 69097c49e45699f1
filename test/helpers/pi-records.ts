/**
 * pi session records for tests that write a pi file by hand: a user and an assistant message (the
 * assistant's usage small and costless, its model the stand-in's), without id and parentId (pi's
 * version 1 files have none; a test of version 3 adds them).
 */
import { PI_MODEL, PI_PROVIDER } from './agents.js';

const usage = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export const piUserRecord = (text: string, ts: number) => ({
  type: 'message',
  timestamp: new Date(ts).toISOString(),
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: ts },
});

export const piAssistantRecord = (text: string, ts: number) => ({
  type: 'message',
  timestamp: new Date(ts).toISOString(),
  message: {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'anthropic-messages',
    provider: PI_PROVIDER,
    model: PI_MODEL,
    usage,
    stopReason: 'stop',
    timestamp: ts,
  },
});
