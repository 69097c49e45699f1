/**
 * A SessionDriver over a remote `threadbase serve`, through its own routes under
 * /api/v1/threadbase (sessions, entries, fork, search, stats). The API key is the URL's user part
 * (`https://KEY@host`) or the `key` option; every request sends it as a Bearer token.
 */
import { randomUUID } from 'node:crypto';
import { DriverBase } from '../../formats/shared/base.js';
import type {
  DriverCapabilities,
  ForkOptions,
  SearchHit,
  SearchOptions,
  SessionFilter,
  UsageTotals,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { endsBeforeItStarts } from '../../model/time-window.js';
import type { Entry, Session, SessionInfo } from '../../model/types.js';
import { emptyUsageTotals } from '../../model/usage.js';
import { sessionInfoOf } from '../memory/index.js';
import { checkWrittenEntryIds, THREADBASE_SOURCE, writtenMeta } from '../shared.js';
import { serverRoot, urlKeyOf } from './address.js';
import { httpErrorCodeOf } from './error-codes.js';

export interface RemoteStoreOptions {
  /** API key (`threadbase token create`); default the URL's user part. */
  key?: string;
  /** Request timeout in ms (default 30 s). */
  timeoutMs?: number;
}

/** An error the server answered with, carrying its HTTP status. */
export class RemoteError extends ThreadbaseError {
  readonly status: number;
  /**
   * `reason`: the server's own error code (its answer's `reason`), kept as this error's code; without
   * one (an older server, a proxy) the status's (HTTP_ERROR_CODES), else `remote`.
   */
  constructor(status: number, message: string, id?: string, reason?: string) {
    super(reason ?? httpErrorCodeOf(status) ?? 'remote', `server answered ${status}: ${message}`, id ? { id } : {});
    this.name = 'RemoteError';
    this.status = status;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The answer's body as text, `onPart` called as each part of it comes. */
async function textOf(res: Response, onPart: () => void): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    onPart();
    text += decoder.decode(part.value, { stream: true });
  }
  return text + decoder.decode();
}

/** The answer's data (the server wraps answers as {code, data, msg}), or its error as a RemoteError. */
function answerOf(res: Response, text: string): unknown {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const msg = isRecord(json) ? String(json.msg ?? json.error ?? text) : text || res.statusText;
    const reason = isRecord(json) && typeof json.reason === 'string' && json.reason !== '' ? json.reason : undefined;
    throw new RemoteError(res.status, msg, undefined, reason);
  }
  return isRecord(json) && 'data' in json ? json.data : json;
}

export class RemoteStore extends DriverBase {
  readonly name: string = 'remote';
  readonly capabilities: DriverCapabilities = {
    read: true,
    write: true,
    append: true,
    fork: true,
    branch: true,
    delete: true,
    title: false,
    search: true,
  };
  private readonly base: string;
  private readonly key?: string;
  private readonly timeoutMs: number;

