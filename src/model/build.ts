/**
 * Building a session by hand, as an agent framework does turn by turn: `createSession` settles the
 * fields a store needs (id, source, times, counts), `appendMessage`/`appendEntry` give each entry an id
 * and a timestamp and link it under the current leaf (or a parent you name, for a branch), and move the
 * leaf to it. The session is an ordinary `Session`: write it with `store.writeSession(s, { keepId: true })`,
 * then hand each later entry the append returns to `store.appendEntries(s.id, [entry])`.
 */
import { randomUUID } from 'node:crypto';
import { ThreadbaseError } from './errors.js';
import { currentLeaf } from './tree.js';
import {
  type Entry,
  emptyUsage,
  type Message,
  type MessageEntry,
  type Part,
  type Session,
  type SourceName,
  type Usage,
} from './types.js';

/** What `createSession` takes; everything is optional. */
export interface NewSession {
  /** Default: a random UUID. */
  id?: string;
  /** Default: `threadbase`. */
  source?: SourceName;
  /** The working directory the session runs in. */
  project?: string;
  title?: string;
  /** ISO 8601; default: now. */
  createdAt?: string;
  /** The session this one was forked from or spawned by. */
  parentId?: string;
  parentEntryId?: string;
  parentToolCallId?: string;
  directories?: string[];
  meta?: Session['meta'];
}

/** A message to append: `content` is a string (one text part) or the parts; usage counts left out are 0. */
export interface NewMessage extends Omit<Message, 'parts' | 'usage'> {
  content: string | Part[];
  usage?: Partial<Usage>;
}

/** Where an appended entry goes; all optional. */
export interface AppendOptions {
  /** Its parent: default the session's current leaf; null makes a new root; an earlier entry's id branches there. */
  parentId?: string | null;
  /** Default: a random UUID. */
  id?: string;
  /** ISO 8601; default: now. */
  timestamp?: string;
}

/** Any entry, without the fields an append fills in. */
export type NewEntry = Entry extends infer E
  ? E extends Entry
    ? Omit<E, 'id' | 'parentId' | 'timestamp'> & Partial<Pick<E, 'id' | 'parentId' | 'timestamp'>>
    : never
  : never;

/** A new, empty session with its id, source and times set. */
export function createSession(init: NewSession = {}): Session {
  const createdAt = init.createdAt ?? new Date().toISOString();
  const session: Session = {
    id: init.id ?? randomUUID(),
    source: init.source ?? 'threadbase',
    createdAt,
    updatedAt: createdAt,
    messageCount: 0,
    entries: [],
    leafId: null,
  };
  for (const key of ['project', 'title', 'parentId', 'parentEntryId', 'parentToolCallId', 'directories', 'meta'] as const) {
    if (init[key] !== undefined) Object.assign(session, { [key]: init[key] });
  }
  return session;
}

/**
 * Appends any entry (a compaction, a label, metadata, …) under the leaf or `entry.parentId`, filling its
 * id and timestamp when absent, and makes it the leaf unless it is a `sidechain`; returns it as stored.
 */
export function appendEntry<E extends NewEntry>(session: Session, entry: E, opts: AppendOptions = {}): Entry {
  const id = opts.id ?? entry.id ?? randomUUID();
  if (session.entries.some((e) => e.id === id))
    throw new ThreadbaseError('duplicate_entry', `entry id ${id} is already in session ${session.id}`, { id });
  const parentId = opts.parentId !== undefined ? opts.parentId : entry.parentId !== undefined ? entry.parentId : leafOf(session);
  if (parentId !== null && !session.entries.some((e) => e.id === parentId))
    throw new ThreadbaseError('orphan_entry', `entry ${id} names parent ${parentId}, which is not in session ${session.id}`, {
      id,
    });
  const timestamp = opts.timestamp ?? entry.timestamp ?? new Date().toISOString();
  const added = { ...entry, id, parentId, timestamp } as Entry;
  session.entries.push(added);
  // a side chain (a sub-agent's transcript kept in the session) is off the main path: the leaf stays
  if (!added.sidechain) session.leafId = id;
  if (added.kind === 'message') session.messageCount += 1;
  if (timestamp > session.updatedAt) session.updatedAt = timestamp;
  return added;
}

/** Appends a message under the leaf (or `opts.parentId`) and makes it the leaf; returns its entry. */
export function appendMessage(session: Session, message: NewMessage, opts: AppendOptions = {}): MessageEntry {
  const { content, usage, ...rest } = message;
  const built: Message = { ...rest, parts: typeof content === 'string' ? [{ type: 'text', text: content }] : content };
  if (usage) built.usage = { ...emptyUsage(), ...usage };
  return appendEntry(session, { kind: 'message', message: built }, opts) as MessageEntry;
}

function leafOf(session: Session): string | null {
  return currentLeaf(session)?.id ?? null;
}
