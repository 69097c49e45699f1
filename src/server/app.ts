/**
 * The team server: a Hono app over any SessionDriver plus a token store. Under /api/v1 it speaks
 * the Acontext session API (as the @acontext/acontext SDK calls it: `{code, data, msg}` envelopes)
 * and threadbase's own routes under /api/v1/threadbase. Every /api/v1 request needs a bearer key;
 * the key's project decides which sessions exist for the request.
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context as HonoContext } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { PatternRouter } from 'hono/router/pattern-router';
import type { z } from 'zod';
import { messageToAnthropic } from '../convert/anthropic.js';
import { contextFormatNames, renderContext } from '../convert/formats.js';
import { messageToOpenAI } from '../convert/openai.js';
import { parseJson } from '../formats/shared/jsonl.js';
import { projectFilterOf, type SessionDriver } from '../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../model/errors.js';
import { readTimeWindow, type TimeWindowRefusal } from '../model/time-window.js';
import type { Entry, MessageEntry, Session, SessionInfo } from '../model/types.js';
import { PRICES, type PriceTable } from '../stores/index-sync/prices.js';
import { type HttpErrorCode, httpErrorCodeOf } from '../stores/remote/error-codes.js';
import {
  ACONTEXT_SETTINGS,
  type AcontextSessionFields,
  acontextFields,
  acontextMessage,
  acontextParentId,
  acontextSession,
  acontextSettingsEntry,
  BlobError,
  type BlobFormat,
  estimateTokens,
  messageFromBlob,
} from './acontext.js';
import {
  AppendBody,
  BranchBody,
  ConnectToSpaceBody,
  CreateSessionBody,
  ForkBody,
  PutSessionBody,
  StoreMessageBody,
  UpdateConfigsBody,
} from './bodies.js';
import { openApiDocument } from './openapi.js';
import { type ProjectStores, projectStores } from './scope.js';
import { StagedReplaces } from './staged-replace.js';
import { serverStats } from './stats.js';
import { STORE_ID_HEADER, storeIdentity } from './store-identity.js';
import type { PushLookup, WrittenByMarker } from './tenant-ids.js';
import type { Project, TokenStore } from './tokens.js';
import { mountWebViewer } from './web/index.js';

export interface ServerOptions {
  store: SessionDriver;
  tokens: TokenStore;
  /** Largest request body accepted (bytes, default 10 MiB); larger → 413. */
  maxBodyBytes?: number;
  /** Where request problems are reported (default stderr). */
  log?: (line: string) => void;
  /** Prices for responses whose agent recorded no cost (`/stats`); default the bundled table. */
  prices?: PriceTable;
  /**
   * Origins (scheme://host[:port]) whose browser pages may call the API (CORS); their preflights are
   * answered without a key. Absent or empty: no CORS headers, as before.
   */
  corsOrigins?: readonly string[];
  /** Bytes of replaces in parts (push --force) held at once, all uploads together (default 256 MiB); beyond: 503 staging_full. */
  maxStagedBytes?: number;
  /** How long an upload of a replace in parts is held after its last part came (ms, default 15 min). */
  stagedTtlMs?: number;
}

type Env = { Variables: { project: Project; store: SessionDriver } };

const DEFAULT_MAX_BODY = 10 * 1024 * 1024;

/** A refused request; `reason`, its answer's error code (HTTP_ERROR_CODES), is the status's unless given. */
class HttpError extends Error {
  readonly reason: HttpErrorCode | undefined;
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 409 | 413 | 500 | 503,
    message: string,
    reason?: HttpErrorCode,
  ) {
    super(message);
    this.reason = reason ?? httpErrorCodeOf(status);
  }
}

/** A query parameter refused (400 invalid_parameter), the message naming it. */
const badParameter = (message: string) => new HttpError(400, message, 'invalid_parameter');

/** Counts 4xx answers and logs them, at most one summary line every 10 s per kind of problem. */
export class BadRequestLog {
  private window: number[] = [];
  private lastLine = 0;
  constructor(private readonly log: (line: string) => void) {}
  record(status: number, method: string, path: string, message: string): void {
    const now = Date.now();
    this.window = this.window.filter((t) => now - t < 60_000);
    this.window.push(now);
    if (now - this.lastLine < 10_000 && this.window.length > 1) return;
    this.lastLine = now;
    this.log(`threadbase serve: ${status} ${method} ${path}: ${message} (${this.window.length} bad requests in the last minute)`);
  }
  /** Bad requests in the last minute. */
  get perMinute(): number {
    const now = Date.now();
    return this.window.filter((t) => now - t < 60_000).length;
  }
}

