/**
 * The context Kilo CLI sends when it resumes a session: OpenCode's (src/formats/opencode/context.ts),
 * each user message followed by the environment details Kilo adds when sending and never stores
 * (test/fixtures/kilo/real-7.7.7/resume-requests.json): the message's time to the second, the
 * session's directory and its project's worktree. The compaction request gets its own, at the time
 * of the compaction.
 */

import { type Context, type ContextOptions, pathToLeaf } from '../../model/tree.js';
import type { Entry, Message, Session } from '../../model/types.js';
import { opencodeContext } from '../opencode/context.js';

/** Kilo's `<environment_details>` text for a user message sent at `iso`. */
export function environmentDetails(iso: string, directory: string, worktree: string): string {
  const time = iso.replace(/\.\d+Z$/, 'Z');
  return `\n\n<environment_details>\nMessage time: ${time}\nWorking directory: ${directory}\nWorkspace root folder: ${worktree}\n</environment_details>`;
}

export function kiloContext(session: Session, opts: ContextOptions = {}): Context {
  const directory = session.project ?? '';
  const worktree = typeof session.meta?.worktree === 'string' ? session.meta.worktree : '/';
  const details = (iso: string) => ({ type: 'text' as const, text: environmentDetails(iso, directory, worktree) });
  const withDetails = (e: Entry): Entry =>
    e.kind === 'message' && e.message.role === 'user' && e.message.parts.length > 0
      ? { ...e, message: { ...e.message, parts: [...e.message.parts, details(e.timestamp)] } }
      : e;
  const context = opencodeContext({ ...session, entries: session.entries.map(withDetails) }, opts);
  const compaction = pathToLeaf(session, opts.leafId)
    .filter((e) => e.kind === 'compaction')
    .at(-1);
  if (!compaction) return context;
  const messages = context.messages.map(
    (m): Message => (m.meta?.compactionRequest === true ? { ...m, parts: [...m.parts, details(compaction.timestamp)] } : m),
  );
  return { ...context, messages };
}
