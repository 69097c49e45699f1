/**
 * A server project's view of a store. A store with forTenant (PostgreSQL, by its tenant column)
 * scopes itself; any other SessionDriver is wrapped so sessions carry their project in
 * `meta.threadbaseProject` and nothing of another project is listed, found, searched or changed.
 */
import { DriverBase } from '../formats/shared/base.js';
import type {
  DriverCapabilities,
  ForkOptions,
  SearchHit,
  SearchOptions,
  SessionCost,
  SessionDriver,
  SessionFilter,
  UsageTotals,
  WriteOptions,
} from '../model/driver.js';
import { NotFoundError, UnsupportedError } from '../model/errors.js';
import type { ResponseStats } from '../model/prices.js';
import type { Entry, MetadataEntry, Session, SessionInfo } from '../model/types.js';
import type { PriceTable } from '../stores/index-sync/prices.js';
import { searchLimitOf } from '../stores/search-text.js';
import { ofAgent } from '../stores/shared.js';
import { ProjectIdsDriver } from './tenant-ids.js';

export type ProjectStores = (projectId: string) => SessionDriver;

/** Each project's view of the store, its session ids its own (ProjectIdsDriver) */
export function projectStores(store: SessionDriver): ProjectStores {
  const { forTenant } = store;
  if (forTenant) {
    // a store that scopes by tenant itself (PostgreSQL): one view per project, kept
    const cache = new Map<string, SessionDriver>();
    return (projectId) => {
      let s = cache.get(projectId);
      if (!s) {
        s = new ProjectIdsDriver(forTenant.call(store, projectId), projectId);
        cache.set(projectId, s);
      }
      return s;
    };
  }
  return (projectId) => new ProjectIdsDriver(new ProjectScopedDriver(store, projectId), projectId);
}

const PROJECT_KEY = 'threadbaseProject';

const ownedBy = (info: { meta?: Record<string, unknown> } | undefined, project: string) => info?.meta?.[PROJECT_KEY] === project;

export class ProjectScopedDriver extends DriverBase {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  // the inner store's optional methods, present only where it has them (the server asks for them)
  readonly appendToChain?: (sessionId: string, entry: Entry) => Promise<Entry>;
  readonly sessionCosts?: (prices: PriceTable, sessionIds?: readonly string[]) => Promise<SessionCost[]>;
  readonly costSummary?: (filter: SessionFilter, prices: PriceTable, sessionIds?: readonly string[]) => Promise<ResponseStats>;
  readonly metadataEntries?: (type: string) => Promise<Map<string, MetadataEntry[]>>;
  readonly costBuckets?: SessionDriver['costBuckets'];

  constructor(
    private readonly inner: SessionDriver,
    readonly project: string,
  ) {
    super();
    this.name = inner.name;
    this.capabilities = inner.capabilities;
    const { appendToChain, sessionCosts, costSummary, costBuckets, metadataEntries } = inner;
    if (appendToChain) {
      this.appendToChain = async (sessionId, entry) => {
        await this.mine(sessionId);
        return appendToChain.call(inner, sessionId, entry);
      };
    }
    if (sessionCosts) {
      // only this project's sessions: the given ones that are its own, by default all of them
      this.sessionCosts = async (prices, sessionIds) => {
        const mine = new Set((await this.listSessions({})).map((s) => s.id));
        const ids = sessionIds?.filter((id) => mine.has(id));
        const rows = await sessionCosts.call(inner, prices, ids);
        return rows.filter((r) => mine.has(r.id));
      };
    }
    if (metadataEntries) {
      // only this project's sessions
      this.metadataEntries = async (type) => {
        const all = await metadataEntries.call(inner, type);
        const mine = new Set((await this.listSessions({})).map((s) => s.id));
        for (const id of all.keys()) if (!mine.has(id)) all.delete(id);
        return all;
      };
    }
    if (costBuckets) {
      // as costSummary below: this project's sessions of the filter's source and project
      this.costBuckets = async (by, filter, prices, sessionIds, timeZone) =>
        costBuckets.call(
          inner,
          by,
          { since: filter.since, until: filter.until },
          prices,
          await this.idsOf(filter, sessionIds),
          timeZone,
        );
    }
    if (costSummary) {
      // counted in the store, over this project's sessions of the filter's source and project (a
      // source as ofAgent reads it): a response copied into another project's session counts here too
      this.costSummary = async (filter, prices, sessionIds) =>
        costSummary.call(inner, { since: filter.since, until: filter.until }, prices, await this.idsOf(filter, sessionIds));
    }
  }

