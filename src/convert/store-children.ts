/**
 * Sub-agent sessions in threadbase's own stores (a SQLite file, PostgreSQL, a team server, the memory
 * store, the local `threadbase` source): read one parent at a time (childSessionsInStore), and written
 * as sessions of their own naming their parent and the call that ran it (writeChildInStore), the link
 * a store keeps for a child (parentId, parentToolCallId) and lists it by (listSessions with parentId).
 */
import { WRITTEN_BY } from '../formats/shared/written-by.js';
import type { SessionDriver } from '../model/driver.js';
import type { Session, SessionInfo } from '../model/types.js';
import { THREADBASE_SOURCE } from '../stores/shared.js';
import type { ChildSessions } from './session.js';

/**
 * The sub-agent sessions of a session in a store, asked of the store one parent at a time, where
 * childSessionsFrom lists an agent's every session once: a store may hold many, a team server pages them.
 */
export function childSessionsInStore(store: SessionDriver): ChildSessions {
  return async (sessionId) => {
    const out: Session[] = [];
    for (const info of await store.listSessions({ parentId: sessionId })) {
      // a fork names no call: it is no sub-agent
      if (info.id === sessionId || info.parentId !== sessionId) continue;
      const child = await store.getSession(info.id);
      if (child?.parentToolCallId !== undefined) out.push(child);
    }
    return out;
  };
}

/**
 * How `target` writes a sub-agent session under `parent` (a session it wrote): the driver's own
 * writeChildSession (an agent's form), else, for a threadbase store (it wrote the parent as
 * threadbase's own), a new session naming the written parent and the call that ran it, which the
 * store keeps as it is (its calls keep their ids there). Undefined: the target keeps no sub-agents.
 * Each child goes to its written parent's project: a sub-agent runs where its parent does, and a
 * session converted with `--project <dir>` takes its sub-agents (and theirs) to `<dir>` with it.
 */
export function childWriter(target: SessionDriver, parent: SessionInfo): ((child: Session) => Promise<SessionInfo>) | undefined {
  const inParentProject = (child: Session): Session =>
    parent.project === undefined || child.project === parent.project ? child : { ...child, project: parent.project };
  if (target.writeChildSession) {
    const write = target.writeChildSession.bind(target);
    return (child) => write(parent, inParentProject(child));
  }
  if (parent.source !== THREADBASE_SOURCE || !target.writeSession) return undefined;
  const write = target.writeSession.bind(target);
  return (child) => write({ ...inParentProject(child), parentId: parent.id, writtenBy: WRITTEN_BY });
}
