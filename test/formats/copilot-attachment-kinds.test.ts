/**
 * Images and files of the kinds probed with the real Copilot CLI 1.0.102 (test/agents/copilot-attachments.test.ts),
 * attached by their bytes (formats/copilot/attachments.ts): what it sends of each resumed (an image after its
 * name, another image type as a note or nothing, a document as its name, a text escaped in `<attachment>`,
 * the rest nothing), and another agent's written so (a document as a blob, an image's name kept).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { copilotContext } from '../../src/formats/copilot/context.js';
import { initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession, ONE_PIXEL_PNG, textMessage } from '../helpers/sessions.js';

const b64 = (t: string) => Buffer.from(t).toString('base64');
type Event = { type: string; data: Record<string, unknown> };
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A session whose prompt has these attachments, read back as Copilot CLI recorded it */
async function withAttachments(attachments: Record<string, unknown>[]): Promise<Session> {
  const base = chainSession('k', 'copilot', '/p', [
    ['u1', textMessage('user', 'look')],
    ['a1', textMessage('assistant', 'ok', { model: 'claude-sonnet-4.5' })],
  ]);
  const events = encodeCopilotEvents(base, { sessionId: 'k' }).records as unknown as Event[];
  (events.find((e) => e.type === 'user.message') as Event).data.attachments = attachments;
  const dir = await mkdtemp(join(tmpdir(), 'tb-copilot-kinds-'));
  try {
    const file = join(dir, 'events.jsonl');
    await writeFile(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const { entries } = await parseEvents(file, initialState('k', '2026-01-01T00:00:00.000Z'));
    return { ...base, entries, leafId: entries.at(-1)?.id ?? null };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('attachments of other kinds in Copilot CLI', () => {
  it('are sent as the real Copilot CLI sent them', async () => {
    const s = await withAttachments([
      { type: 'blob', mimeType: 'image/png', data: ONE_PIXEL_PNG, displayName: 'a "q" <b>.png' },
      { type: 'blob', mimeType: 'image/jpg', data: ONE_PIXEL_PNG },
      { type: 'blob', mimeType: 'image/bmp', data: ONE_PIXEL_PNG, displayName: 'e.bmp' },
      { type: 'blob', mimeType: 'image/svg+xml', data: b64('<svg/>'), displayName: 'f.svg' },
      { type: 'blob', mimeType: 'image/JPEG', data: ONE_PIXEL_PNG },
      { type: 'blob', mimeType: 'text/csv', data: b64('a,b\n<1>,&'), displayName: 'x&y.csv' },
      { type: 'blob', mimeType: 'application/yaml', data: b64('a: 1') },
      { type: 'blob', mimeType: 'application/x-sh', data: b64('echo'), displayName: 'k.sh' },
      { type: 'blob', mimeType: DOCX, data: b64('PK') },
      { type: 'blob', mimeType: 'application/msword', data: b64('DOC'), displayName: 'w.doc' },
      { type: 'blob', mimeType: 'Text/Plain; charset=utf-8', data: b64('upper') },
    ]);
    const first = contextToAnthropic(copilotContext(s)).messages[0] as { content: Record<string, unknown>[] };
    expect(first.content.map((b) => b.text ?? `image ${(b.source as { media_type: string }).media_type}`)).toEqual([
      'look',
      'a "q" <b>.png',
      'image image/png',
      'Attached image',
      'image image/jpeg',
      'e.bmp\n[image/bmp omitted: the model reads PNG, JPEG, WebP and GIF images only]',
      '<attachment mimeType="text/csv" name="x&amp;y.csv">\na,b\n&lt;1&gt;,&amp;\n</attachment>',
      '<attachment mimeType="application/yaml" name="Attached text">\na: 1\n</attachment>',
      'attached-9.docx',
      'w.doc',
      '<attachment mimeType="text/plain" name="Attached text">\nupper\n</attachment>',
    ]);
  });

  it("an image's name is written back, another agent's document written as a blob", async () => {
    const s = await withAttachments([{ type: 'blob', mimeType: 'image/png', data: ONE_PIXEL_PNG, displayName: 'shot.png' }]);
    const user = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
    const prompt = (user?.kind === 'message' ? user.message : undefined) as Message;
    prompt.parts.push({ type: 'file', mediaType: DOCX, data: b64('PK'), name: 'plan.docx' });
    const out = encodeCopilotEvents(s).records as unknown as Event[];
    expect(out.find((e) => e.type === 'user.message')?.data.attachments).toEqual([
      { type: 'blob', mimeType: 'image/png', data: ONE_PIXEL_PNG, displayName: 'shot.png' },
      { type: 'blob', mimeType: DOCX, data: b64('PK'), displayName: 'plan.docx' },
    ]);
  });
});
