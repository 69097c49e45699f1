/**
 * Session ids per project. A store's session ids are one namespace for every project (PostgreSQL's
 * tb_sessions.id is its primary key; other stores have one id space), so a PUT of an id another
 * project holds could not keep it: the server answered with a fresh id, which told the caller that
 * the id exists elsewhere. This view keeps the id the project asked for: when the store cannot hold
 * it, the session is stored under an alias derived from the project and the id (`<id>~<hash>`), and
 * every id in and out is translated, so the project names and sees its own id, and its answers are
 * the ones it gets for an id nobody holds.
 */
import { createHash } from 'node:crypto';
import type {
  ForkOptions,
  GetMessagesOptions,
  SearchHit,
  SearchOptions,
  SessionCost,
  SessionDriver,
  SessionFilter,
  WriteOptions,
} from '../model/driver.js';
import { NotFoundError, SessionEntryError } from '../model/errors.js';
import type { ResponseStats } from '../model/prices.js';
import type { ContextOptions } from '../model/tree.js';
import type { Entry, MetadataEntry, Session, SessionInfo } from '../model/types.js';
import type { PriceTable } from '../stores/index-sync/prices.js';

/** A store that can mark a stored session as one threadbase wrote (PostgresStore): the server's PUT marks one pushed without it. */
export interface WrittenByMarker {
  markWrittenBy?(sessionId: string): Promise<void>;
}

/** A store that answers what a push's PUT needs of a stored session without reading its entries (PostgresStore). */
export interface PushLookup {
  /** The session's header and which of `ids` are its entries; undefined when there is no such session. */
  pushedEntriesOf?(sessionId: string, ids: readonly string[]): Promise<{ session: SessionInfo; have: Set<string> } | undefined>;
}

const ALIAS = /^([\s\S]+)~([0-9a-f]{16})$/;

export class ProjectIdsDriver implements SessionDriver {
  readonly name: string;
  readonly capabilities: SessionDriver['capabilities'];
  readonly readerVersion?: number;
  // the inner view's optional methods, present only where it has them (the server asks for them)
  readonly writeSession?: (session: Session, opts?: WriteOptions) => Promise<SessionInfo>;
  readonly appendEntries?: (sessionId: string, entries: Entry[]) => Promise<void>;
  readonly replaceSession?: (sessionId: string, session: Session) => Promise<SessionInfo>;
  readonly forkSession?: (sessionId: string, opts?: ForkOptions) => Promise<SessionInfo>;
  readonly setTitle?: (sessionId: string, title: string) => Promise<void>;
  readonly deleteSession?: (sessionId: string) => Promise<void>;
  readonly search?: (query: string, opts?: SearchOptions) => Promise<SearchHit[]>;
  readonly appendToChain?: (sessionId: string, entry: Entry) => Promise<Entry>;
  readonly sessionCosts?: (prices: PriceTable, sessionIds?: readonly string[]) => Promise<SessionCost[]>;
  readonly costSummary?: (filter: SessionFilter, prices: PriceTable, sessionIds?: readonly string[]) => Promise<ResponseStats>;
  readonly metadataEntries?: (type: string) => Promise<Map<string, MetadataEntry[]>>;
  readonly costBuckets?: SessionDriver['costBuckets'];
  readonly resumeCommand?: (session: SessionInfo) => string;
  readonly contextOf?: SessionDriver['contextOf'];
  readonly markWrittenBy?: WrittenByMarker['markWrittenBy'];
  readonly pushedEntriesOf?: PushLookup['pushedEntriesOf'];

  constructor(
    /** the store as this project sees it (its tenant view, or the store scoped to the project) */
    readonly inner: SessionDriver,
    private readonly project: string,
  ) {
    this.name = inner.name;
    this.capabilities = inner.capabilities;
    this.readerVersion = inner.readerVersion;
    const {
      writeSession,
      appendEntries,
      replaceSession,
      forkSession,
      setTitle,
      deleteSession,
      search,
      appendToChain,
      sessionCosts,
      costSummary,
      costBuckets,
      metadataEntries,
      resumeCommand,
      contextOf,
    } = inner;
    if (writeSession) this.writeSession = (s, o) => this.write(writeSession.bind(inner), s, o);
    if (appendEntries) this.appendEntries = (id, entries) => this.at(id, (at) => appendEntries.call(inner, at, entries));
    // kept under the id it is stored under (its alias, where another project holds the id)
    if (replaceSession)
      this.replaceSession = async (id, session) =>
        this.infoOut(await this.at(id, (at) => replaceSession.call(inner, at, { ...session, id: at })));
    if (forkSession)
      this.forkSession = async (id, opts) => this.infoOut(await this.at(id, (at) => forkSession.call(inner, at, opts)));
    if (setTitle) this.setTitle = (id, title) => this.at(id, (at) => setTitle.call(inner, at, title));
    if (deleteSession) this.deleteSession = (id) => this.at(id, (at) => deleteSession.call(inner, at));
    if (search)
      this.search = async (query, opts) =>
        (await search.call(inner, query, opts)).map((h) => ({ ...h, sessionId: this.shown(h.sessionId) }));
    if (appendToChain) this.appendToChain = (id, entry) => this.at(id, (at) => appendToChain.call(inner, at, entry));
    if (sessionCosts)
      // each id asked for and its alias: only the one stored has a row
      this.sessionCosts = async (prices, ids) =>
        (
          await sessionCosts.call(
            inner,
            prices,
            ids?.flatMap((id) => [id, this.aliasOf(id)]),
          )
        ).map((r) => ({
          ...r,
          id: this.shown(r.id),
        }));
    if (costSummary)
      this.costSummary = (filter, prices, ids) =>
        costSummary.call(
          inner,
          filter,
          prices,
          ids?.flatMap((id) => [id, this.aliasOf(id)]),
        );
    if (costBuckets)
      this.costBuckets = (by, filter, prices, ids, timeZone) =>
        costBuckets.call(
          inner,
          by,
          filter,
          prices,
          ids?.flatMap((id) => [id, this.aliasOf(id)]),
          timeZone,
        );
    if (metadataEntries)
      // by the ids the project knows its sessions by
      this.metadataEntries = async (type) =>
        new Map([...(await metadataEntries.call(inner, type))].map(([id, list]) => [this.shown(id), list] as const));
    if (resumeCommand) this.resumeCommand = (s) => resumeCommand.call(inner, s);
    // the context is the session's entries', whatever id the project shows it under
    if (contextOf) this.contextOf = (s, opts) => contextOf.call(inner, s, opts);
    const { markWrittenBy } = inner as WrittenByMarker;
    if (markWrittenBy) this.markWrittenBy = (id) => this.at(id, (at) => markWrittenBy.call(inner, at));
    const { pushedEntriesOf } = inner as PushLookup;
    if (pushedEntriesOf)
      // under the id, else under its alias, as getSession finds it
      this.pushedEntriesOf = async (id, ids) => {
        const found = (await pushedEntriesOf.call(inner, id, ids)) ?? (await pushedEntriesOf.call(inner, this.aliasOf(id), ids));
        return found && { ...found, session: this.infoOut(found.session) };
      };
  }

