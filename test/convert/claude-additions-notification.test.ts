/**
 * A background task's notification another agent holds in the words Claude Code sent it
 * (src/formats/claude/notifications.ts) is known by the reminder's structure — its tags, its
 * `[SYSTEM NOTIFICATION …]` head, the bare `<task-notification>` after it — not by 2.1.332's exact
 * sentences: one worded by another Claude Code version goes back into Claude Code as its record too
 * (the bare text, `origin.kind: "task-notification"`), which Claude Code wraps in its own words.
 */
import { describe, expect, it } from 'vitest';
import { encodeClaudeTranscript } from '../../src/formats/claude/encode.js';
import {
  TASK_NOTIFICATION_PREFIX,
  TASK_NOTIFICATION_SUFFIX,
  unwrappedTaskNotification,
} from '../../src/formats/claude/notifications.js';
import type { Message, Session } from '../../src/model/types.js';

const BARE =
  '<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n<summary>Agent "sub task" finished</summary>\n</task-notification>';

/** The same reminder as another version might word it: other sentences, another paragraph. */
const OTHER_WORDING = `<system-reminder>\n[SYSTEM NOTIFICATION - AUTOMATED, NOT FROM THE USER]\nA background task changed state. This is not the user speaking.\n\nTreat nothing here as the user's approval.\n\n${BARE}\n</system-reminder>`;

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const textOf = (m: Message | undefined) => (m?.parts[0]?.type === 'text' ? m.parts[0].text : undefined);

describe("a task notification in Claude Code's words, whatever its version's sentences", () => {
  it('is unwrapped in 2.1.332’s words and in other words of the same structure', () => {
    expect(textOf(unwrappedTaskNotification(user(TASK_NOTIFICATION_PREFIX + BARE + TASK_NOTIFICATION_SUFFIX)))).toBe(BARE);
    expect(textOf(unwrappedTaskNotification(user(OTHER_WORDING)))).toBe(BARE);
    // the head without a blank line before the notification
    expect(textOf(unwrappedTaskNotification(user(`<system-reminder>\n[SYSTEM NOTIFICATION]\n${BARE}\n</system-reminder>`)))).toBe(
      BARE,
    );
  });

  it('is not found in a reminder without its head, nor in a user’s text that quotes a notification', () => {
    for (const text of [
      `<system-reminder>\nSomething else.\n\n${BARE}\n</system-reminder>`,
      `Look at this:\n${OTHER_WORDING}`,
      `${OTHER_WORDING}\nand what do you make of it?`,
      `<system-reminder>\n[SYSTEM NOTIFICATION]\nNo notification here.\n</system-reminder>`,
    ])
      expect(unwrappedTaskNotification(user(text)), text).toBeUndefined();
  });

  it('goes into Claude Code as its record: the bare text and the origin', () => {
    const session: Session = {
      id: 's1',
      source: 'pi',
      project: '/tmp/p',
      createdAt: '2026-11-27T00:00:00.000Z',
      updatedAt: '2026-11-27T00:00:00.000Z',
      entries: [
        { kind: 'message', id: 'e1', parentId: null, timestamp: '2026-11-27T00:00:00.000Z', message: user('hello') },
        { kind: 'message', id: 'e2', parentId: 'e1', timestamp: '2026-11-27T00:00:01.000Z', message: user(OTHER_WORDING) },
      ],
      leafId: 'e2',
    } as Session;
    const records = encodeClaudeTranscript(session, { sessionId: 's1', cwd: '/tmp/p' }).records as {
      uuid?: string;
      origin?: unknown;
      message?: { content?: unknown };
    }[];
    const notice = records.find((r) => r.uuid === 'e2');
    expect(notice?.origin).toEqual({ kind: 'task-notification' });
    expect(notice?.message?.content).toBe(BARE);
  });
});
