/** Typed errors that name the file, line and id that caused them. */

export interface ErrorPlace {
  file?: string;
  line?: number;
  id?: string;
}

export class ThreadbaseError extends Error {
  readonly code: string;
  readonly file?: string;
  readonly line?: number;
  readonly id?: string;

  constructor(code: string, message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super(formatPlace(place, message) + message, options);
    this.name = 'ThreadbaseError';
    this.code = code;
    this.file = place.file;
    this.line = place.line;
    this.id = place.id;
  }
}

export class NotFoundError extends ThreadbaseError {
  /** `searched`: where it was looked for, when that helps ('claude, codex, pi'; 'the index') */
  constructor(what: string, id: string, place: ErrorPlace = {}, searched?: string) {
    super('not_found', `${what} not found: ${id}${searched ? ` (searched ${searched})` : ''}`, { ...place, id });
    this.name = 'NotFoundError';
  }
}

/**
 * A store's refusal of entries for a session (duplicate_entry, orphan_entry), with the session's id as
 * a field and its message made from it: a view that keeps the session under another id than its
 * caller asked for (the server's per-project alias) names it as asked with `forSession`.
 */
export class SessionEntryError extends ThreadbaseError {
  constructor(
    code: 'duplicate_entry' | 'orphan_entry',
    readonly sessionId: string,
    readonly entryId: string,
    private readonly say: (sessionId: string) => string,
  ) {
    super(code, say(sessionId), { id: entryId });
    this.name = 'SessionEntryError';
  }

  /** The same refusal naming the session `sessionId` (this one its cause). */
  forSession(sessionId: string): SessionEntryError {
    const again = new SessionEntryError(this.code as 'duplicate_entry' | 'orphan_entry', sessionId, this.entryId, this.say);
    again.cause = this;
    return again;
  }
}

export class AmbiguousIdError extends ThreadbaseError {
  readonly candidates: string[];
  constructor(prefix: string, candidates: string[], what = 'sessions') {
    // the first five named, the rest said to be there: 'matches 13 sessions: a, b, c, d, e' read as the list
    const named = `${candidates.slice(0, 5).join(', ')}${candidates.length > 5 ? `, … (${candidates.length - 5} more)` : ''}`;
    super('ambiguous_id', `id prefix "${prefix}" matches ${candidates.length} ${what}: ${named}`, { id: prefix });
    this.name = 'AmbiguousIdError';
    this.candidates = candidates;
  }
}

/** An operation the driver does not offer (see its capability flags). */
export class UnsupportedError extends ThreadbaseError {
  constructor(driver: string, operation: string) {
    super('unsupported', `${driver} cannot ${operation}`);
    this.name = 'UnsupportedError';
  }
}

export class ParseError extends ThreadbaseError {
  constructor(message: string, place: ErrorPlace, options?: { cause?: unknown }) {
    super('parse', message, place, options);
    this.name = 'ParseError';
  }
}

/** `file:line: ` or `[id] ` before a message; no `[id]` when the message names the id already. */
export function formatPlace(place: ErrorPlace, message = ''): string {
  const where = place.file ? `${place.file}${place.line !== undefined ? `:${place.line}` : ''}` : '';
  const id = place.id && !where && !message.includes(place.id) ? `[${place.id}] ` : '';
  return where ? `${where}: ${id}` : id;
}
