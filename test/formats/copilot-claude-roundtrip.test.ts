/**
 * Claude Code → Copilot CLI → Claude Code on real Claude Code sessions (test/fixtures/claude/real):
 * what Copilot CLI has no place for comes back as it was.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

/** test/fixtures/claude/real/projects/-tmp-cc-proj: a /compact with a preserved segment */
const COMPACTED = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

/** test/fixtures/claude/resume/projects/-tmp-cc-resume: a request that failed ("API Error: 400 boom") */
const API_ERROR = 'afe3ee95-bd60-4e20-b090-72ddee96297d';

let home: FixtureHome;
beforeAll(async () => {
  home = await fixtureHome({ prefix: 'tb-copilot-claude-', fixtures: ['claude'] });
  cpSync('test/fixtures/claude/resume/projects', join(home.home, '.claude', 'projects'), { recursive: true });
});
afterAll(() => {
  if (home) rmSync(home.home, { recursive: true, force: true });
});

async function throughCopilot(id: string): Promise<{ source: Session; copied: Session; back: Session; backPath: string }> {
  const claude = new ClaudeDriver(home.env);
  const copilot = new CopilotDriver(home.env);
  const source = (await claude.getSession(id)) as Session;
  const copied = (await copilot.getSession((await convertSession(source, copilot)).id)) as Session;
  const written = await convertSession(copied, claude);
  return { source, copied, back: (await claude.getSession(written.id)) as Session, backPath: written.path as string };
}

type AssistantRecord = {
  type: string;
  message?: { id?: string; usage?: { input_tokens?: number } };
  threadbase?: { keptCopyOf?: string };
};
const assistantRecords = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AssistantRecord)
    .filter((r) => r.type === 'assistant');
const totals = (s: Session) => {
  const { usage, responses } = summarizeUsage(s.entries);
  return { ...usage, responses };
};

describe('Claude Code → Copilot CLI → Claude Code', () => {
  it("a failed request is Copilot CLI's session.error, and Claude Code's API-error record again", async () => {
    const { source, copied, back } = await throughCopilot(API_ERROR);
    const failed = (s: Session) =>
      s.entries.flatMap((e) =>
        e.kind === 'message' && e.message.error !== undefined
          ? [[e.message.role, e.message.stopReason, e.message.error, e.message.parts]]
          : [],
      );
    expect(failed(source)).toEqual([
      ['assistant', 'error', 'API Error: 400 boom', [{ type: 'text', text: 'API Error: 400 boom' }]],
    ]);
    expect(failed(copied)).toEqual(failed(source));
    expect(failed(back)).toEqual(failed(source));
    const raw = copied.entries.find((e) => e.kind === 'message' && e.message.error)?.raw as { type: string };
    expect(raw.type).toBe('session.error');
  });

  it('a compacted session keeps its token totals and the reply Copilot CLI repeats after the compaction', async () => {
    const { source, copied, back, backPath } = await throughCopilot(COMPACTED);
    // the Copilot copy writes the kept reply again after the compaction, with no usage record of its own
    const summaryReply = (s: Session) =>
      s.entries.flatMap((e) =>
        e.kind === 'message' && e.message.responseId === 'msg_standin_0006' ? [e.message.usage?.input] : [],
      );
    expect(summaryReply(source)).toEqual([3406]);
    expect(summaryReply(copied)).toEqual([3406, undefined]);
    // in Claude Code's file the copy is a response of its own with no usage (Claude Code would join a
    // record of the same message.id to the one before the compaction), its response id kept beside it
    const written = assistantRecords(backPath).filter(
      (r) => r.message?.id === 'msg_standin_0006' || r.threadbase?.keptCopyOf === 'msg_standin_0006',
    );
    expect(written.map((r) => [r.message?.id === 'msg_standin_0006', r.message?.usage?.input_tokens])).toEqual([
      [true, 3406],
      [false, 0],
    ]);
    expect(summaryReply(back)).toEqual([3406, undefined]);
    expect(totals(source).input).toBe(17173);
    expect(totals(copied)).toEqual(totals(source));
    expect(totals(back)).toEqual(totals(source));
  });

  it('a record without usage of a response another record has it for carries that usage, as Claude Code writes one', async () => {
    const claude = new ClaudeDriver(home.env);
    const usage = { input: 120, output: 7, cacheRead: 30, cacheWrite: 0, reasoning: 0 };
    const reply = (text: string, withUsage: boolean) => ({
      role: 'assistant' as const,
      model: 'claude-sonnet-4-5',
      responseId: 'msg_split',
      parts: [{ type: 'text' as const, text }],
      ...(withUsage ? { usage } : {}),
    });
    const session = chainSession('split', 'threadbase', '/p', [
      ['u1', textMessage('user', 'hi')],
      ['a1', reply('first', true)],
      ['a2', reply('second', false)],
    ]);
    const written = await claude.writeSession(session);
    expect(assistantRecords(written.path as string).map((r) => r.message?.usage?.input_tokens)).toEqual([120, 120]);
    const read = (await claude.getSession(written.id)) as Session;
    expect(totals(read)).toEqual(totals(session));
    expect(totals(read).input).toBe(120);
  });
});
