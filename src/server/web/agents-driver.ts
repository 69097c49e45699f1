/**
 * Every local agent's own store seen as one read-only SessionDriver, so the viewer can browse
 * sessions straight from the agents' files when there is no index yet (`threadbase ui --store agents`).
 */
import type { Sources } from '../../formats/registry.js';
import { DriverBase, READ_ONLY_CAPABILITIES } from '../../formats/shared/base.js';
import type { DriverCapabilities, SessionFilter } from '../../model/driver.js';
import type { Session, SessionInfo } from '../../model/types.js';

export class AgentFilesDriver extends DriverBase {
  readonly name = 'agents';
  readonly capabilities: DriverCapabilities = READ_ONLY_CAPABILITIES;
  /** session id → the agent it was listed under, so opening one asks only that agent */
  private sourceOf = new Map<string, string>();

  constructor(
    private readonly sources: Sources,
    private readonly onError: (source: string, error: Error) => void = () => {},
  ) {
    super();
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    // listed whole: a copy dropped from a page of `limit` would leave it short
    const { limit, ...whole } = filter;
    const { sessions: listed, errors } = await this.sources.list(whole);
    for (const e of errors) this.onError(e.source, e.error);
    // a session file copied into another project's folder: one row, the file getSession reads (two
    // rows of one id both opened that one)
    const { sessions } = await this.sources.oneOfEachCopy(listed);
    for (const s of sessions) this.sourceOf.set(s.id, s.source);
    return limit ? sessions.slice(0, limit) : sessions;
  }

  async getSession(id: string): Promise<Session | undefined> {
    let source = this.sourceOf.get(id);
    if (!source) {
      await this.listSessions();
      source = this.sourceOf.get(id);
    }
    if (!source) return undefined;
    return this.sources.driver(source).getSession(id);
  }
}