  /** The id this project's session `id` is stored under when the store could not keep `id`. */
  aliasOf(id: string): string {
    const hash = createHash('sha256').update(`${this.project}\u0000${id}`, 'utf8').digest('hex').slice(0, 16);
    return `${id}~${hash}`;
  }

  /** A stored id as the project names it (an alias of its own made back into the id it asked for). */
  private shown(storedId: string): string {
    const m = ALIAS.exec(storedId);
    return m?.[1] && this.aliasOf(m[1]) === storedId ? m[1] : storedId;
  }

  /**
   * `fn` on the project's session `id`: under the id itself, else (the store found no such session)
   * under its alias. No look-up first: a session is found by the operation itself, as before.
   */
  private async at<T>(id: string, fn: (storedId: string) => Promise<T>): Promise<T> {
    try {
      return await fn(id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const alias = this.aliasOf(id);
      try {
        return await fn(alias);
      } catch (again) {
        if (again instanceof NotFoundError) throw error;
        // a refusal naming the session (duplicate_entry) names it as the project does, not by its alias
        if (again instanceof SessionEntryError && again.sessionId === alias) throw again.forSession(id);
        throw again;
      }
    }
  }

  private infoOut<T extends SessionInfo>(info: T): T {
    const id = this.shown(info.id);
    const parentId = info.parentId ? this.shown(info.parentId) : info.parentId;
    return id === info.id && parentId === info.parentId ? info : { ...info, id, parentId };
  }

  /**
   * With keepId: under the id asked for when the store keeps it; when it does not and the project
   * has no session of that id (another project holds it), under the project's alias of it, which the
   * store picks in the same transaction (idIfTaken): never written first under another id.
   */
  private async write(
    writeSession: (s: Session, o?: WriteOptions) => Promise<SessionInfo>,
    session: Session,
    opts?: WriteOptions,
  ): Promise<SessionInfo> {
    const asked = session.id;
    if (!opts?.keepId || !asked) return this.infoOut(await writeSession(session, opts));
    // the project has this id already, under it or its alias (a write never merges): a fresh id
    if (await this.getSession(asked)) return this.infoOut(await writeSession(session, { ...opts, keepId: false }));
    const alias = this.aliasOf(asked);
    const written = await writeSession(session, { ...opts, idIfTaken: alias });
    // the project's own write of this id (another server process) won meanwhile: this one is a
    // session of its own, under a fresh id rather than the alias, which would name the same id
    if (written.id === alias && (await this.inner.getSession(asked)) && this.inner.deleteSession) {
      const fresh = await writeSession(session, { ...opts, keepId: false });
      await this.inner.deleteSession(alias);
      return this.infoOut(fresh);
    }
    return this.infoOut(written);
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const listed = await this.inner.listSessions(filter);
    if (filter.parentId) {
      // children name the parent as pushed (its id), forks made here as stored (its alias)
      const forks = await this.inner.listSessions({ ...filter, parentId: this.aliasOf(filter.parentId) });
      if (forks.length) {
        listed.push(...forks);
        listed.sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1));
        if (filter.limit) listed.splice(filter.limit);
      }
    }
    return listed.map((s) => this.infoOut(s));
  }

  async getSession(id: string): Promise<Session | undefined> {
    const own = (await this.inner.getSession(id)) ?? (await this.inner.getSession(this.aliasOf(id)));
    return own && this.infoOut(own);
  }

  async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return (await this.inner.getEntry(sessionId, entryId)) ?? this.inner.getEntry(this.aliasOf(sessionId), entryId);
  }

  async getAncestry(sessionId: string, entryId: string): Promise<Entry[]> {
    return this.at(sessionId, (at) => this.inner.getAncestry(at, entryId));
  }

  async getContext(sessionId: string, opts?: ContextOptions) {
    return this.at(sessionId, (at) => this.inner.getContext(at, opts));
  }

  async getMessages(sessionId: string, opts?: GetMessagesOptions) {
    return this.at(sessionId, (at) => this.inner.getMessages(at, opts));
  }

  async usage(filter?: SessionFilter) {
    return this.inner.usage(filter);
  }
}