  constructor(url: string, opts: RemoteStoreOptions = {}) {
    super();
    const key = opts.key ?? urlKeyOf(url);
    this.base = `${serverRoot(url)}/api/v1/threadbase`;
    if (key) this.key = key;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number | undefined>,
  ): Promise<unknown> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
    const url = `${this.base}${path}${qs.size ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The timeout is for a server that does not answer, or stops sending: it runs until the answer
    // starts, then anew from each part of it. As one limit on the whole request it cut off any answer
    // longer to download than that (a 50 MB session over a link under ~13 Mbit/s, at 30 s).
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const wait = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.abort(new DOMException(`no answer from ${this.base} in ${this.timeoutMs} ms`, 'TimeoutError')),
        this.timeoutMs,
      );
    };
    try {
      wait();
      const res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      return answerOf(res, await textOf(res, wait));
    } finally {
      clearTimeout(timer);
    }
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    // a since after the until: the server refuses it (400) to its HTTP callers, while a driver answers
    // it with nothing, as every other store does (driver conformance); so do search and usage
    if (endsBeforeItStarts(filter)) return [];
    const data = await this.call('GET', '/sessions', undefined, {
      source: filter.source,
      project: filter.project,
      since: filter.since,
      until: filter.until,
      text: filter.text,
      parent: filter.parentId,
      limit: filter.limit,
    });
    return isRecord(data) && Array.isArray(data.sessions) ? (data.sessions as SessionInfo[]) : [];
  }

  async getSession(id: string): Promise<Session | undefined> {
    try {
      return (await this.call('GET', `/sessions/${encodeURIComponent(id)}`)) as Session;
    } catch (error) {
      if (error instanceof RemoteError && error.status === 404) return undefined;
      throw error;
    }
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    checkWrittenEntryIds(session);
    // PUT creates the session, or adds to one that exists: check first so a write never merges.
    let id = opts.keepId && session.id ? session.id : randomUUID();
    if (opts.keepId && (await this.getSession(id))) id = randomUUID();
    const { entries, warnings: _w, raw: _r, path: _p, ...info } = session;
    const head: Record<string, unknown> = { ...info, id, source: THREADBASE_SOURCE };
    const meta = writtenMeta(session);
    if (meta) head.meta = meta;
    const data = await this.call('PUT', `/sessions/${encodeURIComponent(id)}`, { session: head, entries });
    const storedId = isRecord(data) && typeof data.id === 'string' ? data.id : id;
    return { ...sessionInfoOf({ ...session, ...head, id: storedId } as Session), path: `${this.base}/sessions/${storedId}` };
  }

  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    if (entries.length === 0) {
      if (!(await this.getSession(sessionId))) throw new NotFoundError('remote session', sessionId);
      return;
    }
    await this.call('POST', `/sessions/${encodeURIComponent(sessionId)}/entries`, { entries });
  }

  /** The server's PUT ?replace=true: the session swapped whole in one transaction of its store. */
  async replaceSession(sessionId: string, session: Session): Promise<SessionInfo> {
    checkWrittenEntryIds(session);
    const { entries, warnings: _w, raw: _r, path: _p, ...info } = session;
    const head: Record<string, unknown> = { ...info, id: sessionId, source: THREADBASE_SOURCE };
    const meta = writtenMeta(session);
    if (meta) head.meta = meta;
    // the server answers a replace of a session it does not have 404 not_found, without making it: no
    // look-up first, which a delete between it and the PUT turned into a session made again
    try {
      await this.call('PUT', `/sessions/${encodeURIComponent(sessionId)}`, { session: head, entries }, { replace: 'true' });
    } catch (error) {
      if (error instanceof RemoteError && error.status === 404 && error.code === 'not_found')
        throw new NotFoundError('remote session', sessionId);
      throw error;
    }
    return { ...sessionInfoOf({ ...session, ...head } as Session), path: `${this.base}/sessions/${sessionId}` };
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    return (await this.call('POST', `/sessions/${encodeURIComponent(sessionId)}/fork`, opts)) as SessionInfo;
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call('DELETE', `/sessions/${encodeURIComponent(sessionId)}`);
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    if (endsBeforeItStarts(opts)) return [];
    const data = await this.call('GET', '/search', undefined, {
      q: query,
      role: opts.role,
      tool: opts.tool,
      source: opts.source,
      project: opts.project,
      since: opts.since,
      until: opts.until,
      limit: opts.limit,
    });
    return isRecord(data) && Array.isArray(data.hits) ? (data.hits as SearchHit[]) : [];
  }

  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    if (endsBeforeItStarts(filter)) return emptyUsageTotals();
    const data = await this.call('GET', '/stats', undefined, {
      source: filter.source,
      project: filter.project,
      since: filter.since,
      until: filter.until,
    });
    if (isRecord(data) && isRecord(data.usage)) return data.usage as unknown as UsageTotals;
    throw new RemoteError(500, 'stats answer has no usage');
  }
}

export function openRemoteStore(url: string, opts: RemoteStoreOptions = {}): RemoteStore {
  return new RemoteStore(url, opts);
}
