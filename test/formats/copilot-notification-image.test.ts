/**
 * Real Copilot CLI 1.0.102 sessions (test/fixtures/copilot/real-1.0.102-notification-image, see its
 * README): a background shell's `system.notification` and an image its `view` tool read. The reader
 * takes the notification as a user message Copilot CLI wrote itself and the image from its
 * session.binary_asset; the resume context is what Copilot CLI sent on resume (saved from the stand-in).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { injectedLabel } from '../../src/formats/injected.js';
import type { Message } from '../../src/model/types.js';

const FIXTURE = resolve('test/fixtures/copilot/real-1.0.102-notification-image');
const NOTIFIED = 'd7a9cc61-905c-47b1-a626-e781ba221c84';
const VIEWED = '0ba29c5d-b887-4770-b33c-a49207a097f5';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const driver = () => new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });

type Block = Record<string, unknown>;
/** A message as sent: a tool result's text as a string, as Copilot CLI sends it. */
const plain = (m: { role: string; content: string | Block[] }) => ({
  role: m.role,
  content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).map(({ cache_control: _c, ...b }) =>
    b.type === 'tool_result' && Array.isArray(b.content) && b.content.length === 1 ? { ...b, content: b.content[0].text } : b,
  ),
});

async function sentOnResume(file: string): Promise<unknown[]> {
  const sent = JSON.parse(await readFile(`${FIXTURE}/${file}`, 'utf8')) as unknown[];
  return sent.slice(0, -1); // the resume's own prompt
}

const messagesOf = (entries: { kind: string; sidechain?: boolean; message?: Message }[]) =>
  entries.flatMap((e) => (e.kind === 'message' && e.message && !e.sidechain ? [e.message] : []));

describe('Copilot CLI: a background shell finishing, and an image a tool read (real, 1.0.102)', () => {
  it('reads system.notification as a user message Copilot CLI wrote, sent on resume as it is', async () => {
    const s = await driver().getSession(NOTIFIED);
    const messages = messagesOf(s?.entries ?? []);
    const note = messages.find((m) => m.meta?.copilotInjected === 'notification');
    expect(note?.role).toBe('user');
    expect(note?.parts).toEqual([
      {
        type: 'text',
        text: '<system_notification>\nShell command "bg" (shellId: 0) has completed successfully.\n</system_notification>',
      },
    ]);
    expect(injectedLabel(note as Message)).toBe('notification, added by Copilot CLI');
    // not the session's title: the user's first prompt is
    expect(s?.title).toBe('BG: sleep 3; echo bg-finished');
    // Copilot CLI's own read_bash call after it, and its result
    const after = messages.slice(messages.indexOf(note as Message) + 1);
    expect(after[0]?.parts).toMatchObject([{ type: 'tool_call', name: 'read_bash', input: { shellId: '0' } }]);
    expect(after[1]?.parts).toMatchObject([
      { type: 'tool_result', content: 'bg-finished\n<shellId: 0 completed with exit code 0>' },
    ]);
    const context = contextToAnthropic(await driver().getContext(NOTIFIED)).messages.map(plain);
    expect(context.slice(0, -2)).toEqual(await sentOnResume('notification-sent-on-resume.json'));
  });

  it("reads a view result's image from its session.binary_asset; Copilot CLI sent its text only", async () => {
    const s = await driver().getSession(VIEWED);
    const result = messagesOf(s?.entries ?? []).find((m) => m.role === 'tool');
    expect(result?.parts[0]).toMatchObject({
      type: 'tool_result',
      name: 'view',
      content: [
        { type: 'text', text: 'Viewed image file successfully.' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    });
    const context = contextToAnthropic(await driver().getContext(VIEWED)).messages.map(plain);
    expect(context.slice(0, -2)).toEqual(await sentOnResume('image-sent-on-resume.json'));
  });
});