/** Serialises work per key inside this process (appends to one session keep their parent chain). */
class KeyedQueue {
  private tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

const ok = (c: HonoContext, data: unknown, status: 200 | 201 = 200) => c.json({ code: 0, data, msg: 'ok' }, status);

function isMessageEntry(e: Entry): e is MessageEntry {
  return e.kind === 'message' && !e.sidechain;
}

const cursorOf = (entryId: string) => Buffer.from(entryId, 'utf8').toString('base64url');
const entryIdOfCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

type CreationPlace = Pick<SessionInfo, 'createdAt' | 'id'>;
/** The order /session lists in: creation time, then id. */
const byCreation = (a: CreationPlace, b: CreationPlace): number =>
  a.createdAt === b.createdAt ? (a.id === b.id ? 0 : a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1;

/** true/1 or false/0 (any other value was read as false: time_desc=yes listed oldest first). */
function boolParam(name: string, v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badParameter(`${name} must be true or false, got ${JSON.stringify(v)}`);
}

function intParam(v: string | undefined, dflt: number, max: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw badParameter(`limit must be a positive integer, got ${JSON.stringify(v)}`);
  return Math.min(n, max);
}

/**
 * An instant as a UTC ISO string, or undefined when it does not name one. Stored times are UTC ISO
 * text compared as text, so an offset (+02:00) or a bare date must be turned into that form first.
 */
function utcIso(v: string): string | undefined {
  const t = v.trim();
  if (!/^\d{4}/.test(t)) return undefined;
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/**
 * A request's `since`/`until` (an ISO date or time: a date alone its start for since, the last instant
 * of that day, month or year for until, as the CLI's --since/--until) read by readTimeWindow in its
 * `tz`: the IANA zone dates and times without an offset are (a server has no reader's zone, and its
 * own would make the answer depend on where it runs), UTC when absent. An unknown zone, a value that
 * names no time (compared as text, it matched nothing) or a since after the until is a 400 naming the
 * values; an empty one is an absent one, as limit= and role= are.
 */
function windowParams(q: Record<string, string | undefined>): { since: string | undefined; until: string | undefined } {
  const window = readTimeWindow({ since: q.since || undefined, until: q.until || undefined, timeZone: q.tz || undefined });
  if (!window.ok) throw badParameter(badWindowMessage(window));
  return { since: window.since, until: window.until };
}

/** A refused window in the HTTP API's words: which parameter, and the value given. */
function badWindowMessage(refusal: TimeWindowRefusal): string {
  switch (refusal.reason) {
    case 'unknown-zone':
      return `tz must be an IANA time zone (e.g. Europe/Berlin or UTC), got ${JSON.stringify(refusal.value)}`;
    case 'not-a-time':
      return `${refusal.field} must be an ISO date or time (e.g. 2026-11-25 or 2026-11-25T14:00:00Z), got ${JSON.stringify(refusal.value)}`;
    case 'since-after-until':
      return `since must not be after until, got since ${JSON.stringify(refusal.value)} (${refusal.since}) and until ${JSON.stringify(refusal.untilValue)} (${refusal.until}): no time lies between them`;
  }
}

const ROLES = ['user', 'assistant', 'tool', 'system'];

/** `role` of a search: one of the message roles (any other matched nothing). */
function roleParam(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (!ROLES.includes(v)) throw badParameter(`role must be one of ${ROLES.join(', ')}, got ${JSON.stringify(v)}`);
  return v;
}

/** Already UTC with milliseconds or finer: kept, so microseconds an agent wrote are not cut to milliseconds. */
const UTC_FINE = /T\d{2}:\d{2}:\d{2}\.\d{3,}Z$/;

/** A stored time in UTC ISO form (as the store compares them as text), or undefined when it names no instant. */
const storedTime = (v: string): string | undefined => (UTC_FINE.test(v) && utcIso(v) ? v : utcIso(v));

/** Entry times in UTC ISO form; a time that names no instant is kept as sent. */
function utcEntries(entries: readonly Entry[]): Entry[] {
  return entries.map((e) => {
    const t = typeof e.timestamp === 'string' ? storedTime(e.timestamp) : undefined;
    return t && t !== e.timestamp ? { ...e, timestamp: t } : e;
  });
}

/** A pushed header's time: UTC ISO, absent when absent, a 400 naming the field when it names no instant. */
function headerTime(field: 'createdAt' | 'updatedAt', v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  const t = storedTime(v);
  if (!t)
    throw new HttpError(
      400,
      `invalid body at session.${field}: expected an ISO date or time, got ${JSON.stringify(v)}`,
      'invalid_body',
    );
  return t;
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new HttpError(
      400,
      `invalid body${first ? ` at ${first.path.join('.') || '(root)'}: ${first.message}` : ''}`,
      'invalid_body',
    );
  }
  return r.data;
}

async function jsonBody(c: HonoContext): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return parseJson(text);
  } catch (err) {
    throw new HttpError(400, `request body is not valid JSON (${(err as Error).message})`, 'invalid_json');
  }
}

/** An upload id of a replace in parts, as the client chose it. */
const UPLOAD_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** A replace in parts' `:upload` and `:part` (1, 2, …), a 400 naming the one out of form. */
function uploadPlace(upload: string, part: string): { upload: string; part: number } {
  if (!UPLOAD_ID.test(upload))
    throw badParameter(`upload must be 1 to 100 letters, digits, - or _, got ${JSON.stringify(upload)}`);
  const n = Number(part);
  if (!/^[0-9]+$/.test(part) || !Number.isSafeInteger(n) || n < 1 || n > 100_000)
    throw badParameter(`part must be an integer from 1 to 100000, got ${JSON.stringify(part)}`);
  return { upload, part: n };
}

