/**
 * Files a user attached by their bytes, and the real GitHub Copilot CLI (@github/copilot 1.0.102, offline
 * against the Anthropic stand-in). Copilot CLI keeps them as `blob` attachments and, resumed, sends a PDF as
 * a text of its name (`attached-<n>.pdf` without one), a text wrapped in `<attachment mimeType name>`, an
 * XML or binary one not at all (formats/copilot/attachments.ts); threadbase's context is what it sends, for
 * its own blobs and for another agent's PDF and text files threadbase writes as blobs (kept whole, read back).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { Message, Session } from '../../src/model/types.js';
import { copilotHomeForFile, COPILOT_MODEL as MODEL, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { chainSession, ONE_PIXEL_PNG, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-attach-');

const b64 = (t: string) => Buffer.from(t).toString('base64');
const PDF = b64('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const texts = (m: { content: unknown }) =>
  (m.content as { type: string; text?: string }[]).flatMap((b) => (b.type === 'text' ? [b.text] : [b.type]));

describe.skipIf(SKIP)('files attached by their bytes, and the real Copilot CLI', () => {
  it("Copilot CLI's own blobs are resumed as threadbase's context says", async () => {
    const id = randomUUID();
    const base = chainSession('b', 'copilot', home.project, [
      ['u1', textMessage('user', 'read these')],
      ['a1', textMessage('assistant', 'ok', { model: MODEL })],
    ]);
    const events = encodeCopilotEvents(base, { sessionId: id }).records as { type: string; data: Record<string, unknown> }[];
    const prompt = events.find((e) => e.type === 'user.message') as { data: Record<string, unknown> };
    prompt.data.attachments = [
      { type: 'blob', mimeType: 'image/png', data: ONE_PIXEL_PNG },
      { type: 'blob', mimeType: 'application/pdf', data: PDF },
      { type: 'blob', mimeType: 'text/plain', data: b64('trailing newlines\n\n') },
      { type: 'blob', mimeType: 'application/xml', data: b64('<a/>'), displayName: 'x.xml' },
      { type: 'blob', mimeType: 'application/json', data: b64('{"a":1}'), displayName: 'a.json' },
      { type: 'blob', mimeType: 'application/pdf', data: PDF, displayName: 'named.pdf' },
    ];
    const dir = join(home.dir, '.copilot', 'session-state', id);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const { sent, ours } = await resumedByCopilot(home, id, 'probe own');
    expect(texts(sent[0] as { content: unknown })).toEqual([
      'read these',
      'Attached image',
      'image',
      'attached-2.pdf',
      '<attachment mimeType="text/plain" name="Attached text">\ntrailing newlines\n\n\n</attachment>',
      '<attachment mimeType="application/json" name="a.json">\n{"a":1}\n</attachment>',
      'named.pdf',
    ]);
    expect(sent).toEqual(ours);
  }, 240_000);

  it("another agent's PDF and text files are written as blobs, resumed as threadbase reads them, and kept whole", async () => {
    const files: Message = {
      role: 'user',
      parts: [
        { type: 'text', text: 'read these' },
        { type: 'file', mediaType: 'application/pdf', data: PDF, name: 'spec.pdf' },
        { type: 'file', mediaType: 'application/pdf', data: PDF },
        { type: 'file', mediaType: 'text/markdown', data: b64('# notes\n'), name: 'notes.md' },
      ],
    };
    const info = await home.driver.writeSession(
      chainSession('files', 'claude', home.project, [
        ['u1', files],
        ['a1', textMessage('assistant', 'ok', { model: MODEL })],
      ]),
    );
    expect(info.meta?.warnings ?? []).toEqual([]);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe written');
    expect(texts(sent[0] as { content: unknown })).toEqual([
      'read these',
      'spec.pdf',
      'attached-2.pdf',
      '<attachment mimeType="text/markdown" name="notes.md">\n# notes\n\n</attachment>',
    ]);
    expect(sent).toEqual(ours);
    const read = (await home.driver.getSession(info.id)) as Session;
    const first = read.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
    const parts = first?.kind === 'message' ? first.message.parts : [];
    expect(parts.map((p) => (p.type === 'file' ? [p.mediaType, p.data, p.name] : p.type))).toEqual([
      'text',
      ['application/pdf', PDF, 'spec.pdf'],
      ['application/pdf', PDF, undefined],
      ['text/markdown', b64('# notes\n'), 'notes.md'],
    ]);
  }, 240_000);
});
