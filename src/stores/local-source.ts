/**
 * threadbase's own sessions as a source beside the agents': what ClaudeAgentStorage, `convert --to
 * threadbase` or a fork stored in the local store ($THREADBASE_HOME/index.db, the database the
 * index shares), so that `sessions`, `show`, `context`, `convert` and `fork` find them like any
 * agent's. Only sessions whose source is `threadbase`: the agents' sessions indexed in the same
 * database are shown by their agents' own sources. Reading never creates the database.
 *
 * Importing this module registers the source as `threadbase`; the index never indexes it (it is
 * the index's own database).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { registerFormat } from '../formats/registry.js';
import { makeDirectorySync } from '../formats/shared/atomic.js';
import { DriverBase } from '../formats/shared/base.js';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  SearchHit,
  SearchOptions,
  SessionFilter,
  UsageTotals,
  WriteOptions,
} from '../model/driver.js';
import { NotFoundError } from '../model/errors.js';
import type { Entry, Session, SessionInfo } from '../model/types.js';
import { emptyUsageTotals } from '../model/usage.js';
import { threadbaseHome } from './open.js';
import { STORE_CAPABILITIES, THREADBASE_SOURCE } from './shared.js';
import { openSqliteStore, type SqliteStore } from './sqlite/index.js';

export class LocalStoreSource extends DriverBase {
  readonly name: string = THREADBASE_SOURCE;
  readonly capabilities: DriverCapabilities = STORE_CAPABILITIES;
  private store?: SqliteStore;

  constructor(readonly path: string) {
    super();
  }

  /** The store, opened on first use; for reading only when its database is already there. */
  private opened(create: boolean): SqliteStore | undefined {
    if (this.store) return this.store;
    if (!create && !existsSync(this.path)) return undefined;
    makeDirectorySync(dirname(this.path));
    this.store = openSqliteStore(this.path);
    return this.store;
  }

  /** A session of threadbase's own, or a not-found error naming the database. */
  private async owned(id: string): Promise<SqliteStore> {
    const store = this.opened(false);
    const s = await store?.getSession(id);
    if (!store || s?.source !== THREADBASE_SOURCE) throw new NotFoundError('threadbase session', id, { file: this.path });
    return store;
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    if (filter.source && filter.source !== THREADBASE_SOURCE) return [];
    return (await this.opened(false)?.listSessions({ ...filter, source: THREADBASE_SOURCE })) ?? [];
  }

  async getSession(id: string): Promise<Session | undefined> {
    const s = await this.opened(false)?.getSession(id);
    return s?.source === THREADBASE_SOURCE ? s : undefined;
  }

  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    if (filter.source && filter.source !== THREADBASE_SOURCE) return emptyUsageTotals();
    return (await this.opened(false)?.usage({ ...filter, source: THREADBASE_SOURCE })) ?? emptyUsageTotals();
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    if (opts.source && opts.source !== THREADBASE_SOURCE) return [];
    return (await this.opened(false)?.search(query, { ...opts, source: THREADBASE_SOURCE })) ?? [];
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const store = this.opened(true) as SqliteStore;
    const info = await store.writeSession(session, opts);
    return { ...info, path: this.path };
  }

  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    await (await this.owned(sessionId)).appendEntries(sessionId, entries);
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    return (await this.owned(sessionId)).forkSession(sessionId, opts);
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    await (await this.owned(sessionId)).setTitle(sessionId, title);
  }

  async deleteSession(sessionId: string): Promise<void> {
    await (await this.owned(sessionId)).deleteSession(sessionId);
  }

  async close(): Promise<void> {
    await this.store?.close();
    this.store = undefined;
  }
}

/** The local store of this environment as a source. */
export function localStoreSource(env: DriverEnv): LocalStoreSource {
  return new LocalStoreSource(join(threadbaseHome(env), 'index.db'));
}

registerFormat(THREADBASE_SOURCE, localStoreSource);
