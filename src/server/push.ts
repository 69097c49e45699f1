/**
 * Pushing local sessions to a team server, incrementally: a state file remembers, per server and
 * key (a key is one project there), how many entries of each session were sent and the id they
 * ended on, so a second push sends only what is new. The server adds entries by the stores' append
 * rule: one it has as stored is left out, so an interrupted push can repeat; one it has with other
 * content is refused (409 duplicate_entry), and the session fails the push, saying so. With `force`
 * such a session is sent to replace the server's copy (PUT ?replace=true), as `git push --force` does;
 * one larger than a request goes in parts the server holds until the last, then swaps in at once.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirectory, writeFileAtomic } from '../formats/shared/atomic.js';
import type { SessionDriver, SessionFilter } from '../model/driver.js';
import { ThreadbaseError } from '../model/errors.js';
import type { Entry, Session, SessionInfo } from '../model/types.js';
import { isServerUrl, serverRoot } from '../stores/remote/address.js';

/** The response header (on `GET /api/v1/ping`) that carries the served store's identity (store-identity.ts). */
export const STORE_ID_HEADER = 'x-threadbase-store';

export interface PushedSession {
  remoteId: string;
  /** entries sent so far, in the local session's order */
  sent: number;
  lastEntryId: string | null;
  updatedAt: string;
  /** the title (as the local listing gives it) last sent; absent in state written before titles were kept */
  title?: string | null;
  /**
   * A digest of the `sent` entries as they were read (entriesDigests): one of them changed since is sent
   * again, with the rest, for the server to refuse, not passed over. Absent in state from before.
   */
  sentDigest?: string;
}

/** Per `<server> key:<hash prefix>` (before: per server alone), per local session id. */
export type PushState = Record<string, Record<string, PushedSession>>;

/**
 * The state's name for a server and key. The key decides the project, so what one key pushed is not
 * "already sent" for another (a second project's push sent nothing). Only a hash prefix is kept.
 */
export function pushStateKey(server: string, key: string): string {
  return `${server} key:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 12)}`;
}

export interface PushOptions {
  from: SessionDriver;
  to: string;
  key: string;
  statePath: string;
  filter?: SessionFilter;
  /** Largest JSON body per request (bytes, default 4 MiB). */
  maxBodyBytes?: number;
  onProgress?: (done: number, total: number, info: SessionInfo) => void;
  fetchImpl?: typeof fetch;
  /** The identity of the store pushed from (storeIdentity): a server serving that very store is refused. */
  sourceStoreId?: string;
  /**
   * A session whose entries changed since they were sent (push state), or that the server refuses for
   * an entry it holds with other content (duplicate_entry), replaces the server's copy whole. A session
   * unchanged is not sent again.
   */
  force?: boolean;
}

export interface PushReport {
  sessions: number;
  created: number;
  updated: number;
  unchanged: number;
  entriesSent: number;
  requests: number;
  /** sessions whose server copy was replaced whole (force); counted in `updated` (or `created`) too */
  replaced: number;
  /** `code`: the error's code when it has one of its own, as the server's refusal (duplicate_entry) */
  failed: { id: string; error: string; code?: string }[];
}

async function loadState(path: string): Promise<PushState> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as PushState) : {};
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return {};
    throw new ThreadbaseError('push_state', `cannot read push state: ${(error as Error).message}`, { file: path });
  }
}

/** The session's header without entries or local paths. */
function header(s: Session): Record<string, unknown> {
  const { entries: _e, warnings: _w, path: _p, raw: _r, usage: _u, cost: _c, models: _m, messageCount: _n, ...rest } = s;
  return rest;
}

/** The digests of entries as read (their JSON in order): of the first `prefix` of them, and of all. */
function entriesDigests(entries: readonly Entry[], prefix: number): { prefix: string; whole: string } {
  const hash = createHash('sha256');
  let digestOfPrefix: string | undefined;
  entries.forEach((e, i) => {
    if (i === prefix) digestOfPrefix = hash.copy().digest('hex');
    hash.update(JSON.stringify(e)).update('\n');
  });
  const whole = hash.digest('hex');
  return { prefix: digestOfPrefix ?? whole, whole };
}

/** How often, at most, the push state is saved while sessions are sent. */
const STATE_SAVE_INTERVAL_MS = 1000;

/** A 413 from the server: the request was larger than its --max-body. */
class TooLarge extends Error {}

/** A 401 or 403 to an upload: the key was revoked (or its rights taken) during the push; no later session would go. */
class KeyRefused extends Error {}

