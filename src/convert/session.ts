/** Session → session across agents: the current branch (or the path to `at`) written by the target's driver. */
import type { SessionDriver } from '../model/driver.js';
import { UnsupportedError } from '../model/errors.js';
import { branches, pathToLeaf } from '../model/tree.js';
import type { Session, SessionInfo } from '../model/types.js';

export interface ConvertOptions {
  /** Convert the path to this entry instead of the current leaf. */
  at?: string;
  /**
   * Keep every branch: the whole tree where the target keeps trees (branch capability), else one
   * session per branch.
   */
  allBranches?: boolean;
}

/** The linear session along one path: what a target without trees can hold. */
export function sessionAlongPath(session: Session, at?: string): Session {
  const path = pathToLeaf(session, at);
  const entries = path.map((e, i) => ({ ...e, parentId: i === 0 ? null : (path[i - 1]?.id ?? null) }));
  return { ...session, entries, leafId: entries[entries.length - 1]?.id ?? null };
}

/** Writes the session into the target; returns every session written (more than one only for --all-branches into a linear target). */
export async function convertSessionAll(session: Session, target: SessionDriver, opts: ConvertOptions = {}): Promise<SessionInfo[]> {
  if (!target.writeSession) throw new UnsupportedError(target.name, 'write sessions');
  if (!opts.allBranches) return [await target.writeSession(sessionAlongPath(session, opts.at))];
  if (target.capabilities.branch) return [await target.writeSession(session)];
  const out: SessionInfo[] = [];
  // Current branch first, so the first written session is the one the user was working on.
  const bs = branches(session).sort((a, b) => Number(b.current) - Number(a.current));
  for (const b of bs) out.push(await target.writeSession(sessionAlongPath(session, b.leaf.id)));
  return out;
}

export async function convertSession(session: Session, target: SessionDriver, opts: ConvertOptions = {}): Promise<SessionInfo> {
  const [first] = await convertSessionAll(session, target, opts);
  return first as SessionInfo;
}
