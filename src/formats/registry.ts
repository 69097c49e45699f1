/**
 * The agent formats threadbase knows, and one place to list, resolve and open sessions across all
 * of them. Each format registers a factory here; nothing else imports a format by name.
 */
import { type DriverEnv, defaultDriverEnv, type SessionDriver, type SessionFilter } from '../model/driver.js';
import { NotFoundError } from '../model/errors.js';
import type { Session, SessionInfo } from '../model/types.js';
import { newestFirst, pickSession } from './shared/base.js';

export type DriverFactory = (env: DriverEnv) => SessionDriver;

const factories = new Map<string, DriverFactory>();

/** Formats call this at module load (see ./all.ts). */
export function registerFormat(name: string, factory: DriverFactory): void {
  factories.set(name, factory);
}

export function formatNames(): string[] {
  return [...factories.keys()];
}

/** The formats a session can be written into (their drivers' capabilities say write). */
export function writableFormatNames(env: DriverEnv = defaultDriverEnv()): string[] {
  return [...factories].flatMap(([name, factory]) => (factory(env).capabilities.write ? [name] : []));
}

export interface ListResult {
  sessions: SessionInfo[];
  /** A driver that failed as a whole (e.g. a locked database) is reported, the others still list. */
  errors: { source: string; error: Error }[];
}

/** One agent's session id held by several files, and the row kept for it (the file its driver reads). */
export interface SessionCopies {
  kept: SessionInfo;
  files: string[];
}

export interface SourcesOptions {
  /** Called after a driver has written into its agent's store (a new session, an append, a fork, a title, a delete). */
  onWrite?: (format: string) => Promise<void>;
}

/** The driver methods that change an agent's store. */
const WRITE_METHODS: ReadonlySet<PropertyKey> = new Set<keyof SessionDriver>([
  'writeSession',
  'appendEntries',
  'forkSession',
  'setTitle',
  'deleteSession',
]);

/** The driver, with onWrite called after each of its writes that succeeded. */
function observeWrites(driver: SessionDriver, onWrite: () => Promise<void>): SessionDriver {
  return new Proxy(driver, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (!WRITE_METHODS.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        // on the driver itself: a write that calls another (a fork that writes a session) is told once
        const result: unknown = await value.apply(target, args);
        await onWrite();
        return result;
      };
    },
  });
}

/** Every local agent store, each through its own driver. */
export class Sources {
  readonly env: DriverEnv;
  private drivers = new Map<string, SessionDriver>();
  private readonly opts: SourcesOptions;

  constructor(env: DriverEnv = defaultDriverEnv(), opts: SourcesOptions = {}) {
    this.env = env;
    this.opts = opts;
  }

  driver(name: string): SessionDriver {
    let d = this.drivers.get(name);
    if (!d) {
      const f = factories.get(name);
      if (!f) throw new NotFoundError('format', name);
      d = f(this.env);
      const { onWrite } = this.opts;
      if (onWrite) d = observeWrites(d, () => onWrite(name));
      this.drivers.set(name, d);
    }
    return d;
  }

  names(): string[] {
    return formatNames();
  }

  async list(filter: SessionFilter = {}): Promise<ListResult> {
    const names = filter.source ? [filter.source] : this.names();
    const results = await Promise.all(
      names.map(async (name) => {
        try {
          return { name, sessions: await this.driver(name).listSessions(filter) };
        } catch (error) {
          return { name, error: error as Error };
        }
      }),
    );
    const sessions: SessionInfo[] = [];
    const errors: ListResult['errors'] = [];
    for (const r of results) {
      if ('error' in r && r.error) errors.push({ source: r.name, error: r.error });
      else if (r.sessions) sessions.push(...r.sessions);
    }
    sessions.sort(newestFirst);
    return { sessions, errors };
  }

  /**
   * One agent's session in several files (a session file copied into another project's folder) listed
   * once, from the file its driver reads: as the index lists it and as `show` reads it; listed twice,
   * the same id is read as two sessions. `listedElsewhere`: sources whose rows need no check (listed
   * from the index, one row an id).
   */
  async oneOfEachCopy(
    sessions: SessionInfo[],
    listedElsewhere: readonly string[] = [],
  ): Promise<{ sessions: SessionInfo[]; copies: SessionCopies[] }> {
    const byKey = new Map<string, SessionInfo[]>();
    for (const s of sessions) {
      if (listedElsewhere.includes(s.source)) continue;
      const key = `${s.source}:${s.id}`;
      byKey.set(key, [...(byKey.get(key) ?? []), s]);
    }
    const dropped = new Set<SessionInfo>();
    const copies: SessionCopies[] = [];
    for (const same of byKey.values()) {
      const [first] = same;
      if (!first || same.length < 2) continue;
      const read = await this.driver(first.source).getSession(first.id);
      const kept = same.find((s) => s.path !== undefined && s.path === read?.path) ?? first;
      for (const s of same) if (s !== kept) dropped.add(s);
      copies.push({ kept, files: same.map((s) => s.path ?? '?') });
    }
    return { sessions: dropped.size ? sessions.filter((s) => !dropped.has(s)) : sessions, copies };
  }

  /** A session named by its id or a unique prefix of it, in any source (or the one given). */
  async resolve(idOrPrefix: string, source?: string): Promise<SessionInfo> {
    const { sessions } = await this.list(source ? { source } : {});
    return pickSession(sessions, idOrPrefix);
  }

  async open(idOrPrefix: string, source?: string): Promise<{ info: SessionInfo; session: Session; driver: SessionDriver }> {
    const info = await this.resolve(idOrPrefix, source);
    const driver = this.driver(info.source);
    const session = await driver.getSession(info.id);
    if (!session) throw new NotFoundError(`${info.source} session`, info.id);
    return { info, session, driver };
  }

  async close(): Promise<void> {
    await Promise.all([...this.drivers.values()].map((d) => d.close?.()));
  }
}
