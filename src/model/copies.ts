/**
 * A response copied into several sessions (a fork's copy of its parent's records, a resumed session
 * repeating its history, a conversion into another agent) is one response: counted once, in one
 * preferred copy. This is the rule in TypeScript, for whatever counts loaded sessions (a server's
 * `/stats` on a store without SQL of its own, the web viewer's charts); the local index applies the
 * same rule in SQL (src/stores/sqlite/copies.ts) and so does PostgreSQL (COPY_PREFERRED).
 */
import type { UsageTotals } from './driver.js';
import type { ResponseWindow } from './prices.js';
import { addUsage, type Entry } from './types.js';
import { type CountedUsage, countedUsage, emptyUsageTotals, responseRecordOf, usagePerModel } from './usage.js';

/**
 * What decides which session's copy counts: when the session started, whether threadbase wrote it,
 * whether it is a fork, its id.
 */
export interface CopySession {
  id: string;
  createdAt: string;
  parentId?: string | null | undefined;
  writtenBy?: 'threadbase' | undefined;
}

/**
 * The key of a record without a time in session `sessionId`: its own. An empty time says nothing of
 * which records are one (Codex CLI keeps a rollout line's empty `timestamp` and numbers the records
 * of items without an id by their line, L2, L3, ... in every rollout), so such a record is a copy of
 * none in another session; the SQLite and PostgreSQL stores leave it out of their copies too.
 */
const untimedKey = (sessionId: string, id: string) => `s\u0000${sessionId}\u0000${id}`;

/**
 * What two copies of one counted record share: the same response id and time (a provider's id of
 * one API response; the time too, since a proxy may number responses anew per session), else, for a
 * record without a response id, the same entry id and time; a record without a time (in session
 * `sessionId`) has a key of its own.
 */
export function copyKeyOf(e: Entry, sessionId: string): string {
  const responseId = responseRecordOf(e)?.responseId;
  if (!e.timestamp) return untimedKey(sessionId, responseId ? `r\u0000${responseId}` : `e\u0000${e.id}`);
  return responseId ? `r\u0000${responseId}\u0000${e.timestamp}` : `e\u0000${e.id}\u0000${e.timestamp}`;
}

/**
 * What two copies of one entry share, for search (a fork's copy of its parent's entries, a Copilot
 * CLI sub-agent run's events, which are its session's too): the same entry id and time; an entry
 * without a time (in session `sessionId`) has a key of its own.
 */
export function entryCopyKeyOf(e: Entry, sessionId: string): string {
  return e.timestamp ? `${e.id}\u0000${e.timestamp}` : untimedKey(sessionId, e.id);
}

/**
 * Of copies in sessions that started at the same time: 0 a recorded cost, 1 none (priced from
 * tokens), 2 a cost of 0 for tokens (a converted copy: pi and OpenCode record what the copy spent,
 * which is nothing).
 */
export function copyRankOf(c: CountedUsage): number {
  if (c.cost === undefined) return 1;
  return c.cost === 0 && c.usage && c.usage.input + c.usage.output > 0 ? 2 : 0;
}

/**
 * Whether copy a (in session a, of rank ar) is preferred to copy b: earlier session; an original over
 * a session threadbase wrote (a copy into Claude Code, Cline, Gemini, ... starts when its original
 * did); rank; no fork; lower id.
 */
export function preferredCopy(a: CopySession, ar: number, b: CopySession, br: number): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  if (!a.writtenBy !== !b.writtenBy) return !a.writtenBy;
  if (ar !== br) return ar < br;
  if (!a.parentId !== !b.parentId) return !a.parentId;
  return a.id < b.id;
}

/** The preferred copy of each copy key, with what the caller keeps of it. */
export class CopyChoice<T> {
  private readonly best = new Map<string, { session: CopySession; rank: number; value: T }>();

  /** One copy of the record `key` in `session`; kept when preferred to the copy kept so far. */
  offer(key: string, session: CopySession, rank: number, value: T): void {
    const b = this.best.get(key);
    if (!b || preferredCopy(session, rank, b.session, b.rank)) this.best.set(key, { session, rank, value });
  }

  /** The value kept for `key`'s preferred copy. */
  get(key: string): T | undefined {
    return this.best.get(key)?.value;
  }

  /** The values of every key's preferred copy. */
  *values(): IterableIterator<T> {
    for (const b of this.best.values()) yield b.value;
  }
}

/** A session as CountedResponses takes it: what decides which of its copies counts, and its records. */
export interface CountedSession extends CopySession {
  entries: readonly Entry[];
}

/** Whether an ISO time is inside the window (both ends included, as `stats --since/--until`). */
export function inWindow(time: string, window: ResponseWindow): boolean {
  return (!window.since || time >= window.since) && (!window.until || time <= window.until);
}

/**
 * The counted records (countedUsage) of the sessions added one at a time, a response copied into
 * several of them once, in its preferred copy (CopyChoice); only those whose time is inside `window`.
 * What a driver's usage() and a server's `/stats` count over loaded sessions, as the stores count in SQL.
 */
export class CountedResponses {
  private readonly choice = new CopyChoice<CountedUsage>();

  constructor(private readonly window: ResponseWindow = {}) {}

  add(s: CountedSession): void {
    const byId = new Map(s.entries.map((e) => [e.id, e]));
    for (const [id, counted] of countedUsage(s.entries)) {
      const e = byId.get(id);
      if (!e || !inWindow(e.timestamp, this.window)) continue;
      this.choice.offer(
        copyKeyOf(e, s.id),
        { id: s.id, createdAt: s.createdAt, parentId: s.parentId, writtenBy: s.writtenBy },
        copyRankOf(counted),
        counted,
      );
    }
  }

  /** Each counted response once. */
  values(): IterableIterator<CountedUsage> {
    return this.choice.values();
  }

  /** Their tokens (advisor requests' too), recorded cost and how many. */
  totals(): UsageTotals {
    const usage = emptyUsageTotals();
    for (const counted of this.values()) {
      usage.messages++;
      for (const part of counted.usage ? usagePerModel(counted.model, counted.usage) : []) {
        const { speed: _s, inferenceGeo: _g, ...sum } = addUsage(usage, part.usage);
        Object.assign(usage, sum);
      }
      if (counted.cost !== undefined) usage.cost += counted.cost;
    }
    return usage;
  }
}
