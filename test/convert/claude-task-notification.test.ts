/**
 * A background task's notification in a Claude Code session (the real 2.1.330 transcript: a sub-agent
 * run in the background, its notification, /compact) carried into other agents and back. Claude Code
 * records it as a user record (`origin.kind: "task-notification"`) and sends it wrapped in a reminder
 * that it is no user input; pi, codex and OpenCode have no such record, so they get the text as
 * Claude Code sends it and send the model that, not a bare `<task-notification>` it would take for the
 * user's words. Back in Claude Code it is Claude Code's own record again, sent the same.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { Entry, MessageEntry, Session, SourceName } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { readSession } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

/** The real transcript: two prompts, a background task's notification, /compact, a prompt after it. */
const COMPACTED = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: string;
let env: DriverEnv;
let source: Session;

beforeAll(async () => {
  ({ home, env } = await fixtureHome({ prefix: 'tb-claude-notice-', fixtures: ['claude'] }));
  source = await readSession({ env }, 'claude', COMPACTED);
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** The session's message entry whose text holds the notification. */
function noticeIn(s: Session): MessageEntry {
  const e = s.entries.find(
    (x: Entry): x is MessageEntry => x.kind === 'message' && messageText(x.message).includes('<task-notification>'),
  );
  if (!e) throw new Error(`no notification in ${s.source}:${s.id}`);
  return e;
}

/** The text of the last user message the agent sends when it resumes `s` at entry `leafId` (Claude Code answers it "No response requested."). */
async function sentAt(agent: string, s: Session, leafId: string): Promise<string> {
  const sources = new Sources(env);
  try {
    const ctx = await sources.driver(agent).getContext(s.id, { leafId });
    const last = ctx.messages.findLast((m) => m.role === 'user');
    if (!last) throw new Error('no user message in the context');
    return messageText(last);
  } finally {
    await sources.close();
  }
}

async function hop(from: Session, to: SourceName): Promise<Session> {
  return readSession({ env }, to, (await convertSession(from, { to, env })).id);
}

describe("a Claude Code background task's notification", () => {
  let sentByClaude: string;
  beforeAll(async () => {
    sentByClaude = await sentAt('claude', source, noticeIn(source).id);
  });

  it('is sent by Claude Code wrapped in its reminder (the record holds the bare text)', () => {
    expect(sentByClaude).toMatch(/^<system-reminder>\n\[SYSTEM NOTIFICATION - NOT USER INPUT\][\s\S]*<task-notification>/);
    expect(messageText(noticeIn(source).message)).toMatch(/^<task-notification>/);
  });

  for (const agent of ['pi', 'codex'] as const)
    it(`is written into ${agent} as Claude Code sends it, and ${agent} sends that`, async () => {
      const copy = await hop(source, agent);
      const notice = noticeIn(copy);
      expect(messageText(notice.message)).toBe(sentByClaude);
      expect(await sentAt(agent, copy, notice.id)).toBe(sentByClaude);
    });

  it('comes back from pi as Claude Code’s own record, which Claude Code sends as it sent the original', async () => {
    const back = await hop(await hop(source, 'pi'), 'claude');
    const notice = noticeIn(back);
    expect(messageText(notice.message)).toBe(messageText(noticeIn(source).message));
    expect((notice.raw as { origin?: unknown }).origin).toEqual({ kind: 'task-notification' });
    expect(await sentAt('claude', back, notice.id)).toBe(sentByClaude);
  });

  it('is copied as it is into Claude Code and into threadbase’s own store', async () => {
    for (const to of ['claude', 'threadbase'] as const) {
      const written = await convertSession(source, { to, env });
      const sources = new Sources(env);
      try {
        const copy = await sources.driver(to).getSession(written.id);
        expect(messageText(noticeIn(copy as Session).message), to).toBe(messageText(noticeIn(source).message));
      } finally {
        await sources.close();
      }
    }
  });
});
