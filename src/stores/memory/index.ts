/**
 * An in-memory threadbase store: every driver capability, no persistence. For tests, for apps that
 * want a scratch store, and as the fallback when no other store is available. Sessions are
 * `source: 'threadbase'`; what goes in is copied, what comes out is a copy, so callers cannot reach
 * in and change stored state.
 */
import { applyFilter, DriverBase, matchesFilter, matchesSessionText } from '../../formats/shared/base.js';
import { CopyChoice, type CopySession, CountedResponses, copyRankOf, entryCopyKeyOf } from '../../model/copies.js';
import type {
  DriverCapabilities,
  ForkOptions,
  SearchHit,
  SearchOptions,
  SessionFilter,
  UsageTotals,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, SessionEntryError } from '../../model/errors.js';
import { truncate } from '../../model/text.js';
import { countMessages, messageText } from '../../model/tree.js';
import type { Entry, Session, SessionInfo } from '../../model/types.js';
import { countedUsage, responseRecordOf, summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { queryTerms, searchLimitOf, searchTerms, sessionMatches, snippetOf } from '../search-text.js';
import {
  checkWrittenEntryIds,
  entriesNotStored,
  forkedSession,
  STORE_CAPABILITIES,
  writtenIdOf,
  writtenSession,
} from '../shared.js';

/** A short title from the first user text, as listings show when a session has none. */
export function titleFromEntries(entries: readonly Entry[]): string | undefined {
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'user' || e.sidechain) continue;
    const text = messageText(e.message).trim().replace(/\s+/g, ' ');
    if (text) return truncate(text, 80);
  }
  return undefined;
}

/** The listing fields of a session, recomputed from its entries. */
export function sessionInfoOf(s: Session): SessionInfo {
  // usageByModel is recomputed, never carried over from what the session had
  const { entries, warnings: _w, raw: _r, leafId: _l, usageByModel: _m, ...info } = s;
  const u = summarizeUsage(entries);
  const times = entries
    .map((e) => e.timestamp)
    .filter(Boolean)
    .sort();
  const out: SessionInfo = {
    ...info,
    messageCount: countMessages(entries),
    createdAt: info.createdAt || times[0] || new Date().toISOString(),
    updatedAt: [info.updatedAt, times[times.length - 1]].filter(Boolean).sort().pop() ?? info.createdAt,
    usage: u.usage,
    cost: u.cost,
  };
  if (u.models.length) out.models = u.models;
  Object.assign(out, usageByModelOf(u));
  const title = info.title ?? titleFromEntries(entries);
  if (title !== undefined) out.title = title;
  return out;
}

