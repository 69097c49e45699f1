/**
 * The web viewer: a static single-page app (plain HTML, CSS and ES modules in ./assets) and the
 * JSON routes it reads (./data-routes.ts). `mountWebViewer` adds both to a Hono app; the shell and
 * assets are public (they hold no data), the data routes want the server's key when it has one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import escapeHtml from 'escape-html';
import { type Env, Hono } from 'hono';
import { declinedMarkOf, declinedWords } from '../../convert/declined.js';
import { imageData, recordedImage } from '../../convert/image-data.js';
import { readableJson } from '../../export/readable-json.js';
import { localCommand } from '../../formats/claude/local-command.js';
import { type WebDataRoutesOptions, webDataRoutes } from './data-routes.js';

export { WebData } from './data.js';
export { type ConvertTargets, type WebDataRoutesOptions, webDataRoutes, writableTargets } from './data-routes.js';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The assets live in src/server/web/assets. Under tsx this module is beside them; after
 * `npm run build` it is in dist/server/web and the package ships src/, so look there too.
 */
export function assetsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'assets'), resolve(here, '../../../src/server/web/assets')];
  for (const c of candidates) if (existsSync(join(c, 'app.js'))) return c;
  throw new Error(`threadbase web assets not found (looked in ${candidates.join(', ')})`);
}

/** The asset that is no file: readableJson, served from its TypeScript source. */
export const READABLE_JSON_ASSET = 'readable-json.js';
/** The asset that is no file: localCommand, served from its TypeScript source. */
export const LOCAL_COMMAND_ASSET = 'local-command.js';
/** The asset that is no file: declinedMarkOf and declinedWords, a refused or cancelled call as the export says it. */
export const DECLINED_ASSET = 'declined.js';
/** The asset that is no file: imageData and recordedImage, an image's data judged as the exports judge it. */
export const IMAGE_DATA_ASSET = 'image-data.js';

/**
 * A function the export and the viewer share as an ES module for the browser: its own code as the
 * running server has it (tsc's or esbuild's JavaScript of it), so it is not kept twice. esbuild, which
 * runs the source under tsx, names inner functions through a `__name` helper of its module: given here.
 */
function functionModule(fns: Record<string, { fn: (...args: never[]) => unknown; source: string }>): string {
  return `const __name = (fn) => fn;
${Object.entries(fns)
  .map(
    ([name, { fn, source }]) =>
      `// served from ${source} (${name}'s code as the server runs it)\nexport const ${name} = ${fn.toString()};\n`,
  )
  .join('')}`;
}

let cached: Map<string, string> | undefined;
function loadAssets(): Map<string, string> {
  if (cached) return cached;
  const dir = assetsDir();
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (CONTENT_TYPES[extname(name)]) files.set(name, readFileSync(join(dir, name), 'utf8'));
  }
  files.set(READABLE_JSON_ASSET, functionModule({ readableJson: { fn: readableJson, source: 'src/export/readable-json.ts' } }));
  files.set(
    LOCAL_COMMAND_ASSET,
    functionModule({ localCommand: { fn: localCommand, source: 'src/formats/claude/local-command.ts' } }),
  );
  files.set(
    DECLINED_ASSET,
    functionModule({
      declinedMarkOf: { fn: declinedMarkOf, source: 'src/convert/declined.ts' },
      declinedWords: { fn: declinedWords, source: 'src/convert/declined.ts' },
    }),
  );
  files.set(
    IMAGE_DATA_ASSET,
    functionModule({
      // recordedImage calls imageData: one module holds both
      imageData: { fn: imageData, source: 'src/convert/image-data.ts' },
      recordedImage: { fn: recordedImage, source: 'src/convert/image-data.ts' },
    }),
  );
  cached = files;
  return files;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface WebViewerOptions extends WebDataRoutesOptions {
  /** Shown in the page title and header. */
  title?: string;
}

/** The HTML shell; the only server-side value in it is the (escaped) title. */
export function shellHtml(title: string): string {
  const shell = loadAssets().get('index.html');
  if (!shell) throw new Error('index.html missing from the web assets');
  return shell.replaceAll('{{title}}', escapeHtml(title));
}

/** Adds the viewer to `app`: the shell at / and /ui, assets at /ui/assets/*, data at /api/v1/web/*. */
export function mountWebViewer<E extends Env>(app: Hono<E>, opts: WebViewerOptions): Hono<E> {
  const title = opts.title ?? 'threadbase';
  const page = () =>
    new Response(shellHtml(title), { headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS } });
  app.get('/', page);
  app.get('/ui', page);
  app.get('/ui/', page);
  // Browsers ask for it whatever the page says.
  app.get('/favicon.ico', (c) => c.redirect('/ui/assets/icon.svg', 301));
  app.get('/ui/assets/:name', (c) => {
    const name = c.req.param('name');
    const body = loadAssets().get(name);
    const type = CONTENT_TYPES[extname(name)];
    if (body === undefined || !type || name === 'index.html') return c.text('not found', 404);
    return c.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache', ...SECURITY_HEADERS });
  });
  app.route('/api/v1/web', webDataRoutes(opts));
  return app;
}

/** A Hono app that is only the viewer (what `threadbase ui` serves). */
export function createWebApp(opts: WebViewerOptions): Hono {
  const app = new Hono();
  // a route the API does not have answers in JSON as its other errors do (Hono's default is a text page)
  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json({ error: 'not_found', message: `no route ${c.req.method} ${c.req.path}` }, 404)
      : c.text('not found', 404),
  );
  return mountWebViewer(app, opts);
}
