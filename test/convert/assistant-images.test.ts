/**
 * An image the assistant made (codex's image generation, test/fixtures/codex/audit-home) converted into
 * pi or OpenCode, whose assistant messages hold no images: the agent sends a note in its place, the
 * image is kept beside the note and read back, so pi/OpenCode -> codex gives codex its image again, and
 * convert says so.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { ImagePart, Session } from '../../src/model/types.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const CODEX_ID = '01a21357-17c5-7c31-842a-b2bbe61459bd';

let home: string;
let env: DriverEnv;
let sources: Sources;
let codex: Session;

const assistantImages = (s: Session): ImagePart[] =>
  s.entries.flatMap((e) =>
    e.kind === 'message' && e.message.role === 'assistant'
      ? e.message.parts.filter((p): p is ImagePart => p.type === 'image')
      : [],
  );

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-assistant-images-'));
  cpSync(join(FIXTURES, 'codex/audit-home'), join(home, '.codex'), { recursive: true });
  mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
  copyFileSync(join(FIXTURES, 'opencode/opencode.db'), join(home, '.local/share/opencode/opencode.db'));
  env = { home, env: {} };
  sources = new Sources(env);
  codex = (await sources.driver('codex').getSession(CODEX_ID)) as Session;
});
afterAll(async () => {
  await sources?.close();
  rmSync(home, { recursive: true, force: true });
});

const NOTE = '[image made by the assistant (image/png); kept by threadbase, not sent]';

describe("an image codex's assistant made", () => {
  for (const [to, name] of [
    ['pi', 'pi'],
    ['opencode', 'OpenCode'],
  ] as const)
    it(`into ${name}: a note ${name} sends, the image kept beside it and read back; back into codex, codex has it again`, async () => {
      const [made] = assistantImages(codex);
      expect(made?.data).toBeTruthy();
      const [written] = await convertSessionAll(codex, { to, env });
      const warnings = (written?.meta?.warnings ?? []) as string[];
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`images the assistant made have no place in ${name}'s assistant messages.*\\(1\\)$`)),
        ]),
      );
      expect(warnings.some((w) => /left out/.test(w) && /image/.test(w))).toBe(false);

      const read = (await sources.driver(to).getSession(written?.id as string)) as Session;
      expect(assistantImages(read)).toEqual([made]);
      // what the agent sends: the note, where the image was
      const sent = (await sources.driver(to).getContext(written?.id as string)).messages.filter((m) => m.role === 'assistant');
      expect(sent.some((m) => m.parts.some((p) => p.type === 'image'))).toBe(false);
      expect(sent.flatMap((m) => m.parts).some((p) => p.type === 'text' && p.text === NOTE)).toBe(true);

      const [back] = await convertSessionAll(read, { to: 'codex', env });
      const again = (await sources.driver('codex').getSession(back?.id as string)) as Session;
      expect(assistantImages(again).map((p) => p.data)).toEqual([made?.data]);
    });

  it('pi writes the note with the image beside it, no image block in the assistant message', async () => {
    const [written] = await convertSessionAll(codex, { to: 'pi', env });
    const lines = readFileSync(written?.path as string, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const blocks = lines.flatMap((r) => (r.type === 'message' && r.message.role === 'assistant' ? r.message.content : []));
    expect(blocks.some((b: { type: string }) => b.type === 'image')).toBe(false);
    const note = blocks.find((b: { threadbase?: { image?: unknown } }) => b.threadbase?.image);
    expect(note).toMatchObject({ type: 'text', text: NOTE });
  });
});