export class MemoryStore extends DriverBase {
  readonly name: string = 'memory';
  readonly capabilities: DriverCapabilities = STORE_CAPABILITIES;
  private sessions = new Map<string, Session>();

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const infos = [...this.sessions.values()].map(sessionInfoOf);
    const byText = infos.filter((i) => {
      const s = this.sessions.get(i.id);
      return s !== undefined && matchesSessionText(s, i.title, filter.text);
    });
    return applyFilter(byText, { ...filter, text: undefined });
  }

  async getSession(id: string): Promise<Session | undefined> {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    return { ...structuredClone(s), ...sessionInfoOf(s) };
  }

  /**
   * The tokens, recorded cost and responses of the sessions `filter` selects, a response copied into
   * several of them (a fork) once, as the SQLite and PostgreSQL stores' usage() count them.
   */
  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    // DriverBase's rule, over the stored sessions themselves (getSession would copy each)
    const counted = new CountedResponses();
    for (const info of await this.listSessions(filter)) {
      const s = this.sessions.get(info.id);
      if (s) counted.add({ id: s.id, createdAt: info.createdAt, parentId: s.parentId, entries: s.entries });
    }
    return counted.totals();
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    checkWrittenEntryIds(session);
    const id = writtenIdOf(session, opts, (at) => this.sessions.has(at));
    const stored = writtenSession(structuredClone(session), id);
    this.sessions.set(id, stored);
    return sessionInfoOf(stored);
  }

  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) throw new NotFoundError('memory session', sessionId);
    checkEntries(entries, sessionId, false);
    const fresh = entriesNotStored(sessionId, entries, new Map(s.entries.map((e) => [e.id, e])));
    checkEntries([...s.entries, ...fresh], sessionId, true);
    const copies = structuredClone(fresh);
    s.entries.push(...copies);
    const last = [...copies].reverse().find((e) => !e.sidechain);
    if (last) s.leafId = last.id;
    const latest = copies
      .map((e) => e.timestamp)
      .sort()
      .pop();
    if (latest && latest > s.updatedAt) s.updatedAt = latest;
  }

  async replaceSession(sessionId: string, session: Session): Promise<SessionInfo> {
    if (!this.sessions.has(sessionId)) throw new NotFoundError('memory session', sessionId);
    // checked (as writeSession checks) and copied before the swap: a refused one leaves the stored one as it was
    checkWrittenEntryIds(session);
    const stored = writtenSession(structuredClone(session), sessionId);
    this.sessions.set(sessionId, stored);
    return sessionInfoOf(stored);
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = this.sessions.get(sessionId);
    if (!s) throw new NotFoundError('memory session', sessionId);
    const fork = forkedSession(s, opts);
    this.sessions.set(fork.id, fork);
    return sessionInfoOf(fork);
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) throw new NotFoundError('memory session', sessionId);
    s.title = title;
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId)) throw new NotFoundError('memory session', sessionId);
  }

  /** Every term of the query in an entry, as the SQLite and PostgreSQL stores match (src/stores/search-text.ts). */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    const terms = searchTerms(query);
    if (!terms.length) return [];
    // the sessions searched (a copy of an entry is found once among them); since and until are the entries' times
    const among = { source: opts.source, project: opts.project, parentId: opts.parentId };
    const searched = [...this.sessions.values()].filter((s) => matchesFilter(sessionInfoOf(s), among));
    const shown = shownEntryCopies(searched);
    const marked = queryTerms(query);
    const hits: SearchHit[] = [];
    for (const s of searched) {
      for (const { entry: e, text, score } of sessionMatches(s.entries, terms, opts.tool)) {
        if (shown.get(entryCopyKeyOf(e, s.id)) !== s.id) continue;
        const role = e.kind === 'message' ? e.message.role : undefined;
        if (opts.role && role !== opts.role) continue;
        if (opts.since && e.timestamp < opts.since) continue;
        if (opts.until && e.timestamp > opts.until) continue;
        hits.push({
          sessionId: s.id,
          entryId: e.id,
          source: s.source,
          ...(s.project !== undefined ? { project: s.project } : {}),
          ...(role !== undefined ? { role } : {}),
          snippet: snippetOf(text, marked),
          score,
          timestamp: e.timestamp,
        });
      }
    }
    hits.sort((a, b) => b.score - a.score || (a.timestamp < b.timestamp ? 1 : -1));
    return hits.slice(0, searchLimitOf(opts.limit));
  }
}

/**
 * Which session's copy search shows of each entry the `searched` sessions repeat (a fork's copy of
 * its parent's entries, a Copilot CLI sub-agent run's events: the same entry id and time), as the
 * SQLite store's search picks it: the copy preferred among them by the rule `stats` counts a copied
 * response by (preferredCopy; an entry's rank from what its row would hold: its response's counted
 * usage on the record that counts, else its own).
 */
function shownEntryCopies(searched: readonly Session[]): CopyChoice<string> {
  const shown = new CopyChoice<string>();
  for (const s of searched) {
    const session: CopySession = {
      id: s.id,
      createdAt: sessionInfoOf(s).createdAt,
      parentId: s.parentId,
      writtenBy: s.writtenBy,
    };
    const counted = countedUsage(s.entries);
    for (const e of s.entries) {
      const own = responseRecordOf(e);
      const usage = counted.get(e.id) ?? {
        ...(own?.usage ? { usage: own.usage } : {}),
        ...(own?.cost !== undefined ? { cost: own.cost } : {}),
      };
      shown.offer(entryCopyKeyOf(e, s.id), session, copyRankOf(usage), s.id);
    }
  }
  return shown;
}

/**
 * Entry ids are unique within a session; appended entries must name a parent the session has
 * (a whole written session may carry orphans read from damaged input; tree logic re-roots them).
 */
function checkEntries(entries: readonly Entry[], sessionId: string, parentsMustExist: boolean): void {
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id))
      throw new SessionEntryError('duplicate_entry', sessionId, e.id, (sid) => `entry id ${e.id} is already in session ${sid}`);
    ids.add(e.id);
  }
  if (!parentsMustExist) return;
  for (const e of entries) {
    const parent = e.parentId;
    if (parent !== null && !ids.has(parent)) {
      throw new SessionEntryError(
        'orphan_entry',
        sessionId,
        e.id,
        (sid) => `entry ${e.id} names parent ${parent}, which is not in session ${sid}`,
      );
    }
  }
}
