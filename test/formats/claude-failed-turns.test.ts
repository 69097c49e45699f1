/**
 * Another agent's failed turn through Claude Code and back (`convert`, real stores in a temp HOME):
 * threadbase writes it as an API-error record, which Claude Code leaves out on resume as the
 * agent it came from did (test/agents/claude.test.ts), and reads it back whole: its parts, model,
 * usage, stop reason and error, so pi → Claude Code → pi and OpenCode → Claude Code → OpenCode
 * give back the failed turn, still left out of the agent's own context.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { messageEntry, secondInto2026 as t } from '../helpers/sessions.js';

let home: string;
let env: DriverEnv;
let sources: Sources;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-claude-failed-'));
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  copyFileSync(resolve('test/fixtures/opencode/opencode.db'), join(home, '.local', 'share', 'opencode', 'opencode.db'));
  env = { home, env: {} };
  sources = new Sources(env);
});
afterAll(async () => {
  await sources?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const said = (text: string) => [{ type: 'text' as const, text }];
const usage = { input: 12, output: 5, cacheRead: 3, cacheWrite: 4, reasoning: 0 };

function session(failed: Partial<Message>): Session {
  const entry = (id: string, parentId: string | null, message: Message): Entry =>
    messageEntry(id, parentId, Number(id.slice(1)), message);
  const model = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
  return {
    id: 'failed',
    source: 'threadbase',
    project: join(home, 'project'),
    createdAt: t(0),
    updatedAt: t(4),
    messageCount: 4,
    entries: [
      entry('e1', null, { role: 'user', parts: said('q1') }),
      entry('e2', 'e1', { role: 'assistant', ...model, responseId: 'msg_failed', usage, parts: [], ...failed }),
      entry('e3', 'e2', { role: 'user', parts: said('q2') }),
      entry('e4', 'e3', { role: 'assistant', ...model, responseId: 'msg_ok', usage, stopReason: 'end_turn', parts: said('a2') }),
    ],
  };
}

async function readBack(agent: string, id: string): Promise<Session> {
  const s = await sources.driver(agent).getSession(id);
  if (!s) throw new Error(`${agent} session ${id} not found`);
  return s;
}

/** The session written into `a`, then a → claude → a; each read back. */
async function throughClaude(s: Session, a: string) {
  const first = await readBack(a, (await convertSession(s, { to: a, env })).id);
  const inClaude = await readBack('claude', (await convertSession(first, { to: 'claude', env })).id);
  const back = await readBack(a, (await convertSession(inClaude, { to: a, env })).id);
  return { first, inClaude, back };
}

function failedOf(s: Session): Message {
  const m = s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []))[0];
  if (!m) throw new Error('no assistant message');
  return m;
}

const kept = (m: Message) => ({
  parts: m.parts,
  model: m.model,
  usage: m.usage,
  stopReason: m.stopReason,
  error: m.error,
});

describe("another agent's failed turn through Claude Code and back", () => {
  it('pi → Claude Code → pi: the errored turn with its content, model, usage and error', async () => {
    const { first, inClaude, back } = await throughClaude(
      session({
        stopReason: 'error',
        error: 'overloaded_error: Overloaded',
        parts: [{ type: 'thinking', thinking: 'Let me see.', signature: 'c2ln' }, ...said('The answer is')],
      }),
      'pi',
    );
    expect(failedOf(first).stopReason).toBe('error');
    expect(kept(failedOf(inClaude))).toEqual(kept(failedOf(first)));
    expect(kept(failedOf(back))).toEqual(kept(failedOf(first)));
    for (const [agent, s] of [
      ['pi', first],
      ['claude', inClaude],
      ['pi', back],
    ] as const)
      expect(JSON.stringify((await sources.driver(agent).getContext(s.id)).messages), agent).not.toContain('The answer is');
  });

  it('OpenCode → Claude Code → OpenCode: the failed turn OpenCode skips, with its call', async () => {
    const { first, inClaude, back } = await throughClaude(
      session({
        error: 'APIError: connection reset',
        parts: [...said('running it'), { type: 'tool_call', id: 'toolu_failed', name: 'Bash', input: { command: 'ls' } }],
      }),
      'opencode',
    );
    expect(failedOf(first).meta?.excludedFromContext).toBe(true);
    expect(failedOf(inClaude)).toMatchObject({ error: failedOf(first).error, parts: failedOf(first).parts });
    // the same error text each time round (OpenCode's error name is not prefixed again on each write)
    expect(failedOf(first).error).toBe('APIError: connection reset');
    expect(failedOf(back)).toMatchObject({ error: 'APIError: connection reset', parts: failedOf(first).parts });
    expect(failedOf(back).meta?.excludedFromContext).toBe(true);
    for (const [agent, s] of [
      ['opencode', first],
      ['claude', inClaude],
      ['opencode', back],
    ] as const)
      expect(JSON.stringify((await sources.driver(agent).getContext(s.id)).messages), agent).not.toContain('running it');
  });
});
