/**
 * The JSON routes the web viewer reads, under /api/v1/web/…: session list with facets, one
 * session's header, pages of the path to a leaf, the branch tree, search, stats, and "Continue
 * in…" (convert to another agent and return the command that resumes it there).
 */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { convertSessionAll } from '../../convert/session.js';
import type { SessionDriver } from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import type { PriceTable } from '../../stores/index-sync/prices.js';
import { WebData } from './data.js';

/** The agents a session can be converted into (the local format registry: `Sources` fits). */
export interface ConvertTargets {
  names(): string[];
  driver(name: string): SessionDriver;
}

/**
 * Which store a request sees, when that depends on the request (the team server scopes the store
 * by the project of the caller's key); `key` names the scope so its caches are reused.
 */
// biome-ignore lint/suspicious/noExplicitAny: any host app's Env (its Variables) may be in the context
export type WebScope = (c: Context<any>) => { key: string; driver: SessionDriver };

export interface WebDataRoutesOptions {
  /** The store every request sees, unless `scope` says otherwise. */
  driver: SessionDriver;
  scope?: WebScope;
  targets?: ConvertTargets;
  /** When set, every data route wants `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  cacheMs?: number;
  statsSessionLimit?: number;
  /** Prices for responses with no recorded cost (default the bundled table). */
  prices?: PriceTable;
}

const listQuery = z.object({
  source: z.string().optional(),
  project: z.string().optional(),
  model: z.string().optional(),
  since: z.string().optional(),
  until: z.string().optional(),
  text: z.string().optional(),
  sort: z.enum(['updated', 'created', 'messages', 'cost', 'tokens', 'title']).optional(),
  order: z.enum(['asc', 'desc']).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const pathQuery = z.object({
  leaf: z.string().optional(),
  entry: z.string().optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const convertBody = z.object({ to: z.string().min(1), leaf: z.string().optional() });

/** Empty query values mean "no filter". */
function queryOf(q: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== ''));
}

/** Writers the viewer offers for "Continue in…": registered formats that can create sessions. */
export function writableTargets(targets: ConvertTargets | undefined): string[] {
  if (!targets) return [];
  const out: string[] = [];
  for (const name of targets.names()) {
    try {
      const d = targets.driver(name);
      if (d.capabilities.write && d.writeSession) out.push(name);
    } catch {
      // A format that cannot open here (no data dir) is simply not offered.
    }
  }
  return out;
}

export function webDataRoutes(opts: WebDataRoutesOptions): Hono {
  const settings = { cacheMs: opts.cacheMs, statsSessionLimit: opts.statsSessionLimit, prices: opts.prices };
  const fixed = new WebData(opts.driver, settings);
  const scoped = new Map<string, WebData>();
  const dataOf = (c: Context): WebData => {
    if (!opts.scope) return fixed;
    const { key, driver } = opts.scope(c);
    let d = scoped.get(key);
    // The host may build a new (equivalent) driver per request; the scope key keeps the cache.
    if (!d) {
      d = new WebData(driver, settings);
      scoped.set(key, d);
      if (scoped.size > 64) scoped.delete(scoped.keys().next().value as string);
    }
    return d;
  };
  const app = new Hono();

  if (opts.apiKey) {
    const expected = `Bearer ${opts.apiKey}`;
    app.use('*', async (c, next) => {
      if (c.req.header('authorization') !== expected) return c.json({ error: 'unauthorized' }, 401);
      await next();
    });
  }

  app.onError((err, c) => {
    if (err instanceof z.ZodError) return c.json({ error: 'bad_request', issues: err.issues }, 400);
    if (err instanceof NotFoundError) return c.json({ error: err.code, message: err.message }, 404);
    if (err instanceof ThreadbaseError) return c.json({ error: err.code, message: err.message }, 400);
    return c.json({ error: 'internal', message: err instanceof Error ? err.message : String(err) }, 500);
  });

  app.get('/meta', (c) => {
    const d = dataOf(c).driver;
    return c.json({ driver: d.name, capabilities: d.capabilities, targets: writableTargets(opts.targets) });
  });

  app.get('/sessions', async (c) => c.json(await dataOf(c).listSessions(listQuery.parse(queryOf(c.req.query())))));

  app.get('/sessions/:id', async (c) => c.json(await dataOf(c).header(c.req.param('id'))));

  app.get('/sessions/:id/path', async (c) => {
    const q = pathQuery.parse(queryOf(c.req.query()));
    return c.json(await dataOf(c).pathPage(c.req.param('id'), q));
  });

  app.get('/sessions/:id/context', async (c) => {
    const q = pathQuery.parse(queryOf(c.req.query()));
    return c.json(await dataOf(c).contextPage(c.req.param('id'), q));
  });

  app.get('/sessions/:id/tree', async (c) => c.json(await dataOf(c).tree(c.req.param('id'))));

  app.get('/search', async (c) => {
    const q = queryOf(c.req.query());
    const query = q.q ?? '';
    const hits = query.trim()
      ? await dataOf(c).search(query, { source: q.source, project: q.project, limit: Number(q.limit) || 50 })
      : [];
    const titles = await dataOf(c).titles();
    return c.json({ query, hits: hits.map((h) => ({ ...h, title: titles.get(h.sessionId) ?? null })) });
  });

  app.get('/stats', async (c) => {
    const q = queryOf(c.req.query());
    return c.json(await dataOf(c).stats({ source: q.source, project: q.project, since: q.since, until: q.until }));
  });

  app.post('/sessions/:id/convert', async (c) => {
    const body = convertBody.parse(await c.req.json());
    const targets = opts.targets;
    if (!targets || !writableTargets(targets).includes(body.to)) {
      return c.json({ error: 'unsupported', message: `cannot convert into ${body.to} here` }, 400);
    }
    const data = dataOf(c);
    const ls = await data.load(c.req.param('id'));
    const target = targets.driver(body.to);
    const [written] = await convertSessionAll(ls.session, target, { at: body.leaf });
    if (!written) return c.json({ error: 'internal', message: 'nothing written' }, 500);
    data.invalidate();
    return c.json({
      id: written.id,
      source: written.source,
      path: written.path ?? null,
      command: target.resumeCommand?.(written) ?? null,
      warnings: (written.meta?.warnings as string[] | undefined) ?? [],
    });
  });

  return app;
}
