/**
 * `context --format markdown` says a refused or cancelled call in the words the export and viewer use
 * (declinedWords), not as a failed one, and an image no browser can show in words (imageData), as the
 * Markdown export does; a failed call and a good image are written as before. Real codex 0.171's
 * refused and interrupted calls, and pi's damaged image (a PNG of its signature alone), through the CLI.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declinedWords } from '../../src/convert/declined.js';
import { contextToMarkdown, partToMarkdown } from '../../src/convert/markdown.js';
import { makePng } from '../e2e/fixtures.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome, homeEnv } from '../helpers/fixture-homes.js';

/** test/fixtures/codex/declined-home: codex 0.171, a call refused, then one interrupted */
const CODEX_DECLINED = '01a218a3-3d21-7243-94da-32f24d403112';
/** test/fixtures/pi/v3-all-types.jsonl: a user image of 8 bytes, the PNG signature alone */
const PI_DAMAGED_IMAGE = '0190cccc-3333-7000-8000-000000000003';

describe('the context as Markdown', () => {
  it('says a refused or cancelled result in the export’s words, a failed one as an error', () => {
    const md = contextToMarkdown({
      messages: [
        {
          role: 'tool',
          parts: [
            { type: 'tool_result', callId: 'c1', content: 'no', isError: true, meta: { refused: true } },
            { type: 'tool_result', callId: 'c2', content: 'stopped', isError: true, meta: { cancelled: true } },
            { type: 'tool_result', callId: 'c3', content: 'exit 1', isError: true },
          ],
        },
      ],
    });
    expect(md).toContain(`**tool result** (c1) — **refused** (${declinedWords('refused')})\n\n\`\`\`\nno\n\`\`\``);
    expect(md).toContain(`**tool result** (c2) — **cancelled** (${declinedWords('cancelled')})`);
    expect(md).toContain('**tool result** (c3) — error');
    expect(md).not.toMatch(/\((c1|c2)\) — error/);
  });

  it('says an image no browser can show in words, a good one as before', () => {
    const png = makePng(2, 2).toString('base64');
    const image = (extra: { data?: string; url?: string }) => ({ type: 'image' as const, mediaType: 'image/png', ...extra });
    expect(partToMarkdown(image({ data: png }))).toBe(`![image](data:image/png;base64,${png})`);
    expect(partToMarkdown(image({ url: 'https://example.com/a.png' }))).toBe('![image](https://example.com/a.png)');
    expect(partToMarkdown(image({ url: `data:image/png;base64,${png}` }))).toBe(`![image](data:image/png;base64,${png})`);
    expect(partToMarkdown(image({ data: 'iVBORw0KGgo=' }))).toBe('[image: image/png, 8 bytes, cut short, could not be read]');
    expect(partToMarkdown(image({}))).toBe('[image: image/png, 0 bytes, could not be read]');
    expect(partToMarkdown(image({ url: 'data:image/gif;base64,R0lGODlh' }))).toBe(
      '[image: image/gif, 6 bytes, cut short, could not be read]',
    );
  });
});

describe('threadbase context --format markdown', () => {
  let fx: FixtureHome;
  let codexHome: string;
  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-context-md-', fixtures: ['piAll'] });
    codexHome = await mkdtemp(join(tmpdir(), 'threadbase-context-md-codex-'));
    await cp('test/fixtures/codex/declined-home', join(codexHome, '.codex'), { recursive: true });
  });
  afterAll(async () => {
    if (fx) await rm(fx.home, { recursive: true, force: true });
    if (codexHome) await rm(codexHome, { recursive: true, force: true });
  });

  it('says real codex’s refused and interrupted calls as the export does', async () => {
    const md = await runCliOk(homeEnv(codexHome), ['context', CODEX_DECLINED, '--format', 'markdown']);
    expect(md).toContain(`— **refused** (${declinedWords('refused')})`);
    expect(md).toContain(`— **cancelled** (${declinedWords('cancelled')})`);
    expect(md).not.toContain(' — error');
  });

  it('says pi’s damaged image in words', async () => {
    const md = await runCliOk(fx.env, ['context', PI_DAMAGED_IMAGE, '--format', 'markdown']);
    expect(md).toContain('[image: image/png, 8 bytes, cut short, could not be read]');
    expect(md).not.toContain('![image]');
  });
});