export function createApp(opts: ServerOptions): Hono<Env> {
  const stores: ProjectStores = projectStores(opts.store);
  const badLog = new BadRequestLog(opts.log ?? ((l) => process.stderr.write(`${l}\n`)));
  const queue = new KeyedQueue();
  const staged = new StagedReplaces(opts.maxStagedBytes, opts.stagedTtlMs);
  /** Last appended entry per session, valid because appends to a session go through `queue`. */
  const lastEntry = new Map<string, string | null>();
  const app = new Hono<Env>();
  const prices = opts.prices ?? PRICES;
  // No cache of known keys: a key revoked (by any process) is refused from the next request on.
  // The look-up is one indexed read by the key's hash.
  const knownKey = (key: string): Promise<Project | undefined> => opts.tokens.projectForKey(key);

  // Before everything else: a preflight carries no key, and every answer (401s too) needs the headers.
  if (opts.corsOrigins?.length) {
    app.use(
      '*',
      cors({
        origin: [...opts.corsOrigins],
        allowMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
        allowHeaders: ['authorization', 'content-type'],
        exposeHeaders: ['allow', 'www-authenticate'],
        maxAge: 600,
      }),
    );
  }

  app.onError((err, c) => {
    let status: 400 | 401 | 404 | 405 | 409 | 413 | 500 | 503 = 500;
    let message = err.message;
    if (err instanceof HttpError) status = err.status;
    else if (err instanceof BlobError) status = 400;
    else if (err instanceof NotFoundError) status = 404;
    else if (err instanceof ThreadbaseError)
      status =
        err.code === 'duplicate_entry' || err.code === 'orphan_entry'
          ? 409
          : err.code === 'unsupported' || err.code === 'unstorable_id'
            ? 400
            : 500;
    if (status === 500) message = 'internal error';
    // threadbase's own error code beside the HTTP status, so a remote store's caller gets the same typed
    // error; a refusal of the request itself (HttpError, a message blob not understood) has its own code
    const reason =
      status === 500
        ? undefined
        : err instanceof HttpError
          ? err.reason
          : err instanceof ThreadbaseError
            ? err.code
            : err instanceof BlobError
              ? 'invalid_body'
              : httpErrorCodeOf(status);
    if ((status >= 400 && status < 500) || status === 503) badLog.record(status, c.req.method, c.req.path, message);
    else
      (opts.log ?? ((l) => process.stderr.write(`${l}\n`)))(
        `threadbase serve: 500 ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`,
      );
    return c.json({ code: status, msg: message, error: message, ...(reason ? { reason } : {}) }, status);
  });
  // The methods each registered path answers, looked up when a request matched no route (then the
  // whole app is registered): a known path asked with another method is a 405 naming them.
  let methodsOfPath: PatternRouter<string> | undefined;
  const allowedMethods = (path: string): string[] => {
    if (!methodsOfPath) {
      methodsOfPath = new PatternRouter<string>();
      for (const r of app.routes) if (r.method !== 'ALL') methodsOfPath.add('ALL', r.path, r.method);
    }
    const methods = new Set(methodsOfPath.match('GET', path)[0].map(([method]) => method));
    if (methods.has('GET')) methods.add('HEAD'); // hono answers HEAD with the GET route
    return [...methods].sort();
  };
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length) {
      const message = `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allowed.join(', ')})`;
      badLog.record(405, c.req.method, c.req.path, message);
      return c.json({ code: 405, msg: message, error: 'method not allowed', reason: 'method_not_allowed' }, 405, {
        allow: allowed.join(', '),
      });
    }
    badLog.record(404, c.req.method, c.req.path, 'no such route');
    return c.json({ code: 404, msg: `no route ${c.req.method} ${c.req.path}`, error: 'not found', reason: 'no_route' }, 404);
  });

  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  app.get('/api/v1/openapi.json', (c) => c.json(openApiDocument()));

  app.use(
    '/api/v1/*',
    bodyLimit({
      maxSize: opts.maxBodyBytes ?? DEFAULT_MAX_BODY,
      onError: (c) => {
        badLog.record(413, c.req.method, c.req.path, 'body too large');
        const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
        // the limit is named, so a client can size its requests (push splits on 413)
        return c.json(
          {
            code: 413,
            msg: `request body too large (this server takes at most ${limit} bytes)`,
            error: 'payload too large',
            reason: 'payload_too_large',
          },
          413,
        );
      },
    }),
  );
  app.use('/api/v1/*', async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const project = m?.[1] ? await knownKey(m[1]) : undefined;
    if (!project) {
      const message = m ? 'invalid API key' : 'missing Authorization: Bearer <key>';
      badLog.record(401, c.req.method, c.req.path, message);
      // RFC 9110: a 401 names the scheme it wants.
      return c.json({ code: 401, msg: message, error: 'unauthorized', reason: 'unauthorized' }, 401, {
        'www-authenticate': m ? 'Bearer error="invalid_token"' : 'Bearer',
      });
    }
    c.set('project', project);
    c.set('store', stores(project.id));
    await next();
  });
  // No agent makes an id with U+0000 and PostgreSQL text cannot hold one: an id or a query with one is
  // refused (400) on every store, so a server answers the same whatever it stores in. (In a body the
  // store keeps it, escaped in JSON text, and refuses it in ids: unstorable_id.)
  app.use('/api/v1/*', async (c, next) => {
    if (/%00/.test(c.req.url)) throw new HttpError(400, 'ids and queries cannot contain NUL (U+0000)', 'unstorable_id');
    await next();
  });

  // The web viewer: its page is public, its data under /api/v1/web behind the key above, per project.
  // its list, session pages and charts price unrecorded costs with the same table as /stats
  mountWebViewer(app, { driver: opts.store, prices, scope: (c) => ({ key: c.get('project').id, driver: c.get('store') }) });

  const sessionKey = (c: HonoContext<Env>, id: string) => `${c.get('project').id}\u0000${id}`;

  const requireSession = async (c: HonoContext<Env>, id: string): Promise<Session> => {
    const s = await c.get('store').getSession(id);
    if (!s) throw new HttpError(404, `session not found: ${id}`);
    return s;
  };

  /**
   * Appends the entry under the session's last entry (outside sidechains) and returns it as stored.
   * Other server processes may share the database: a store that can (appendToChain) finds the last
   * entry and appends under it in one transaction, where a per-process memory of it would be stale.
   */
  const appendToChain = async <E extends Entry>(c: HonoContext<Env>, id: string, fresh: E): Promise<E> => {
    const store = c.get('store');
    if (!store.appendEntries) throw new HttpError(400, 'this store cannot append', 'unsupported');
    if (store.appendToChain) {
      const stored = await store.appendToChain(id, fresh).catch((error: unknown) => {
        throw error instanceof NotFoundError ? new HttpError(404, `session not found: ${id}`) : error;
      });
      return { ...fresh, parentId: stored.parentId };
    }
    const key = sessionKey(c, id);
    return queue.run(key, async () => {
      let parent = lastEntry.get(key);
      if (parent === undefined) {
        const s = await requireSession(c, id);
        parent = [...s.entries].reverse().find((e) => !e.sidechain)?.id ?? null;
      }
      const e: E = { ...fresh, parentId: parent };
      try {
        await store.appendEntries?.(id, [e]);
      } catch (error) {
        lastEntry.delete(key);
        if (error instanceof NotFoundError) throw new HttpError(404, `session not found: ${id}`);
        throw error;
      }
      if (lastEntry.size > 100_000) lastEntry.clear(); // a cache: dropping it only costs a look-up
      lastEntry.set(key, e.id);
      return e;
    });
  };

  /** Records a change of the session's Acontext fields (configs, space) as a metadata entry. */
  const changeAcontextFields = async (c: HonoContext<Env>, id: string, change: AcontextSessionFields) => {
    await requireSession(c, id);
    await appendToChain(c, id, acontextSettingsEntry(randomUUID(), new Date().toISOString(), change));
    return acontextSession(await requireSession(c, id), c.get('project').id);
  };

  // ---- Acontext session API ------------------------------------------------------------------

  // the served store's identity: push refuses to push a store into itself. Found once (a query or
  // two per ping otherwise); none yet (a busy database) is asked again at the next ping.
  let servedStoreId: string | undefined;
  app.get('/api/v1/ping', async (c) => {
    servedStoreId ??= await storeIdentity(opts.store);
    const id = servedStoreId;
    return c.json({ code: 0, data: 'pong', msg: 'pong' }, 200, id ? { [STORE_ID_HEADER]: id } : {});
  });

  app.get('/api/v1/session', async (c) => {
    const limit = intParam(c.req.query('limit'), 20, 200);
    const desc = boolParam('time_desc', c.req.query('time_desc'), false);
    const cursor = c.req.query('cursor');
    const spaceId = c.req.query('space_id');
    const notConnected = boolParam('not_connected', c.req.query('not_connected'), false);
    const store = c.get('store');
    type Listed = SessionInfo & { entries?: readonly Entry[] };
    // A space connected or configs changed after creation are entries of the session: the store gives
    // those entries alone where it can (metadataEntries), else the session is read whole.
    const changes = store.metadataEntries ? await store.metadataEntries(ACONTEXT_SETTINGS) : undefined;
    const whole = async (s: Listed): Promise<Listed> =>
      s.entries ? s : changes ? { ...s, entries: changes.get(s.id) ?? [] } : ((await store.getSession(s.id)) ?? s);
    let all: Listed[] = await store.listSessions();
    if (spaceId !== undefined || notConnected) all = await Promise.all(all.map(whole));
    all = all.filter((s) => {
      const space = acontextFields(s).space_id ?? null;
      return (spaceId === undefined || space === spaceId) && (!notConnected || space === null);
    });
    all = [...all].sort(byCreation);
    if (desc) all.reverse();
    let start = 0;
    if (cursor) {
      // A cursor is the last session's place in the order (creation time, id), so a page goes on
      // after it even when that session was deleted meanwhile; one naming an id alone (older) still works.
      const after = entryIdOfCursor(cursor);
      const sep = after.indexOf('\u0000');
      if (sep < 0) {
        const at = all.findIndex((s) => s.id === after);
        if (at < 0) throw badParameter(`invalid cursor ${JSON.stringify(cursor)}: no such session`);
        start = at + 1;
      } else {
        const place = { createdAt: after.slice(0, sep), id: after.slice(sep + 1) };
        const past = (s: SessionInfo) => (desc ? byCreation(s, place) < 0 : byCreation(s, place) > 0);
        start = all.findIndex(past);
        if (start < 0) start = all.length;
      }
    }
    const page = all.slice(start, start + limit);
    const hasMore = start + limit < all.length;
    const last = page[page.length - 1];
    return ok(c, {
      items: (await Promise.all(page.map(whole))).map((s) => acontextSession(s, c.get('project').id)),
      next_cursor: hasMore && last ? cursorOf(`${last.createdAt}\u0000${last.id}`) : null,
      has_more: hasMore,
    });
  });

  app.post('/api/v1/session', async (c) => {
    const body = parseBody(CreateSessionBody, await jsonBody(c));
    const store = c.get('store');
    if (!store.writeSession) throw new HttpError(400, 'this store cannot create sessions', 'unsupported');
    const now = new Date().toISOString();
    const acontext: AcontextSessionFields = {
      configs: body.configs ?? {},
      space_id: body.space_id ?? null,
      disable_task_tracking: body.disable_task_tracking ?? false,
    };
    const info = await store.writeSession({
      id: randomUUID(),
      source: 'threadbase',
      createdAt: now,
      updatedAt: now,
      messageCount: 0,
      entries: [],
      meta: { acontext },
    });
    lastEntry.set(sessionKey(c, info.id), null);
    return ok(c, acontextSession(info, c.get('project').id), 201);
  });

  app.delete('/api/v1/session/:id', async (c) => {
    const id = c.req.param('id');
    await requireSession(c, id);
    const store = c.get('store');
    if (!store.deleteSession) throw new HttpError(400, 'this store cannot delete sessions', 'unsupported');
    await store.deleteSession(id);
    lastEntry.delete(sessionKey(c, id));
    return ok(c, {});
  });

  app.post('/api/v1/session/:id/messages', async (c) => {
    const id = c.req.param('id');
    const body = parseBody(StoreMessageBody, await jsonBody(c));
    const message = messageFromBlob(body.blob, body.format as BlobFormat);
    if (body.meta) message.meta = { ...(message.meta ?? {}), acontext: body.meta };
    const entry = await appendToChain(c, id, {
      kind: 'message',
      id: randomUUID(),
      parentId: null,
      timestamp: new Date().toISOString(),
      message,
    });
    const parentId = await acontextParentId(entry.parentId, (at) => c.get('store').getEntry(id, at));
    return ok(c, acontextMessage(id, { ...entry, parentId }), 201);
  });

  app.get('/api/v1/session/:id/messages', async (c) => {
    const id = c.req.param('id');
    const format = c.req.query('format') ?? 'openai';
    if (format !== 'openai' && format !== 'anthropic' && format !== 'acontext')
      throw badParameter(`format must be openai, anthropic or acontext, got ${JSON.stringify(format)}`);
    const limit = intParam(c.req.query('limit'), 1000, 10_000);
    const desc = boolParam('time_desc', c.req.query('time_desc'), false);
    const cursor = c.req.query('cursor');
    const s = await requireSession(c, id);
    const messages = s.entries.filter(isMessageEntry);
    const byId = new Map(format === 'acontext' ? s.entries.map((e) => [e.id, e]) : []);
    // Pages are taken from the newest end when time_desc; each page is in that order.
    const ordered = desc ? [...messages].reverse() : messages;
    let start = 0;
    if (cursor) {
      const after = entryIdOfCursor(cursor);
      const at = ordered.findIndex((e) => e.id === after);
      if (at < 0) throw badParameter('invalid cursor');
      start = at + 1;
    }
    const page = ordered.slice(start, start + limit);
    const hasMore = start + limit < ordered.length;
    const items: unknown[] = [];
    const ids: string[] = [];
    for (const e of page) {
      if (format === 'anthropic') {
        items.push(messageToAnthropic(e.message));
        ids.push(e.id);
      } else if (format === 'openai') {
        // One stored message of several tool results is several OpenAI messages; each keeps its id.
        for (const m of messageToOpenAI(e.message)) {
          items.push(m);
          ids.push(e.id);
        }
      } else {
        const parentId = await acontextParentId(e.parentId, (at) => byId.get(at));
        items.push(acontextMessage(id, { ...e, parentId }));
        ids.push(e.id);
      }
    }
    const last = page[page.length - 1];
    return ok(c, { items, ids, next_cursor: hasMore && last ? cursorOf(last.id) : null, has_more: hasMore });
  });

  app.get('/api/v1/session/:id/token_counts', async (c) => {
    const s = await requireSession(c, c.req.param('id'));
    return ok(c, { total_tokens: estimateTokens(s.entries.filter(isMessageEntry).map((e) => e.message)) });
  });

  app.get('/api/v1/session/:id/configs', async (c) => {
    const s = await requireSession(c, c.req.param('id'));
    return ok(c, acontextSession(s, c.get('project').id));
  });

  /** Replaces the session's configs (the SDK's updateConfigs); answers the session. */
  app.put('/api/v1/session/:id/configs', async (c) => {
    const body = parseBody(UpdateConfigsBody, await jsonBody(c));
    return ok(c, await changeAcontextFields(c, c.req.param('id'), { configs: body.configs }));
  });

  /** Connects the session to a space (recorded: listed by space_id); answers the session. */
  app.post('/api/v1/session/:id/connect_to_space', async (c) => {
    const body = parseBody(ConnectToSpaceBody, await jsonBody(c));
    return ok(c, await changeAcontextFields(c, c.req.param('id'), { space_id: body.space_id }));
  });

  // Nothing here extracts tasks from messages or learns into spaces: no tasks, nothing pending.
  app.get('/api/v1/session/:id/task', async (c) => {
    intParam(c.req.query('limit'), 20, 200);
    boolParam('time_desc', c.req.query('time_desc'), false);
    await requireSession(c, c.req.param('id'));
    return ok(c, { items: [], next_cursor: null, has_more: false });
  });

  app.post('/api/v1/session/:id/flush', async (c) => {
    await requireSession(c, c.req.param('id'));
    return ok(c, { status: 0, errmsg: '' });
  });

  app.get('/api/v1/session/:id/get_learning_status', async (c) => {
    await requireSession(c, c.req.param('id'));
    return ok(c, { space_digested_count: 0, not_space_digested_count: 0 });
  });

  // ---- threadbase's own routes ---------------------------------------------------------------

  const tb = '/api/v1/threadbase';

  /**
   * Sessions newest first (updatedAt, then id: the stores' order). With `limit`, `next_cursor` names
   * the place after the page's last session (null on the last page); `cursor` goes on from there.
   */
  app.get(`${tb}/sessions`, async (c) => {
    const q = c.req.query();
    const limit = q.limit ? intParam(q.limit, 100, 10_000) : undefined;
    const window = windowParams(q);
    let until = window.until;
    let after: { updatedAt: string; id: string } | undefined;
    if (q.cursor) {
      const place = entryIdOfCursor(q.cursor);
      const sep = place.indexOf('\u0000');
      if (sep < 0) throw badParameter(`invalid cursor ${JSON.stringify(q.cursor)}`);
      after = { updatedAt: place.slice(0, sep), id: place.slice(sep + 1) };
      if (!until || after.updatedAt < until) until = after.updatedAt; // what comes after is no newer
    }
    const filter = {
      source: q.source,
      project: projectFilterOf(q.project),
      since: window.since,
      until,
      text: q.text,
      parentId: q.parent,
    };
    // One more than the page tells whether there is a next page; a cursor needs the ties at its time too.
    let sessions = await c.get('store').listSessions({ ...filter, limit: limit && !after ? limit + 1 : undefined });
    if (after) {
      const { updatedAt, id } = after;
      sessions = sessions.filter((s) => s.updatedAt < updatedAt || (s.updatedAt === updatedAt && s.id > id));
    }
    if (!limit) return ok(c, { sessions, next_cursor: null });
    const page = sessions.slice(0, limit);
    const last = page[page.length - 1];
    return ok(c, {
      sessions: page,
      next_cursor: sessions.length > limit && last ? cursorOf(`${last.updatedAt}\u0000${last.id}`) : null,
    });
  });

  app.get(`${tb}/sessions/:id`, async (c) => {
    const s = await requireSession(c, c.req.param('id'));
    return ok(c, s);
  });

  /** A pushed body ({session, entries}) as a whole session under `id`, as a create or a replace stores it. */
  const sessionOfBody = (id: string, head: z.infer<typeof PutSessionBody>['session'], entries: Entry[]): Session => {
    const createdAt = headerTime('createdAt', head.createdAt);
    const updatedAt = headerTime('updatedAt', head.updatedAt);
    return {
      ...(head as unknown as Session),
      id,
      source: head.source ?? 'threadbase',
      createdAt: createdAt ?? entries[0]?.timestamp ?? new Date().toISOString(),
      updatedAt: updatedAt ?? new Date().toISOString(),
      messageCount: 0,
      entries,
    };
  };

  /**
   * The project's session `id` swapped for `whole` in one step of the store (a failed write leaves it
   * as it was). One the project does not have is a 404, found so by the store in that same step: not
   * made, and no look-up first that a delete could come between.
   */
  const replaceStored = (c: HonoContext<Env>, id: string, whole: Session) => {
    const store = c.get('store');
    const key = sessionKey(c, id);
    return queue.run(key, async () => {
      lastEntry.delete(key);
      if (!store.replaceSession) throw new HttpError(400, 'this store cannot replace sessions', 'unsupported');
      try {
        await store.replaceSession(id, whole);
      } catch (error) {
        if (error instanceof NotFoundError) throw new HttpError(404, `session not found: ${id}`);
        throw error;
      }
      return { id, created: false, added: whole.entries.length };
    });
  };

  /**
   * Creates the session with this id, or adds the entries it does not have yet (push) by the stores'
   * append rule: an entry it has as stored is left out, one it has with other content refused (409).
   * `?replace=true` (push --force): a session the project has is swapped whole for the body, in one
   * step of the store (replaceSession), its entries those of the body alone; one it does not have is a
   * 404 not_found, not made (a session deleted since the pusher looked is not brought back by a replace).
   */
  app.put(`${tb}/sessions/:id`, async (c) => {
    const id = c.req.param('id');
    const replace = boolParam('replace', c.req.query('replace'), false);
    const body = parseBody(PutSessionBody, await jsonBody(c));
    const entries = utcEntries(body.entries as unknown as Entry[]);
    const whole = sessionOfBody(id, body.session, entries);
    if (replace) return ok(c, await replaceStored(c, id, whole));
    const store = c.get('store');
    const key = sessionKey(c, id);
    /**
     * The session stored under `id` and which of the pushed entries and their parents it has: read
     * whole, unless the store answers that alone (PostgreSQL; a push of a 50 MB session in 4 MiB
     * requests read it whole again for each, 0.5 s and 500 MB of heap a request).
     */
    const { pushedEntriesOf } = store as PushLookup;
    const storedOf = async (): Promise<{ session: SessionInfo; have: Set<string> } | undefined> => {
      if (pushedEntriesOf) {
        const asked = [...new Set(entries.flatMap((e) => (e.parentId === null ? [e.id] : [e.id, e.parentId])))];
        return pushedEntriesOf.call(store, id, asked);
      }
      const stored = await store.getSession(id);
      return stored && { session: stored, have: new Set(stored.entries.map((e) => e.id)) };
    };
    const addTo = async ({ session: existing, have }: { session: SessionInfo; have: Set<string> }) => {
      const known = new Set([...have, ...entries.map((e) => e.id)]);
      // An entry whose parent the session has nowhere (a reader keeps one: a Claude Code record naming
      // a record not in its file) is refused by an append, and a session that grew one failed every
      // push after (409). Pushed, it is added as the root the reader says it starts.
      const sent = entries.map((e) => (e.parentId !== null && !known.has(e.parentId) ? { ...e, parentId: null } : e));
      const fresh = sent.filter((e) => !have.has(e.id));
      if (fresh.length && !store.appendEntries) throw new HttpError(400, 'this store cannot append', 'unsupported');
      // Those the session has go to the store too, which leaves out one stored alike (a push repeated)
      // and refuses one stored with other content (duplicate_entry, 409; nothing of the request added):
      // left out here by id alone, an entry changed under its id was dropped unsaid.
      if (sent.length) await store.appendEntries?.(id, sent);
      // An agent names a session after it starts (Claude's summary, a rename): a later push carries it.
      const title = body.session.title;
      if (title && title !== existing.title && store.setTitle) await store.setTitle(id, title);
      // a session threadbase wrote, stored without saying so (pushed before PostgreSQL's migration 8)
      const { markWrittenBy } = store as WrittenByMarker;
      if (body.session.writtenBy === 'threadbase' && !existing.writtenBy && markWrittenBy) await markWrittenBy.call(store, id);
      return { id, created: false, added: fresh.length };
    };
    const result = await queue.run(key, async () => {
      lastEntry.delete(key);
      const existing = await storedOf();
      if (existing) return addTo(existing);
      if (!store.writeSession) throw new HttpError(400, 'this store cannot create sessions', 'unsupported');
      const info = await store.writeSession(whole, { keepId: true });
      if (info.id !== id) {
        // The id was taken meanwhile: by this project's same push through another server process on
        // this database (the queue serialises only this process), the copy just made gives way to it.
        const winner = await storedOf();
        if (winner && store.deleteSession) {
          await store.deleteSession(info.id);
          return addTo(winner);
        }
      }
      return { id: info.id, created: true, added: entries.length };
    });
    return ok(c, result, result.created ? 201 : 200);
  });

  /**
   * A replace in parts (push --force of a session larger than one request): parts 1, 2, … of upload
   * `:upload` (an id the client chose) are held by the server, out of the store and every listing,
   * until the part sent with `?last=true`; then the session is swapped for the body's header and the
   * parts' entries in order, in one step of the store, as `PUT ?replace=true` swaps it for one body.
   * A part lost, an upload abandoned (held 15 minutes after its last part) or the bytes held beyond
   * the server's bound (503 staging_full) leave the stored session as it was. The first part of a
   * session the project does not have is a 404 not_found; a part whose earlier parts the server does
   * not hold, a 409 upload_incomplete.
   */
  app.put(`${tb}/sessions/:id/replace/:upload/:part`, async (c) => {
    const id = c.req.param('id');
    const { upload, part } = uploadPlace(c.req.param('upload'), c.req.param('part'));
    const last = boolParam('last', c.req.query('last'), false);
    const body = parseBody(PutSessionBody, await jsonBody(c));
    const entries = utcEntries(body.entries as unknown as Entry[]);
    const whole = sessionOfBody(id, body.session, entries);
    const store = c.get('store');
    const uploadKey = `${sessionKey(c, id)}\u0000${upload}`;
    const incomplete = () =>
      new HttpError(
        409,
        `upload ${upload} of session ${id} is incomplete: the server holds no part before part ${part} (expired after ${Math.round(staged.ttlMs / 1000)} s, the server restarted, or another server process took them); nothing replaced, send it again from part 1`,
        'upload_incomplete',
      );
    if (last) {
      const before = staged.take(uploadKey, part);
      if (!before) throw incomplete();
      return ok(c, await replaceStored(c, id, { ...whole, entries: [...before, ...entries] }));
    }
    // the first part of a session the project has not: refused at once, not after the whole is sent
    if (part === 1) {
      const { pushedEntriesOf } = store as PushLookup;
      const there = pushedEntriesOf ? await pushedEntriesOf.call(store, id, []) : await store.getSession(id);
      if (!there) throw new HttpError(404, `session not found: ${id}`);
    }
    const held = staged.stage(uploadKey, part, entries);
    if (!held.ok && held.reason === 'gone') throw incomplete();
    if (!held.ok)
      throw new HttpError(
        503,
        `the server holds ${held.held} bytes of replaces in parts and takes at most ${staged.maxBytes}: upload ${upload} of session ${id} dropped, nothing replaced; try again later`,
        'staging_full',
      );
    return ok(c, { id, upload, part, staged: true });
  });

  /** Drops an upload of a replace in parts (a push that failed gives the server its memory back); the session is untouched. */
  app.delete(`${tb}/sessions/:id/replace/:upload`, async (c) => {
    const id = c.req.param('id');
    const { upload } = uploadPlace(c.req.param('upload'), '1');
    const dropped = staged.drop(`${sessionKey(c, id)}\u0000${upload}`);
    return ok(c, { id, upload, dropped });
  });

  app.post(`${tb}/sessions/:id/entries`, async (c) => {
    const id = c.req.param('id');
    const body = parseBody(AppendBody, await jsonBody(c));
    const store = c.get('store');
    if (!store.appendEntries) throw new HttpError(400, 'this store cannot append', 'unsupported');
    const key = sessionKey(c, id);
    const entries = utcEntries(body.entries as unknown as Entry[]);
    const added = await queue.run(key, async () => {
      lastEntry.delete(key);
      const s = await requireSession(c, id);
      // Entries the session has as stored are skipped by the store (other content under a stored id is
      // refused: 409); `added` counts only the others, as PUT does.
      const have = new Set(s.entries.map((e) => e.id));
      await store.appendEntries?.(id, entries);
      return entries.filter((e) => !have.has(e.id)).length;
    });
    return ok(c, { added }, 201);
  });

  app.delete(`${tb}/sessions/:id`, async (c) => {
    const id = c.req.param('id');
    await requireSession(c, id);
    await c.get('store').deleteSession?.(id);
    lastEntry.delete(sessionKey(c, id));
    return ok(c, {});
  });

  app.get(`${tb}/sessions/:id/context`, async (c) => {
    const id = c.req.param('id');
    const format = c.req.query('format') ?? 'anthropic';
    if (!contextFormatNames().includes(format))
      throw badParameter(`unknown format ${JSON.stringify(format)} (known: ${contextFormatNames().join(', ')})`);
    await requireSession(c, id);
    const leaf = c.req.query('leaf');
    let ctx: Awaited<ReturnType<SessionDriver['getContext']>>;
    try {
      ctx = await c.get('store').getContext(id, leaf ? { leafId: leaf } : {});
    } catch (error) {
      if (error instanceof Error && /not in this session/.test(error.message)) throw new HttpError(404, error.message);
      throw error;
    }
    return ok(c, { format, context: renderContext(ctx, format) });
  });

  app.get(`${tb}/sessions/:id/export`, async (c) => {
    const s = await requireSession(c, c.req.param('id'));
    const format = c.req.query('format') ?? 'json';
    if (format === 'json') return ok(c, s);
    if (format === 'markdown') {
      const ctx = await c.get('store').getContext(s.id);
      return c.text(String(renderContext(ctx, 'markdown')), 200, { 'content-type': 'text/markdown; charset=utf-8' });
    }
    throw badParameter('format must be json or markdown');
  });

  app.post(`${tb}/sessions/:id/fork`, async (c) => {
    const id = c.req.param('id');
    const body = parseBody(ForkBody, await jsonBody(c));
    const s = await requireSession(c, id);
    if (body.at && !s.entries.some((e) => e.id === body.at)) throw new HttpError(404, `entry not found: ${body.at}`);
    const store = c.get('store');
    if (!store.forkSession) throw new HttpError(400, 'this store cannot fork', 'unsupported');
    const info = await store.forkSession(id, { at: body.at, title: body.title });
    return ok(c, info, 201);
  });

  /** A new message under an earlier entry of the same session (a branch in place). */
  app.post(`${tb}/sessions/:id/branch`, async (c) => {
    const id = c.req.param('id');
    const body = parseBody(BranchBody, await jsonBody(c));
    const message = messageFromBlob(body.blob, body.format as BlobFormat);
    const store = c.get('store');
    const key = sessionKey(c, id);
    const entry = await queue.run(key, async () => {
      lastEntry.delete(key);
      const s = await requireSession(c, id);
      if (!s.entries.some((e) => e.id === body.at)) throw new HttpError(404, `entry not found: ${body.at}`);
      const e: MessageEntry = {
        kind: 'message',
        id: randomUUID(),
        parentId: body.at,
        timestamp: new Date().toISOString(),
        message,
      };
      await store.appendEntries?.(id, [e]);
      return e;
    });
    return ok(c, entry, 201);
  });

  app.get(`${tb}/search`, async (c) => {
    const q = c.req.query();
    const query = q.q ?? '';
    if (!query.trim()) throw badParameter('q is required');
    const store = c.get('store');
    if (!store.search) throw new HttpError(400, 'this store cannot search', 'unsupported');
    const hits = await store.search(query, {
      role: roleParam(q.role),
      tool: q.tool,
      source: q.source,
      project: projectFilterOf(q.project),
      ...windowParams(q),
      limit: intParam(q.limit, 50, 1000),
    });
    return ok(c, { hits });
  });

  app.get(`${tb}/stats`, async (c) => {
    const q = c.req.query();
    const store = c.get('store');
    const filter = {
      source: q.source,
      project: projectFilterOf(q.project),
      ...windowParams(q),
    };
    // what local `stats` gives: responses in the window (a copied one once), recorded costs kept, the
    // rest (Claude Code records none) priced with the server's table; each session read at most once
    return ok(c, await serverStats(store, filter, prices));
  });

  return app;
}