/** Entries in request-sized groups (at least one entry per group). */
function chunks(entries: readonly Entry[], maxBytes: number): Entry[][] {
  const out: Entry[][] = [];
  let cur: Entry[] = [];
  let size = 0;
  for (const e of entries) {
    const n = Buffer.byteLength(JSON.stringify(e));
    if (cur.length && size + n > maxBytes) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(e);
    size += n;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The root of the server `to` names; a URL of none (not http(s), or none at all) refused without repeating it (it may hold a key). */
function rootOf(to: string): string {
  if (!isServerUrl(to)) throw new ThreadbaseError('push', "not a server's URL: expected http(s)://host[:port]");
  return serverRoot(to);
}

/** Why a request failed, as fetch's cause tells it: its code (ECONNREFUSED), with its words where they add some. */
function failureCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = cause?.message ?? (error as Error).message;
  if (!cause?.code) return message;
  return message && !message.includes(cause.code) ? `${cause.code} (${message})` : cause.code;
}

export async function pushSessions(opts: PushOptions): Promise<PushReport> {
  const doFetch = opts.fetchImpl ?? fetch;
  // The server's root; a URL that goes on to its API (the Acontext SDK's baseUrl, .../api/v1) names it too.
  // Without the URL's user:password: fetch refuses a URL holding them, and errors and the state name it.
  const server = rootOf(opts.to);
  const state = await loadState(opts.statePath);
  const stateKey = pushStateKey(server, opts.key);
  const report: PushReport = {
    sessions: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    entriesSent: 0,
    requests: 0,
    replaced: 0,
    failed: [],
  };
  const maxBytes = opts.maxBodyBytes ?? 4 * 1024 * 1024;

  const headers = { authorization: `Bearer ${opts.key}` };
  /**
   * A request to the server; a connection failure names the server and its cause: fetch says only
   * "fetch failed", which an upload that failed reported as all it knew.
   */
  const request = async (path: string, init: RequestInit = {}): Promise<Response> => {
    try {
      return await doFetch(`${server}${path}`, { headers, ...init });
    } catch (error) {
      throw new ThreadbaseError('push', `cannot reach ${server}: ${failureCause(error)}`, {});
    }
  };
  const get = (path: string) => request(path);

  /**
   * `replace`: the server's copy is swapped whole for this body (a forced session sent in one request);
   * `part`: this body is part `number` of upload `upload` of such a replace, the last swapping them in.
   */
  const put = async (
    remoteId: string,
    body: unknown,
    replace = false,
    part?: { upload: string; number: number; last: boolean },
  ): Promise<{ id: string; created: boolean }> => {
    report.requests++;
    const at = `/api/v1/threadbase/sessions/${encodeURIComponent(remoteId)}`;
    const path = part
      ? `${at}/replace/${part.upload}/${part.number}${part.last ? '?last=true' : ''}`
      : `${at}${replace ? '?replace=true' : ''}`;
    const res = await request(path, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as {
      data?: { id?: string; created?: boolean };
      msg?: string;
      reason?: string;
    };
    if (res.status === 413) throw new TooLarge(json.msg ?? res.statusText);
    // a server from before replaces in parts: nothing of this session changed there
    if (part && res.status === 404 && json.reason === 'no_route')
      throw new ThreadbaseError(
        'push',
        'the server cannot replace a session sent in several requests at once (a threadbase server from before replaces in parts): its copy was left as it was; update the server, or raise its --max-body',
        { id: remoteId },
      );
    if (res.status === 401 || res.status === 403) throw new KeyRefused(`${res.status} ${json.msg ?? res.statusText}`);
    // the server's own code for it (duplicate_entry: an entry pushed before, changed since) kept as the error's
    if (!res.ok)
      throw new ThreadbaseError(
        typeof json.reason === 'string' && json.reason ? json.reason : 'push',
        `server answered ${res.status}: ${json.msg ?? res.statusText}`,
        { id: remoteId },
      );
    return { id: json.data?.id ?? remoteId, created: json.data?.created === true };
  };

  // Once, before anything is read or sent, also when nothing is new: a wrong or revoked key or an
  // unreachable server is one error, not one per session, nor a success that sent nothing.
  const checkServer = async () => {
    const res = await get('/api/v1/ping');
    if (!res.ok) {
      const json = (await res.json().catch(() => ({}))) as { msg?: string };
      throw new ThreadbaseError('push', `${server} refused the push: ${res.status} ${json.msg ?? res.statusText}`, {});
    }
    // pushed into itself, every session came back as a second copy under a new id
    if (opts.sourceStoreId && res.headers.get(STORE_ID_HEADER) === opts.sourceStoreId)
      throw new ThreadbaseError(
        'push_to_itself',
        `${server} serves the very store this push reads from: nothing pushed (push another store, or to another server)`,
        {},
      );
  };

  // State written per server alone (before keys were told apart) is this key's only if the server
  // has, for this key, a session it names; else it was another project's and this key starts afresh.
  await checkServer();
  if (!state[stateKey] && state[server]) {
    const legacy = state[server];
    const probe = Object.values(legacy)[0];
    if (probe && (await get(`/api/v1/threadbase/sessions/${encodeURIComponent(probe.remoteId)}`)).ok) {
      state[stateKey] = legacy;
      delete state[server];
    }
  }
  if (!state[stateKey]) state[stateKey] = {};
  const mine = state[stateKey];

  // Saved as sessions go (at most once a second, written whole then renamed), not only at the end:
  // a push stopped by Ctrl-C or a crash sent everything again the next time.
  let lastSaved = 0;
  let saveTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const saveState = (): Promise<void> => {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    lastSaved = Date.now();
    const text = `${JSON.stringify(state, null, 2)}\n`;
    // one write after another: an earlier one, slower, never lands over a later state
    writing = writing
      .catch(() => undefined)
      .then(async () => {
        await makeDirectory(dirname(opts.statePath));
        await writeFileAtomic(opts.statePath, text);
      });
    return writing;
  };
  /** A session done: saved now, or when a second has passed since the last save. */
  const saveSoon = () => {
    if (saveTimer) return;
    // a failed write here is tried again by the next, and the last one (awaited) reports it
    const wait = lastSaved + STATE_SAVE_INTERVAL_MS - Date.now();
    if (wait <= 0) saveState().catch(() => undefined);
    else saveTimer = setTimeout(() => saveState().catch(() => undefined), wait).unref();
  };

  const infos = await opts.from.listSessions(opts.filter ?? {});
  report.sessions = infos.length;
  let done = 0;
  for (const info of infos) {
    done++;
    opts.onProgress?.(done, infos.length, info);
    const prev = mine[info.id];
    // Renamed with no new entry (a store may keep updatedAt on a rename): the title alone is pushed.
    const renamed = !!prev && prev.title !== undefined && !!info.title && info.title !== prev.title;
    if (prev && prev.updatedAt === info.updatedAt && !renamed) {
      report.unchanged++;
      continue;
    }
    try {
      const s = await opts.from.getSession(info.id);
      if (!s) continue;
      // What was sent ends where the state says, as it was: send the rest; else send everything, for the
      // server to leave out what it has as stored and refuse an entry changed since (not pass it over).
      const digests = entriesDigests(s.entries, prev?.sent ?? 0);
      const resume =
        prev &&
        prev.sent <= s.entries.length &&
        (prev.sent === 0 || s.entries[prev.sent - 1]?.id === prev.lastEntryId) &&
        (prev.sentDigest === undefined || prev.sentDigest === digests.prefix);
      let todo = resume ? s.entries.slice(prev.sent) : s.entries;
      // a title not sent yet (state from before titles were kept: sent again, once) is pushed alone
      const titleChanged = !!info.title && info.title !== prev?.title;
      if (prev && todo.length === 0 && !titleChanged) {
        mine[info.id] = { ...prev, updatedAt: info.updatedAt, title: info.title ?? null, sentDigest: digests.whole };
        report.unchanged++;
        continue;
      }
      let remoteId = prev?.remoteId ?? s.id;
      let created = false;
      let replaceSent = false;
      /**
       * The groups sent in order by `one` (`last`: the session's last group). A server started with a
       * smaller --max-body than this push's requests answers 413: the group is sent again in halves,
       * down to one entry (one entry too large for it fails the session).
       */
      const inGroups = async (groups: Entry[][], one: (group: Entry[], last: boolean) => Promise<void>): Promise<void> => {
        const go = async (group: Entry[], last: boolean): Promise<void> => {
          try {
            await one(group, last);
          } catch (error) {
            if (!(error instanceof TooLarge)) throw error;
            const [first] = group;
            if (group.length === 1 && first)
              throw new ThreadbaseError(
                'push',
                `entry ${first.id} (${Buffer.byteLength(JSON.stringify(first))} bytes) is larger than the server accepts (413 ${error.message})`,
                { id: s.id },
              );
            if (group.length <= 1) throw new ThreadbaseError('push', `server answered 413: ${error.message}`, { id: s.id });
            const half = Math.ceil(group.length / 2);
            await go(group.slice(0, half), false);
            await go(group.slice(half), last);
          }
        };
        for (const [i, group] of groups.entries()) await go(group, i === groups.length - 1);
      };
      const groupsOf = (entries: readonly Entry[]) => (entries.length ? chunks(entries, maxBytes) : [[]]);
      /** Appended by the stores' rule (made, when the server has no such session). */
      const sendAll = (entries: readonly Entry[]) =>
        inGroups(groupsOf(entries), async (group) => {
          const r = await put(remoteId, { session: header(s), entries: group });
          remoteId = r.id;
          created ||= r.created;
          report.entriesSent += group.length;
        });
      /**
       * Forced: the server's copy swapped for the whole session. In one request when it fits; else in
       * parts the server holds until the last, then swaps in at once: a part that fails (the server
       * stopped, the push did) leaves its copy as it was, never a prefix of the session.
       */
      const replaceWhole = async (): Promise<void> => {
        const groups = groupsOf(s.entries);
        const [only] = groups;
        if (groups.length === 1 && only) {
          try {
            // an older server makes a session it does not have (created) rather than answer 404
            created ||= (await put(remoteId, { session: header(s), entries: only }, true)).created;
            report.entriesSent += only.length;
            replaceSent = true;
            return;
          } catch (error) {
            if (!(error instanceof TooLarge)) throw error;
            // the server takes smaller requests than this push makes: in parts
          }
        }
        const upload = randomUUID();
        let number = 0;
        try {
          await inGroups(groups, async (group, last) => {
            await put(remoteId, { session: header(s), entries: group }, true, { upload, number: number + 1, last });
            number++;
            report.entriesSent += group.length;
          });
        } catch (error) {
          // parts held there are dropped now rather than when they expire (the server may be gone: no matter)
          if (number > 0 && !(error instanceof KeyRefused))
            await request(`/api/v1/threadbase/sessions/${encodeURIComponent(remoteId)}/replace/${upload}`, {
              method: 'DELETE',
            }).catch(() => undefined);
          throw error;
        }
        replaceSent = true;
      };
      /** Replaced; made anew as a first push makes it when the server has no copy any more (deleted there). */
      const replaceOrCreate = async (): Promise<void> => {
        try {
          await replaceWhole();
        } catch (error) {
          if (!(error instanceof ThreadbaseError) || error.code !== 'not_found') throw error;
          await sendAll(s.entries);
        }
      };
      // Forced, a session that changed since it was sent replaces the server's copy.
      if (opts.force && prev && !resume) {
        todo = s.entries;
        await replaceOrCreate();
      } else {
        try {
          await sendAll(todo);
        } catch (error) {
          // Forced, a session the server refuses for an entry changed under its id (no push state told
          // this push so: it was sent whole, or as the rest) is sent again whole, replacing the copy.
          if (!opts.force || !(error instanceof ThreadbaseError) || error.code !== 'duplicate_entry') throw error;
          todo = s.entries;
          await replaceOrCreate();
        }
      }
      if (replaceSent && !created) report.replaced++;
      // Sent before, yet the server made it anew (deleted there since): what it just made holds only
      // the entries added since, without their beginning. That copy, ours alone, is made again whole.
      if (created && prev && todo.length < s.entries.length) {
        report.requests++;
        const res = await request(`/api/v1/threadbase/sessions/${encodeURIComponent(remoteId)}`, { method: 'DELETE' });
        if (!res.ok)
          throw new ThreadbaseError('push', `server answered ${res.status} to removing a partial copy`, { id: remoteId });
        await sendAll(s.entries);
      }
      if (created) report.created++;
      else report.updated++;
      mine[info.id] = {
        remoteId,
        sent: s.entries.length,
        lastEntryId: s.entries[s.entries.length - 1]?.id ?? null,
        updatedAt: info.updatedAt,
        // as the listing names it, which the next push compares
        title: info.title ?? null,
        sentDigest: digests.whole,
      };
      saveSoon();
    } catch (error) {
      if (error instanceof KeyRefused) {
        await saveState();
        const pushed = report.created + report.updated;
        throw new ThreadbaseError(
          'push',
          `${server} refused the key during the push (${error.message}): stopped at session ${info.id}, after ${pushed} ${pushed === 1 ? 'session' : 'sessions'} pushed`,
          {},
        );
      }
      const code = error instanceof ThreadbaseError && error.code !== 'push' ? error.code : undefined;
      // the way out said where the refusal is: as `git push` says to pull, or to force
      const hint =
        code !== 'duplicate_entry'
          ? ''
          : opts.force
            ? '; the server did not replace its copy (a server from before push --force appends instead)'
            : "; `threadbase push --force` replaces the server's copy of this session with the local one";
      report.failed.push({ id: info.id, error: `${(error as Error).message}${hint}`, ...(code ? { code } : {}) });
    }
  }
  await saveState();
  return report;
}
