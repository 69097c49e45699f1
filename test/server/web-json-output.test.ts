/**
 * A tool's output that is JSON whose strings hold line breaks — Cline's read_files answers
 * `[{"query", "result": "   1 | …\n   2 | …", "success"}]`, the file's lines as `\n`s in one line of
 * JSON — reads as lines in the viewer and the HTML export: keys and values one a line, each string's
 * lines as lines, the JSON as recorded folded beneath. JSON without such strings (a file's own JSON,
 * a one-line answer) shows as it is. In chromium, on the sessions the real Cline CLI wrote.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readableJson, sessionToHtml } from '../../src/export/index.js';
import '../../src/formats/all.js';
import type { Session } from '../../src/model/types.js';
import { screenshot, skipBrowser, viewerOverFixtures } from '../e2e/browser.js';

/** Cline 3.0.65: read_files of a.txt and b.txt, 1500 lines each (test/fixtures/cline/compaction-3.0.65) */
const READ_TWO_ID = '1795669065564_8ih0v';
/** Cline 3.0.65: read_files of a one-line notes.txt */
const READ_NOTES_ID = '1795664340517_twuoj';

const A_TXT_START = '- query: a.txt\n  result: |\n       1 | alpha line\n       2 | alpha line\n';

describe('readableJson', () => {
  it('writes JSON with multi-line strings as lines, and leaves any other text alone', () => {
    expect(readableJson('[{"query":"a.txt","result":"   1 | alpha\\n   2 | beta\\n","success":true}]')).toBe(
      '- query: a.txt\n  result: |\n       1 | alpha\n       2 | beta\n  success: true',
    );
    expect(readableJson('{"output":"x\\ny","meta":{"n":[1,null],"e":{},"s":"two\\nlines"}}')).toBe(
      'output: |\n  x\n  y\nmeta:\n  n:\n    - 1\n    - null\n  e: {}\n  s: |\n    two\n    lines',
    );
    // a file's own JSON and one-line answers stay JSON; text that only looks like it stays text
    expect(readableJson('{"name":"pkg","version":"1.0.0","scripts":{"test":"vitest"}}')).toBeUndefined();
    expect(readableJson('[{"query":"notes.txt","result":"1 | hello from notes","success":true}]')).toBeUndefined();
    expect(readableJson('{"a": "x\\ny"')).toBeUndefined();
    expect(readableJson('line one\\nline two')).toBeUndefined();
  });
});

describe.skipIf(skipBrowser)('JSON tool output in the viewer and the export', () => {
  const viewer = viewerOverFixtures({
    prefix: 'threadbase-web-json-',
    fixtures: ['cline'],
    setup: async (h) => {
      await cp('test/fixtures/cline/compaction-3.0.65/data', join(h, '.cline', 'data'), { recursive: true });
    },
  });

  it('the viewer shows the lines Cline read as lines, the JSON as recorded folded', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${READ_TWO_ID}`);
    await page.waitForSelector('#conversation .entry');
    const call = page.locator('details.tool', { hasText: 'a.txt' }).first();
    await call.locator('summary').first().click();
    // the first pre of the output (28,544 characters: shown cut, with a button for the rest)
    const readable = call.locator('.readable-json pre.output').first();
    await readable.waitFor();
    await expect(readable.isVisible()).resolves.toBe(true);
    expect(await readable.textContent()).toMatch(new RegExp(`^${A_TXT_START.replace(/[|]/g, '\\|')}`));
    const recorded = call.locator('details.as-recorded');
    await expect(recorded.locator('pre').isVisible()).resolves.toBe(false);
    await recorded.locator('summary').click();
    await recorded.locator('pre').waitFor();
    expect(await recorded.locator('pre').textContent()).toMatch(/^\[\{"query":"a\.txt","result":" {3}1 \| alpha line\\n/);
    await screenshot(page, 'web-json-output-cline');
    // a one-line answer stays as Cline wrote it
    await page.goto(`${viewer.served.url}/#/session/${READ_NOTES_ID}`);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, READ_NOTES_ID);
    await page.locator('details.tool > summary').first().click();
    await page.locator('details.tool pre.output').first().waitFor();
    await expect(page.locator('details.tool pre.output').first().textContent()).resolves.toBe(
      '[{"query":"notes.txt","result":"1 | hello from notes","success":true}]',
    );
    await expect(page.locator('.readable-json').count()).resolves.toBe(0);
    expect(viewer.browser.errors).toEqual([]);
  });

  it('the HTML export does the same', async () => {
    const { page } = viewer.browser;
    // a page of its own: not the viewer's document, whose policy allows no inline style
    await page.goto('about:blank');
    await page.setContent(sessionToHtml((await viewer.sources.driver('cline').getSession(READ_TWO_ID)) as Session));
    const call = page.locator('details.tool', { hasText: 'a.txt' }).first();
    await call.locator('summary').first().click();
    expect(await call.locator('.io > pre').nth(1).textContent()).toMatch(new RegExp(`^${A_TXT_START.replace(/[|]/g, '\\|')}`));
    await expect(call.locator('details.as-recorded pre').isVisible()).resolves.toBe(false);
  });
});
