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
/** 2×2 red GIF and WebP images (made with sharp) */
const GIF = 'R0lGODlhAgACAIAAAExpcf8AACH5BAUAAAAALAAAAAACAAIAAAICjFMAOw==';
const WEBP = 'UklGRjwAAABXRUJQVlA4IDAAAADQAQCdASoCAAIAAUAmJaACdLoB+AADsAD+8ut//NgVzXPv9//S4P0uD9Lg/9KQAAA=';
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

  it("Copilot CLI's own images and files of other kinds are resumed as threadbase's context says", async () => {
    const id = randomUUID();
    const base = chainSession('k', 'copilot', home.project, [
      ['u1', textMessage('user', 'look')],
      ['a1', textMessage('assistant', 'ok', { model: MODEL })],
    ]);
    const events = encodeCopilotEvents(base, { sessionId: id }).records as { type: string; data: Record<string, unknown> }[];
    const prompt = events.find((e) => e.type === 'user.message') as { data: Record<string, unknown> };
    prompt.data.attachments = [
      { type: 'blob', mimeType: 'image/png', data: ONE_PIXEL_PNG, displayName: 'a "q" <b>.png' },
      { type: 'blob', mimeType: 'image/jpg', data: ONE_PIXEL_PNG },
      { type: 'blob', mimeType: 'image/gif', data: GIF, displayName: 'c.gif' },
      { type: 'blob', mimeType: 'image/webp', data: WEBP },
      { type: 'blob', mimeType: 'image/bmp', data: ONE_PIXEL_PNG, displayName: 'e.bmp' },
      { type: 'blob', mimeType: 'image/svg+xml', data: b64('<svg/>'), displayName: 'f.svg' },
      { type: 'blob', mimeType: 'image/JPEG', data: ONE_PIXEL_PNG },
      { type: 'blob', mimeType: 'text/csv', data: b64('a,b\n<1>,&'), displayName: 'x&y.csv' },
      { type: 'blob', mimeType: 'application/yaml', data: b64('a: 1') },
      { type: 'blob', mimeType: 'application/x-sh', data: b64('echo'), displayName: 'k.sh' },
      { type: 'blob', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', data: b64('PK') },
      { type: 'blob', mimeType: 'application/msword', data: b64('DOC'), displayName: 'w.doc' },
      { type: 'blob', mimeType: 'Text/Plain; charset=utf-8', data: b64('upper') },
    ];
    const dir = join(home.dir, '.copilot', 'session-state', id);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const { sent, ours } = await resumedByCopilot(home, id, 'probe kinds');
    const shown = ((sent[0]?.content ?? []) as { type: string; text?: string; source?: { media_type: string } }[]).map(
      (b) => b.text ?? `image ${b.source?.media_type}`,
    );
    expect(shown).toEqual([
      'look',
      'a "q" <b>.png',
      'image image/png',
      'Attached image',
      'image image/jpeg',
      'c.gif',
      'image image/gif',
      'Attached image',
      'image image/webp',
      'e.bmp\n[image/bmp omitted: the model reads PNG, JPEG, WebP and GIF images only]',
      '<attachment mimeType="text/csv" name="x&amp;y.csv">\na,b\n&lt;1&gt;,&amp;\n</attachment>',
      '<attachment mimeType="application/yaml" name="Attached text">\na: 1\n</attachment>',
      'attached-11.docx',
      'w.doc',
      '<attachment mimeType="text/plain" name="Attached text">\nupper\n</attachment>',
    ]);
    expect(sent).toEqual(ours);
  }, 240_000);

  it("another agent's images and documents of other kinds are written as blobs, resumed as threadbase reads them", async () => {
    const DOCX = b64('PK docx bytes');
    const files: Message = {
      role: 'user',
      parts: [
        { type: 'text', text: 'look at these' },
        { type: 'image', mediaType: 'image/gif', data: GIF },
        { type: 'image', mediaType: 'image/bmp', data: ONE_PIXEL_PNG },
        {
          type: 'file',
          mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          data: DOCX,
          name: 'plan.docx',
        },
        { type: 'file', mediaType: 'application/yaml', data: b64('k: <v>\n') },
      ],
    };
    const info = await home.driver.writeSession(
      chainSession('kinds', 'claude', home.project, [
        ['u1', files],
        ['a1', textMessage('assistant', 'ok', { model: MODEL })],
      ]),
    );
    expect(info.meta?.warnings).toEqual([
      'image(s) of image/bmp kept as attachments Copilot CLI does not send as images (it reads PNG, JPEG, GIF and WebP)',
    ]);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe other kinds');
    expect(texts(sent[0] as { content: unknown })).toEqual([
      'look at these',
      'Attached image',
      'image',
      'Attached image\n[image/bmp omitted: the model reads PNG, JPEG, WebP and GIF images only]',
      'plan.docx',
      '<attachment mimeType="application/yaml" name="Attached text">\nk: &lt;v&gt;\n\n</attachment>',
    ]);
    expect(sent).toEqual(ours);
    const read = (await home.driver.getSession(info.id)) as Session;
    const first = read.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
    // kept whole; the nameless file with its place among the attachments, which names it when sent
    const [, ...more] = files.parts;
    expect(first?.kind === 'message' ? first.message.parts : []).toEqual([
      files.parts[0],
      ...more.map((p) => (p.type === 'file' && !p.name ? { ...p, meta: { copilotAttachment: 4 } } : p)),
    ]);
  }, 240_000);
});
