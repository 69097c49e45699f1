/**
 * How each agent rebuilds a session's context when it resumes it (what it leaves out, adds and how
 * it words summaries), by source. An agent's format registers its own; every driver answers
 * `getContext` with the one of the session's source, so a store holding an agent's sessions (the
 * local index, a team server) gives the context that agent would send, as the agent's files do.
 */
import type { Context, ContextOptions } from './tree.js';
import type { Session } from './types.js';

export type ResumeContext = (session: Session, opts?: ContextOptions) => Context;

const bySource = new Map<string, ResumeContext>();

export function registerResumeContext(source: string, build: ResumeContext): void {
  bySource.set(source, build);
}

/** The agent's own context builder for sessions of this source, if its format registered one. */
export function resumeContextOf(source: string): ResumeContext | undefined {
  return bySource.get(source);
}