  /** This project's sessions of the filter's source and project, of `sessionIds` when given. */
  private async idsOf(filter: SessionFilter, sessionIds?: readonly string[]): Promise<string[]> {
    const only = sessionIds && new Set(sessionIds);
    return (await this.listSessions({ source: filter.source, project: filter.project }))
      .map((s) => s.id)
      .filter((id) => !only || only.has(id));
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const all = await this.inner.listSessions({ ...filter, source: undefined, limit: undefined });
    const mine = all.filter((s) => ownedBy(s, this.project) && ofAgent(s, filter.source));
    return filter.limit ? mine.slice(0, filter.limit) : mine;
  }

  /**
   * The tokens, recorded cost and responses of this project's sessions `filter` selects, counted in
   * the store where it counts (costSummary: a response copied into several of them once, by the
   * store's own rule, no session read), else each session read and counted (DriverBase).
   */
  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    const { costSummary } = this.inner;
    if (!costSummary) return super.usage(filter);
    const ids = (await this.listSessions(filter)).map((s) => s.id);
    // no prices: only the tokens and the recorded cost are wanted; every response, whatever its time
    return (await costSummary.call(this.inner, {}, {}, ids)).usage;
  }

  async getSession(id: string): Promise<Session | undefined> {
    const s = await this.inner.getSession(id);
    return ownedBy(s, this.project) ? s : undefined;
  }

  private async mine(id: string): Promise<void> {
    if (!(await this.getSession(id))) throw new NotFoundError(`${this.name} session`, id);
  }

  async writeSession(session: Session, opts?: WriteOptions): Promise<SessionInfo> {
    if (!this.inner.writeSession) throw new UnsupportedError(this.name, 'write sessions');
    // an id another project holds is never reused: the alias asked for (idIfTaken) instead, or a fresh one
    if (opts?.keepId && session.id && (await this.inner.getSession(session.id))) {
      const { idIfTaken, ...rest } = opts;
      if (idIfTaken) [session, opts] = [{ ...session, id: idIfTaken }, rest];
      else opts = { ...rest, keepId: false };
    }
    return this.inner.writeSession({ ...session, meta: { ...(session.meta ?? {}), [PROJECT_KEY]: this.project } }, opts);
  }

  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    if (!this.inner.appendEntries) throw new UnsupportedError(this.name, 'append');
    await this.mine(sessionId);
    return this.inner.appendEntries(sessionId, entries);
  }

  async replaceSession(sessionId: string, session: Session): Promise<SessionInfo> {
    if (!this.inner.replaceSession) throw new UnsupportedError(this.name, 'replace sessions');
    await this.mine(sessionId);
    // the project's mark kept, as writeSession sets it
    return this.inner.replaceSession(sessionId, { ...session, meta: { ...(session.meta ?? {}), [PROJECT_KEY]: this.project } });
  }

  async forkSession(sessionId: string, opts?: ForkOptions): Promise<SessionInfo> {
    const s = await this.getSession(sessionId);
    if (!s) throw new NotFoundError(`${this.name} session`, sessionId);
    if (!this.inner.forkSession || !this.inner.setTitle) throw new UnsupportedError(this.name, 'fork');
    const info = await this.inner.forkSession(sessionId, opts);
    // The fork must belong to the same project: rewrite it with the project mark.
    const fork = await this.inner.getSession(info.id);
    if (fork && !ownedBy(fork, this.project) && this.inner.writeSession && this.inner.deleteSession) {
      await this.inner.deleteSession(info.id);
      return this.writeSession(fork, { keepId: true });
    }
    return info;
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    if (!this.inner.setTitle) throw new UnsupportedError(this.name, 'set titles');
    await this.mine(sessionId);
    return this.inner.setTitle(sessionId, title);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.inner.deleteSession) throw new UnsupportedError(this.name, 'delete');
    await this.mine(sessionId);
    return this.inner.deleteSession(sessionId);
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.inner.search) throw new UnsupportedError(this.name, 'search');
    const want = searchLimitOf(opts.limit);
    const mine = new Set((await this.listSessions({ source: opts.source })).map((s) => s.id));
    // the store searches every project's sessions: ask it for more until this project's fill the page or it has no more
    for (let asked = want * 4; ; asked *= 4) {
      const hits = await this.inner.search(query, { ...opts, source: undefined, limit: asked });
      const out = hits.filter((h) => mine.has(h.sessionId));
      if (out.length >= want || hits.length < asked) return out.slice(0, want);
    }
  }
}
