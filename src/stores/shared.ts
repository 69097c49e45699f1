/** What every threadbase-owned store (memory, SQLite, PostgreSQL) shares: its source name, its capabilities, forking. */
import { randomUUID } from 'node:crypto';
import type { DriverCapabilities, ForkOptions } from '../model/driver.js';
import { pathToLeaf } from '../model/tree.js';
import type { Session } from '../model/types.js';

/** The `source` of a session written by threadbase itself rather than imported from an agent. */
export const THREADBASE_SOURCE = 'threadbase';

/** A threadbase store can do everything the driver interface offers. */
export const STORE_CAPABILITIES: DriverCapabilities = Object.freeze({
  read: true,
  write: true,
  append: true,
  fork: true,
  branch: true,
  delete: true,
  title: true,
  search: true,
});

/** The new session a fork of `source` at `opts.at` (default: its current leaf) becomes: the path to that entry, copied. */
export function forkedSession(source: Session, opts: ForkOptions = {}): Session {
  const path = pathToLeaf(source, opts.at);
  const at = path[path.length - 1];
  const now = new Date().toISOString();
  const fork: Session = {
    id: randomUUID(),
    source: THREADBASE_SOURCE,
    createdAt: now,
    updatedAt: now,
    messageCount: 0,
    parentId: source.id,
    entries: structuredClone(path),
    leafId: at?.id ?? null,
  };
  if (source.project !== undefined) fork.project = source.project;
  const title = opts.title ?? (source.title ? `${source.title} (fork)` : undefined);
  if (title !== undefined) fork.title = title;
  if (at) fork.parentEntryId = at.id;
  return fork;
}
