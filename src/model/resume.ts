/**
 * How each agent rebuilds a session's context when it resumes it (what it leaves out, adds and how
 * it words summaries), by source. An agent's format registers its own; every driver answers
 * `getContext` with the one of the session's source, so a store holding an agent's sessions (the
 * local index, a team server) gives the context that agent would send, as the agent's files do.
 */
import type { Context, ContextOptions } from './tree.js';
import type { Entry, Session } from './types.js';

export type ResumeContext = (session: Session, opts?: ContextOptions) => Context;

/**
 * The agent's own records a ResumeContext reads (its base instructions in the session record, the
 * history a compaction recorded): a store that leaves records out (the local index) keeps these.
 */
export interface RawRead {
  session?: boolean;
  entryKinds?: readonly Entry['kind'][];
}

const bySource = new Map<string, ResumeContext>();
const rawReadBySource = new Map<string, RawRead>();

export function registerResumeContext(source: string, build: ResumeContext, reads: RawRead = {}): void {
  bySource.set(source, build);
  rawReadBySource.set(source, reads);
}

/** Which of a session's agent records its ResumeContext reads; none for a source without one. */
export function rawReadBy(source: string): RawRead {
  return rawReadBySource.get(source) ?? {};
}

/** The agent's own context builder for sessions of this source, if its format registered one. */
export function resumeContextOf(source: string): ResumeContext | undefined {
  return bySource.get(source);
}
