/**
 * The JSON routes the web viewer reads, under /api/v1/web/…: session list with facets, one
 * session's header, pages of the path to a leaf, the branch tree, search, stats, and "Continue
 * in…". On the reader's own machine (`threadbase ui`) that converts the session into another
 * agent's store and returns the command that resumes it there; on a team server, whose disk is
 * not the reader's, it returns the `threadbase handoff --from <server>` command that does the
 * same on the reader's machine.
 */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import '../../formats/all.js';
import { convertSessionAll, type WrittenSession } from '../../convert/session.js';
import { childSessionsInStore } from '../../convert/store-children.js';
import { Sources } from '../../formats/registry.js';
import { pickSession } from '../../formats/shared/base.js';
import { projectFilterOf, type SessionDriver } from '../../model/driver.js';
import { AmbiguousIdError, NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { knownTimeZone, readTimeWindow } from '../../model/time-window.js';
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
  /** Agent stores on this machine that "Continue in…" writes into (the reader's own machine). */
  targets?: ConvertTargets;
  /**
   * Without `targets` (a team server): the agents "Continue in…" offers as a handoff command run
   * on the reader's machine. Default every registered agent that can write sessions; false: none.
   */
  handoff?: readonly string[] | false;
  /** When set, every data route wants `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  cacheMs?: number;
  statsSessionLimit?: number;
  /** A store that cannot search itself: how many of its most recent sessions a search reads (default 500). */
  searchSessionLimit?: number;
  /** Prices for responses with no recorded cost (default the bundled table). */
  prices?: PriceTable;
}

/** since/until: an ISO date or time as the CLI's --since/--until take it (readTimeWindow); anything else is a 400, not an empty page. */
const timeParam = (field: 'since' | 'until') =>
  z
    .string()
    // whether it names a time does not hang on the zone: read in UTC here, in tz's by WebData
    .refine((v) => readTimeWindow({ [field]: v }).ok, {
      message: 'must be an ISO date or time (e.g. 2026-11-25 or 2026-11-25T14:00:00Z)',
    })
    .optional();

const timeZoneParam = z.string().refine(knownTimeZone, { message: 'must be an IANA time zone (e.g. Europe/Berlin)' }).optional();

/**
 * A since after the until (read in tz): an issue on since, as the CLI and the HTTP API refuse it (the
 * page was empty, as if nothing happened then). A bad since, until or tz has its own issue already.
 */
function sinceNotAfterUntil(q: { since?: string; until?: string; tz?: string }, ctx: z.RefinementCtx): void {
  const window = readTimeWindow({ since: q.since, until: q.until, timeZone: q.tz });
  if (!window.ok && window.reason === 'since-after-until')
    ctx.addIssue({
      code: 'custom',
      path: ['since'],
      message: `must not be after until (${window.since} is after ${window.until}: no time lies between them)`,
    });
}

const listQuery = z
  .object({
    source: z.string().optional(),
    project: z.string().optional().transform(projectFilterOf),
    model: z.string().optional(),
    since: timeParam('since'),
    until: timeParam('until'),
    text: z.string().optional(),
    sort: z.enum(['updated', 'created', 'messages', 'cost', 'tokens', 'title']).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    offset: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    /** the zone since/until dates and times without an offset are read in (the viewer sends instants) */
    tz: timeZoneParam,
  })
  .superRefine(sinceNotAfterUntil);

const statsQuery = z
  .object({
    source: z.string().optional(),
    project: z.string().optional().transform(projectFilterOf),
    since: timeParam('since'),
    until: timeParam('until'),
    /** the reader's time zone (an IANA name): the days the per-day chart counts, as its From and To are the reader's days */
    tz: timeZoneParam,
  })
  .superRefine(sinceNotAfterUntil);

