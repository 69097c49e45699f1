/**
 * A PDF or text file from another agent's user message, written into Copilot CLI as a blob attachment
 * (formats/copilot/attachments.ts: Copilot CLI keeps its bytes and sends the PDF as its name, the text
 * wrapped in `<attachment>`), kept whole: Claude Code → Copilot CLI → Claude Code gives the same document
 * blocks back (it was a "[file omitted]" note). What Copilot CLI sends is in copilotContext.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { CopilotDriver, copilotContext } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-attach-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
const files = (s: Session) =>
  (buildContext(s).messages[0]?.parts ?? []).flatMap((p) => (p.type === 'file' ? [[p.mediaType, p.data, p.name]] : []));

describe('a PDF and a text file into Copilot CLI and back', () => {
  it('are blob attachments, sent as Copilot CLI sends its own, and come back whole into Claude Code', async () => {
    const env = homeEnv(home);
    const claude = new ClaudeDriver(env);
    const copilot = new CopilotDriver(env);
    const written = await claude.writeSession(
      chainSession('docs', 'threadbase', '/p', [
        [
          'u1',
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'read these' },
              { type: 'file', mediaType: 'application/pdf', data: PDF, name: 'spec.pdf' },
              { type: 'file', mediaType: 'text/plain', data: Buffer.from('plain words').toString('base64') },
            ],
          },
        ],
        ['a1', textMessage('assistant', 'ok', { model: 'claude-sonnet-4-5' })],
      ]),
    );
    const source = (await claude.getSession(written.id)) as Session;
    const want = files(source);
    expect(want.map((f) => f[0])).toEqual(['application/pdf', 'text/plain']);
    const inCopilot = await convertSession(source, copilot);
    expect(inCopilot.meta?.warnings ?? []).not.toContainEqual(expect.stringContaining('text note'));
    const copied = (await copilot.getSession(inCopilot.id)) as Session;
    expect(files(copied)).toEqual(want);
    expect(copilotContext(copied).messages[0]?.parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual([
      'read these',
      want[0]?.[2] ?? 'attached-1.pdf',
      `<attachment mimeType="text/plain" name="${want[1]?.[2] ?? 'Attached text'}">\nplain words\n</attachment>`,
    ]);
    const back = (await claude.getSession((await convertSession(copied, claude)).id)) as Session;
    expect(files(back)).toEqual(want);
  });
});
