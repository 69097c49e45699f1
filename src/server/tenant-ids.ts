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
import type { ResponseStats } from '../model/prices.js';
import type { ContextOptions } from '../model/tree.js';
import type { Entry, Session, SessionInfo } from '../model/types.js';
import type { PriceTable } from '../stores/index-sync/prices.js';

const ALIAS = /^([\s\S]+)~([0-9a-f]{16})$/;

export class ProjectIdsDriver implements SessionDriver {
  readonly name: string;
  readonly capabilities: SessionDriver['capabilities'];
  readonly readerVersion?: number;
  // the inner view's optional methods, present only where it has them (the server asks for them)
  readonly writeSession?: (session: Session, opts?: WriteOptions) => Promise<SessionInfo>;
  readonly appendEntries?: (sessionId: string, entries: Entry[]) => Promise<void>;
  readonly forkSession?: (sessionId: string, opts?: ForkOptions) => Promise<SessionInfo>;
  readonly setTitle?: (sessionId: string, title: string) => Promise<void>;
  readonly deleteSession?: (sessionId: string) => Promise<void>;
  readonly search?: (query: string, opts?: SearchOptions) => Promise<SearchHit[]>;
  readonly appendToChain?: (sessionId: string, entry: Entry) => Promise<Entry>;
  readonly sessionCosts?: (prices: PriceTable, sessionIds?: readonly string[]) => Promise<SessionCost[]>;
  readonly costSummary?: (filter: SessionFilter, prices: PriceTable) => Promise<ResponseStats>;
  readonly resumeCommand?: (session: SessionInfo) => string;

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
      forkSession,
      setTitle,
      deleteSession,
      search,
      appendToChain,
      sessionCosts,
      costSummary,
      resumeCommand,
    } = inner;
    if (writeSession) this.writeSession = (s, o) => this.write(writeSession.bind(inner), s, o);
    if (appendEntries) this.appendEntries = async (id, entries) => appendEntries.call(inner, await this.stored(id), entries);
    if (forkSession)
      this.forkSession = async (id, opts) => this.infoOut(await forkSession.call(inner, await this.stored(id), opts));
    if (setTitle) this.setTitle = async (id, title) => setTitle.call(inner, await this.stored(id), title);
    if (deleteSession) this.deleteSession = async (id) => deleteSession.call(inner, await this.stored(id));
    if (search)
      this.search = async (query, opts) =>
        (await search.call(inner, query, opts)).map((h) => ({ ...h, sessionId: this.shown(h.sessionId) }));
    if (appendToChain) this.appendToChain = async (id, entry) => appendToChain.call(inner, await this.stored(id), entry);
    if (sessionCosts)
      this.sessionCosts = async (prices, ids) => {
        const stored = ids ? await Promise.all(ids.map((id) => this.stored(id))) : undefined;
        return (await sessionCosts.call(inner, prices, stored)).map((r) => ({ ...r, id: this.shown(r.id) }));
      };
    if (costSummary) this.costSummary = async (filter, prices) => costSummary.call(inner, await this.filterIn(filter), prices);
    if (resumeCommand) this.resumeCommand = (s) => resumeCommand.call(inner, s);
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

  /** The stored id of the project's session `id`: the id itself, else its alias when that is there. */
  private async stored(id: string): Promise<string> {
    if (await this.inner.getSession(id)) return id;
    const alias = this.aliasOf(id);
    return (await this.inner.getSession(alias)) ? alias : id;
  }

  private infoOut<T extends SessionInfo>(info: T): T {
    const id = this.shown(info.id);
    const parentId = info.parentId ? this.shown(info.parentId) : info.parentId;
    return id === info.id && parentId === info.parentId ? info : { ...info, id, parentId };
  }

  private async filterIn(filter: SessionFilter | undefined): Promise<SessionFilter> {
    return filter?.parentId ? { ...filter, parentId: await this.stored(filter.parentId) } : (filter ?? {});
  }

  /**
   * With keepId: under the id asked for when the store keeps it; when it does not and the project
   * has no session of that id (another project holds it), under the project's alias of it.
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
    const first = await writeSession(session, opts);
    // kept; or the project's own write of this id (another server process) won meanwhile
    if (first.id === asked || (await this.inner.getSession(asked)) || !this.inner.deleteSession) return this.infoOut(first);
    // held by another project: made again under the alias, and the copy under a fresh id goes
    await this.inner.deleteSession(first.id);
    return this.infoOut(await writeSession({ ...session, id: this.aliasOf(asked) }, opts));
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    return (await this.inner.listSessions(await this.filterIn(filter))).map((s) => this.infoOut(s));
  }

  async getSession(id: string): Promise<Session | undefined> {
    const own = (await this.inner.getSession(id)) ?? (await this.inner.getSession(this.aliasOf(id)));
    return own && this.infoOut(own);
  }

  async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return this.inner.getEntry(await this.stored(sessionId), entryId);
  }

  async getAncestry(sessionId: string, entryId: string): Promise<Entry[]> {
    return this.inner.getAncestry(await this.stored(sessionId), entryId);
  }

  async getContext(sessionId: string, opts?: ContextOptions) {
    return this.inner.getContext(await this.stored(sessionId), opts);
  }

  async getMessages(sessionId: string, opts?: GetMessagesOptions) {
    return this.inner.getMessages(await this.stored(sessionId), opts);
  }

  async usage(filter?: SessionFilter) {
    return this.inner.usage(await this.filterIn(filter));
  }
}
