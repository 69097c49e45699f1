/**
 * An image the assistant made (codex's image generation, test/fixtures/codex/audit-home) converted into
 * Claude Code: the Messages API takes images only in user turns, so the transcript's assistant record
 * holds the note Claude Code sends in its place, the image kept at the record level (`threadbase.parts`,
 * which Claude Code neither reads nor sends) and read back from there; Claude Code -> codex gives codex
 * its image again, and convert says so.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { ImagePart, Session, SessionInfo } from '../../src/model/types.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const CODEX_ID = '01a21357-17c5-7c31-842a-b2bbe61459bd';
const NOTE = '[image made by the assistant (image/png); kept by threadbase, not sent]';

let home: string;
let env: DriverEnv;
let sources: Sources;
let codex: Session;
let written: SessionInfo;

const assistantImages = (s: Session): ImagePart[] =>
  s.entries.flatMap((e) =>
    e.kind === 'message' && e.message.role === 'assistant'
      ? e.message.parts.filter((p): p is ImagePart => p.type === 'image')
      : [],
  );

interface Rec {
  type?: string;
  message?: { role?: string; content?: unknown };
  threadbase?: { parts?: { block: number; image?: ImagePart }[] };
}
const records = (path: string): Rec[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
const blocksOf = (r: Rec): { type: string; text?: string }[] =>
  Array.isArray(r.message?.content) ? (r.message.content as { type: string; text?: string }[]) : [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-claude-assistant-images-'));
  cpSync(join(FIXTURES, 'codex/audit-home'), join(home, '.codex'), { recursive: true });
  env = { home, env: {} };
  sources = new Sources(env);
  codex = (await sources.driver('codex').getSession(CODEX_ID)) as Session;
  [written] = (await convertSessionAll(codex, { to: 'claude', env })) as [SessionInfo];
});
afterAll(async () => {
  await sources?.close();
  rmSync(home, { recursive: true, force: true });
});

describe("an image codex's assistant made, into Claude Code", () => {
  it('the transcript: no image block in any assistant message, the note in its place, the image kept at the record level', () => {
    expect(assistantImages(codex)).toHaveLength(1);
    const assistant = records(written.path as string).filter((r) => r.type === 'assistant');
    expect(assistant.flatMap(blocksOf).some((b) => b.type === 'image')).toBe(false);
    const holder = assistant.find((r) => r.threadbase?.parts?.some((k) => k.image));
    expect(holder).toBeDefined();
    const kept = holder?.threadbase?.parts?.find((k) => k.image);
    // the note is the block the kept image names, and nothing inside a block is threadbase's
    expect(blocksOf(holder as Rec)[kept?.block as number]).toEqual({ type: 'text', text: NOTE });
    expect(kept?.image).toEqual(assistantImages(codex)[0]);
    expect(assistant.flatMap(blocksOf).some((b) => 'threadbase' in b)).toBe(false);
  });

  it('convert warns that the image is written as a note', () => {
    const warnings = (written.meta?.warnings ?? []) as string[];
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/images the assistant made have no place in Claude Code's assistant messages.*\(1\)$/),
      ]),
    );
    expect(warnings.some((w) => /left out/.test(w) && /image/.test(w))).toBe(false);
  });

  it('read back: the image part with its data in its place; what Claude Code sends: the note, no image', async () => {
    const [made] = assistantImages(codex);
    const read = (await sources.driver('claude').getSession(written.id)) as Session;
    expect(assistantImages(read)).toEqual([made]);
    const sent = (await sources.driver('claude').getContext(written.id)).messages.filter((m) => m.role === 'assistant');
    expect(sent.some((m) => m.parts.some((p) => p.type === 'image'))).toBe(false);
    expect(sent.flatMap((m) => m.parts).some((p) => p.type === 'text' && p.text === NOTE)).toBe(true);
  });

  it('Claude Code -> codex gives codex its image again', async () => {
    const [made] = assistantImages(codex);
    const read = (await sources.driver('claude').getSession(written.id)) as Session;
    const [back] = await convertSessionAll(read, { to: 'codex', env });
    const again = (await sources.driver('codex').getSession(back?.id as string)) as Session;
    expect(assistantImages(again).map((p) => p.data)).toEqual([made?.data]);
  });
});
