/**
 * readableJson has one source, src/export/readable-json.ts: the HTML export calls it and the viewer
 * loads the same code as its asset `readable-json.js`, which the server makes from it. Before, the
 * viewer's render.js kept a JavaScript copy of its own, which could drift from the export's.
 * In chromium, the served module answers as the TypeScript does.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableJson } from '../../src/export/index.js';
import { createWebApp, READABLE_JSON_ASSET } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from '../e2e/browser.js';

const INPUTS = [
  '[{"query":"a.txt","result":"   1 | alpha\\n   2 | beta\\n","success":true}]',
  '{"output":"x\\ny","meta":{"n":[1,null],"e":{},"s":"two\\nlines"}}',
  '{"name":"pkg","version":"1.0.0","scripts":{"test":"vitest"}}',
  '{"a": "x\\ny"',
  'line one\\nline two',
  '  [[], {"deep": [{"k": "a\\nb", "l": [true, 2.5]}]}]  ',
];

describe('readableJson, one source for the viewer and the export', () => {
  it('the viewer has no copy of its own: render.js imports the served module', async () => {
    const render = await readFile('src/server/web/assets/render.js', 'utf8');
    expect(render).not.toMatch(/function readableJson\b/);
    expect(render).toContain(`import { readableJson } from './${READABLE_JSON_ASSET}';`);
  });

  it('the server serves the TypeScript function as an ES module', async () => {
    const app = createWebApp({ driver: new MemoryStore() });
    const res = await app.request(`/ui/assets/${READABLE_JSON_ASSET}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await res.text()).toMatch(/^export const readableJson = function readableJson\(/m);
  });
});

describe.skipIf(skipBrowser)('readableJson in the browser', () => {
  let served: Served;
  let browser: Browser;

  beforeAll(async () => {
    served = await serveApp(createWebApp({ driver: new MemoryStore() }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('the module the viewer loads answers as the export does', async () => {
    const { page } = browser;
    // the viewer's own page, so the module loads under its content security policy
    await page.goto(`${served.url}/ui`);
    // as a string: vitest would rewrite a function's import() into its own loader
    const inBrowser = (await page.evaluate(
      `import('/ui/assets/${READABLE_JSON_ASSET}').then((m) => ${JSON.stringify(INPUTS)}.map((t) => m.readableJson(t) ?? null))`,
    )) as (string | null)[];
    expect(inBrowser).toEqual(INPUTS.map((t) => readableJson(t) ?? null));
    expect(inBrowser.filter((x) => x !== null)).toHaveLength(3);
    expect(browser.errors).toEqual([]);
  });
});
