/**
 * A background sub-agent's notification, recorded by the real Claude Code against the loopback
 * stand-in, carried into pi and back with `convertSession`: pi sends it as Claude Code does (wrapped
 * in its reminder that it is no user input), and Claude Code resumes the copy that came back sending
 * what it sends for its original.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { TASK_NOTIFICATION_PREFIX } from '../../src/formats/claude/notifications.js';
import '../../src/formats/all.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { readSession, resumeInTarget } from '../helpers/conversions.js';

let home: AgentHome;
let sessionId: string;
let model: string | undefined;

beforeAll(async () => {
  home = await setupAgentHome();
  // the stand-in answers AGENT: with an Agent call; Claude Code 2.1.332 runs it in the background
  // and records its notification as a user record when it ends
  sessionId = (await runClaude(home, ['--allowedTools', 'Task', 'Agent'], 'AGENT: say hi')).session_id;
  const source = await readSession(home, 'claude', sessionId);
  model = source.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))[0];
}, 300_000);

afterAll(async () => {
  await home?.close();
});

const wrappedNotices = (messages: readonly Msg[]) =>
  messages.flatMap((m) =>
    (typeof m.content === 'string' ? [m.content] : m.content.map((b) => (b.type === 'text' ? String(b.text) : ''))).filter(
      (t) => t.startsWith(TASK_NOTIFICATION_PREFIX) && t.includes('<task-notification>'),
    ),
  );

describe("a background task's notification through pi and back", () => {
  it('pi sends it wrapped as Claude Code does; Claude Code resumes the copy as it resumes the original', async () => {
    const pi = await convertSession(await readSession(home, 'claude', sessionId), { to: 'pi', env: home.env });
    const back = await convertSession(await readSession(home, 'pi', pi.id), { to: 'claude', env: home.env });
    const sentByPi = await resumeInTarget(home, 'pi', { id: pi.id, source: 'pi', path: pi.path ?? '' }, 'probe pi');
    expect(wrappedNotices(sentByPi)).toHaveLength(1);
    const copy = await resumeInTarget(home, 'claude', { id: back.id, source: 'claude', path: '' }, 'probe copy', model);
    const original = await resumeInTarget(home, 'claude', { id: sessionId, source: 'claude', path: '' }, 'probe original', model);
    expect(wrappedNotices(original)).toHaveLength(1);
    expect(wrappedNotices(copy)).toEqual(wrappedNotices(original));
    expect(comparable(copy, 'probe copy')).toEqual(comparable(original, 'probe original'));
  });
});