const pathQuery = z.object({
  leaf: z.string().optional(),
  entry: z.string().optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const convertBody = z.object({
  to: z.string().min(1),
  leaf: z.string().optional(),
  /** the server's address as the browser sees it (behind a proxy the request's own may differ) */
  origin: z.string().optional(),
});

/** A sub-agent session "Continue in…" wrote under the written session, as the answer lists it. */
interface WrittenChild {
  id: string;
  source: string;
  path: string | null;
  /** the call in the written parent that ran it */
  parentToolCallId: string | null;
  warnings: string[];
  children: WrittenChild[];
}

function writtenChild(w: WrittenSession): WrittenChild {
  return {
    id: w.id,
    source: w.source,
    path: w.path ?? null,
    parentToolCallId: w.parentToolCallId ?? null,
    warnings: (w.meta?.warnings as string[] | undefined) ?? [],
    children: (w.children ?? []).map(writtenChild),
  };
}

/** A word for a POSIX shell: as is when plainly safe, else single-quoted. */
function shellWord(s: string): string {
  return /^[\w.,:/@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The origin to name in a handoff command: the browser's when it is a plain http(s) origin. */
function originOf(claimed: string | undefined, requestUrl: string): string {
  if (claimed) {
    try {
      const u = new URL(claimed);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password) return u.origin;
    } catch {
      // not a URL: fall back to the request's own
    }
  }
  return new URL(requestUrl).origin;
}

/**
 * The id of the session `given` names: its own id, else the one session whose id starts with it (a
 * unique prefix, as `threadbase show abc12` takes it, by the CLI's rule: pickSession); a prefix of
 * several is an AmbiguousIdError naming them. The store is listed only when no session has that id.
 */
async function sessionIdOf(data: WebData, given: string): Promise<string> {
  try {
    return (await data.load(given)).session.id;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  return pickSession(await data.driver.listSessions({}), given).id;
}

/** Empty query values mean "no filter". */
function queryOf(q: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== ''));
}

/** Host names a page elsewhere cannot point at this machine (DNS rebinding needs a domain name). */
function isLocalHostName(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || /^[\d.]+$/.test(h) || h.includes(':');
}

/**
 * Why a request to the keyless local viewer looks sent by another site (undefined: it does not):
 * a Host that is a domain name other than localhost (DNS rebinding), an Origin other than the
 * viewer's own (CSRF), or a write that is not JSON (a form post carries no Origin in old browsers).
 */
export function foreignRequest(
  url: string,
  host: string | undefined,
  origin: string | undefined,
  method: string,
  contentType: string | undefined,
): string | undefined {
  const hostName = host ? new URL(`http://${host}`).hostname : new URL(url).hostname;
  if (!isLocalHostName(hostName)) return `host ${hostName} is not this machine's address`;
  if (origin !== undefined) {
    let sameHost = false;
    try {
      sameHost = new URL(origin).host === (host ?? new URL(url).host);
    } catch {
      sameHost = false;
    }
    if (!sameHost) return `requests from ${origin} are not this viewer's`;
  }
  if (method !== 'GET' && method !== 'HEAD' && !/^application\/json\b/i.test(contentType ?? '')) return 'writes must be JSON';
  return undefined;
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

/** What "Continue in…" does here: convert on this machine, hand off to the reader's, or nothing. */
export function continueMode(opts: Pick<WebDataRoutesOptions, 'targets' | 'handoff'>): {
  mode: 'local' | 'handoff' | 'none';
  agents: string[];
} {
  if (opts.targets) {
    const agents = writableTargets(opts.targets);
    return { mode: agents.length ? 'local' : 'none', agents };
  }
  if (opts.handoff === false) return { mode: 'none', agents: [] };
  const agents = opts.handoff ? [...opts.handoff] : writableTargets(new Sources());
  return { mode: agents.length ? 'handoff' : 'none', agents };
}

export function webDataRoutes(opts: WebDataRoutesOptions): Hono {
  const settings = {
    cacheMs: opts.cacheMs,
    statsSessionLimit: opts.statsSessionLimit,
    searchSessionLimit: opts.searchSessionLimit,
    prices: opts.prices,
  };
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
  const continuing = continueMode(opts);

  if (!opts.apiKey && !opts.scope) {
    // Without a key this is `threadbase ui` for this machine: a web page elsewhere must not use it.
    app.use('*', async (c, next) => {
      const refusal = foreignRequest(
        c.req.url,
        c.req.header('host'),
        c.req.header('origin'),
        c.req.method,
        c.req.header('content-type'),
      );
      if (refusal) return c.json({ error: 'forbidden', message: refusal }, 403);
      await next();
    });
  }

  if (opts.apiKey) {
    const expected = `Bearer ${opts.apiKey}`;
    app.use('*', async (c, next) => {
      if (c.req.header('authorization') !== expected) return c.json({ error: 'unauthorized' }, 401);
      await next();
    });
  }

  app.onError((err, c) => {
    if (err instanceof z.ZodError) {
      // a message too: the viewer shows a failed request's message (a bare 'bad_request' said nothing)
      const message = err.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      return c.json({ error: 'bad_request', message, issues: err.issues }, 400);
    }
    if (err instanceof NotFoundError) return c.json({ error: err.code, message: err.message }, 404);
    // a prefix of several sessions: which ones, so the reader can pick
    if (err instanceof AmbiguousIdError)
      return c.json({ error: err.code, message: err.message, candidates: err.candidates }, 409);
    if (err instanceof ThreadbaseError) return c.json({ error: err.code, message: err.message }, 400);
    return c.json({ error: 'internal', message: err instanceof Error ? err.message : String(err) }, 500);
  });

  app.get('/meta', (c) => {
    const d = dataOf(c).driver;
    return c.json({ driver: d.name, capabilities: d.capabilities, targets: continuing.agents, continueMode: continuing.mode });
  });

  app.get('/sessions', async (c) => c.json(await dataOf(c).listSessions(listQuery.parse(queryOf(c.req.query())))));

  app.get('/sessions/:id', async (c) => {
    const data = dataOf(c);
    return c.json(await data.header(await sessionIdOf(data, c.req.param('id'))));
  });

  app.get('/sessions/:id/path', async (c) => {
    const q = pathQuery.parse(queryOf(c.req.query()));
    const data = dataOf(c);
    return c.json(await data.pathPage(await sessionIdOf(data, c.req.param('id')), q));
  });

  app.get('/sessions/:id/context', async (c) => {
    const q = pathQuery.parse(queryOf(c.req.query()));
    const data = dataOf(c);
    return c.json(await data.contextPage(await sessionIdOf(data, c.req.param('id')), q));
  });

  app.get('/sessions/:id/tree', async (c) => {
    const data = dataOf(c);
    return c.json(await data.tree(await sessionIdOf(data, c.req.param('id'))));
  });

  app.get('/search', async (c) => {
    const q = queryOf(c.req.query());
    const query = q.q ?? '';
    const { hits, scanned } = query.trim()
      ? await dataOf(c).searchWithScope(query, {
          source: q.source,
          project: projectFilterOf(q.project),
          limit: Number(q.limit) || 50,
        })
      : { hits: [], scanned: undefined };
    const titles = await dataOf(c).titles();
    const agents = await dataOf(c).agents();
    // scanned: a store with no index of its own, read in its most recent sessions only (the page says so)
    return c.json({
      query,
      hits: hits.map((h) => ({ ...h, title: titles.get(h.sessionId) ?? null, agent: agents.get(h.sessionId) ?? h.source })),
      ...(scanned ? { scanned } : {}),
    });
  });

  app.get('/stats', async (c) => {
    const q = statsQuery.parse(queryOf(c.req.query()));
    return c.json(
      await dataOf(c).stats({ source: q.source, project: q.project, since: q.since, until: q.until, timeZone: q.tz }),
    );
  });

  app.post('/sessions/:id/convert', async (c) => {
    // a body that is no JSON is the caller's mistake (400), not the server's (it was a 500)
    const raw = await c.req.json().catch(() => undefined);
    if (raw === undefined) return c.json({ error: 'bad_request', message: 'the body must be a JSON object' }, 400);
    const body = convertBody.parse(raw);
    if (!continuing.agents.includes(body.to)) {
      return c.json({ error: 'unsupported', message: `cannot continue in ${body.to} here` }, 400);
    }
    const data = dataOf(c);
    const ls = await data.load(await sessionIdOf(data, c.req.param('id')));
    if (body.leaf && !ls.session.entries.some((e) => e.id === body.leaf)) {
      throw new NotFoundError('entry', body.leaf, { id: ls.session.id });
    }
    if (continuing.mode === 'handoff') {
      // Nothing is written here: the reader's machine reads the session from this server.
      const origin = originOf(body.origin, c.req.url);
      const args = ['threadbase', 'handoff', ls.session.id, '--from', origin, '--to', body.to];
      if (body.leaf) args.push('--at', body.leaf);
      return c.json({
        mode: 'handoff',
        id: ls.session.id,
        source: body.to,
        command: args.map(shellWord).join(' '),
        keyVariable: 'THREADBASE_API_KEY',
      });
    }
    const targets = opts.targets as ConvertTargets;
    const target = targets.driver(body.to);
    // the sub-agent sessions in the viewer's store go along, as `threadbase convert` carries them
    const [written] = await convertSessionAll(ls.session, target, {
      at: body.leaf,
      childrenOf: childSessionsInStore(data.driver),
    });
    if (!written) return c.json({ error: 'internal', message: 'nothing written' }, 500);
    data.invalidate();
    return c.json({
      mode: 'local',
      id: written.id,
      source: written.source,
      path: written.path ?? null,
      command: target.resumeCommand?.(written) ?? null,
      warnings: (written.meta?.warnings as string[] | undefined) ?? [],
      children: (written.children ?? []).map(writtenChild),
    });
  });

  return app;
}
