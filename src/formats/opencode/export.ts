/**
 * OpenCode's export JSON (`opencode export <id>` prints it, `opencode import <file>` reads it):
 * `{info: Session.Info, messages: [{info: MessageV2.Info, parts: MessageV2.Part[]}]}`.
 */
import { ParseError } from '../../model/errors.js';
import type { ParseWarning, Session } from '../../model/types.js';
import { type EncodeOptions, encodeSession } from './encode.js';
import { isOcEntryRaw, sessionFromOpencode } from './parse.js';
import { holdsOpenCodeRecords, isJson, type Json, newId, type OcMessage, type OcSessionData } from './records.js';

/** Export JSON (parsed) → session data, skipping malformed messages and parts with a warning. */
export function exportToData(value: unknown, file: string, warnings: ParseWarning[]): OcSessionData {
  if (!isJson(value) || !isJson(value.info) || !Array.isArray(value.messages)) {
    throw new ParseError('not an OpenCode export (expected {info, messages})', { file });
  }
  const messages: OcMessage[] = [];
  value.messages.forEach((m, i) => {
    if (!isJson(m) || !isJson(m.info)) {
      warnings.push({ file, line: undefined, message: `messages[${i}] is not {info, parts}; skipped` });
      return;
    }
    const parts = Array.isArray(m.parts) ? m.parts : [];
    const good: Json[] = [];
    parts.forEach((p, j) => {
      if (isJson(p)) good.push(p);
      else
        warnings.push({
          file,
          id: typeof m.info === 'object' ? String((m.info as Json).id) : undefined,
          message: `messages[${i}].parts[${j}] is not an object; skipped`,
        });
    });
    messages.push({ info: m.info, parts: good });
  });
  return { info: value.info, messages };
}

export function sessionFromExport(value: unknown, file: string): Session {
  const warnings: ParseWarning[] = [];
  return sessionFromOpencode(exportToData(value, file, warnings), { file, warnings });
}

/** Session data as export JSON (the project is not part of it). */
export function dataToExport(data: OcSessionData): { info: Json; messages: OcMessage[] } {
  return { info: data.info, messages: data.messages };
}

/** A session of any source as OpenCode export JSON, with fresh ids, ready for `opencode import`. */
export function sessionToExport(session: Session, opts: Partial<EncodeOptions> = {}): { info: Json; messages: OcMessage[] } {
  const directory = opts.directory ?? session.project ?? '/';
  const { data } = encodeSession(session, {
    sessionId: opts.sessionId ?? newId('ses'),
    projectID: opts.projectID ?? 'global',
    worktree: opts.worktree ?? '/',
    directory,
    ...(opts.title ? { title: opts.title } : {}),
    ...(opts.leafId ? { leafId: opts.leafId } : {}),
  });
  return dataToExport(data);
}

/**
 * A session as OpenCode export JSON: an OpenCode (or Kilo CLI) session as OpenCode itself exports it (its own
 * records and ids, from each entry's raw message), any other session encoded with fresh ids.
 */
export function sessionAsOpencodeExport(session: Session): { info: Json; messages: OcMessage[] } {
  const rawInfo = isJson(session.raw) && isJson(session.raw.info) ? session.raw.info : undefined;
  if (!holdsOpenCodeRecords(session.source) || !rawInfo)
    return sessionToExport(session, session.project ? { directory: session.project } : {});
  const messages: OcMessage[] = [];
  for (const e of session.entries) {
    if (!isOcEntryRaw(e.raw) || !e.raw.message) continue;
    messages.push(e.raw.message);
    if (e.raw.summaryMessage) messages.push(e.raw.summaryMessage);
  }
  return { info: rawInfo, messages };
}

export interface EncodedOpenCode {
  sessionId: string;
  /** The session row (`info`), its message rows (`messages[].info`) with their part rows (`messages[].parts`). */
  data: OcSessionData;
  /** The same as `opencode export` prints it, for `opencode import <file>`. */
  exportJson: { info: Record<string, unknown>; messages: OcMessage[] };
  warnings: string[];
}

/**
 * OpenCode's rows for the session's current path (OpenCode sessions are linear), without touching
 * any store: for an agent framework that writes them itself (the driver's writeSession does the same).
 */
export function encodeOpenCodeSession(session: Session, opts: Partial<EncodeOptions> = {}): EncodedOpenCode {
  const sessionId = opts.sessionId ?? newId('ses');
  const directory = opts.directory ?? session.project ?? '/';
  const { data, warnings } = encodeSession(session, {
    ...opts,
    sessionId,
    projectID: opts.projectID ?? 'global',
    worktree: opts.worktree ?? '/',
    directory,
  });
  return { sessionId, data, exportJson: dataToExport(data), warnings };
}
