/**
 * The sub-agent sessions of a session in a store (a team server, PostgreSQL, an index file, the
 * viewer's store): asked of the store one parent at a time (listSessions with parentId), where
 * childSessionsFrom lists an agent's every session once; a store may hold many, a team server pages them.
 */
import type { SessionDriver } from '../model/driver.js';
import type { Session } from '../model/types.js';
import type { ChildSessions } from './session.js';

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
