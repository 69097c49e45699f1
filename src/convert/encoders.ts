/**
 * The format encoders on their own: a session in memory → an agent's own records (JSONL lines of
 * a Claude Code transcript or a pi session file; OpenCode's session, message and part rows),
 * without touching any store. An agent framework can persist in any agent's format with these
 * and write the bytes where it likes; the drivers' writeSession does the same and writes them
 * atomically into the agent's store.
 */
import { randomUUID } from 'node:crypto';
import { encodeSession as encodeClaudeRecords } from '../formats/claude/encode.js';
import { encodeProjectPath } from '../formats/claude/paths.js';
import { encodeSession as encodeOpenCodeData, type EncodeOptions as OpenCodeEncodeOptions } from '../formats/opencode/encode.js';
import { dataToExport } from '../formats/opencode/export.js';
import { newId, type OcMessage, type OcSessionData } from '../formats/opencode/records.js';
import { sessionDirName } from '../formats/pi/driver.js';
import { encodeEntries as encodePiEntries } from '../formats/pi/encode.js';
import { newSessionId as newPiSessionId, PI_SESSION_VERSION, type PiRecord } from '../formats/pi/records.js';
import { currentLeaf, indexEntries } from '../model/tree.js';
import type { Session } from '../model/types.js';

export interface EncodedJsonl {
  sessionId: string;
  /** Where the agent looks for it, relative to its home (`~/.claude`, `~/.pi/agent`). */
  relativePath: string;
  /** One JSON record a line, in order. */
  records: Record<string, unknown>[];
  /** The file's bytes: the records as JSONL. */
  jsonl: string;
  /** What could not be carried over, each naming the entry. */
  warnings: string[];
}

export interface JsonlEncodeOptions {
  /** The new session's id (default: a fresh one in the agent's scheme). */
  sessionId?: string;
  /** The working directory (default: the session's project). */
  cwd?: string;
}

const toJsonl = (records: readonly unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** A Claude Code transcript (`~/.claude/projects/<cwd>/<id>.jsonl`): the session's records, entry by entry. */
export function encodeClaudeTranscript(session: Session, opts: JsonlEncodeOptions = {}): EncodedJsonl {
  const sessionId = opts.sessionId ?? randomUUID();
  const cwd = opts.cwd ?? session.project ?? '/';
  const { records, warnings } = encodeClaudeRecords(session, { sessionId, cwd });
  return {
    sessionId,
    relativePath: `projects/${encodeProjectPath(cwd)}/${sessionId}.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings,
  };
}

/** A pi session file (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`): header, then the whole tree, current leaf last. */
export function encodePiSessionFile(session: Session, opts: JsonlEncodeOptions & { now?: Date } = {}): EncodedJsonl {
  const sessionId = opts.sessionId ?? newPiSessionId();
  const cwd = opts.cwd ?? session.project ?? '/';
  const timestamp = (opts.now ?? new Date()).toISOString();
  // pi resumes at the last entry of a file: a leaf with no children goes last.
  const ordered = [...session.entries];
  const leaf = currentLeaf(session);
  const warnings: string[] = [];
  if (leaf && ordered.at(-1)?.id !== leaf.id) {
    if (indexEntries(session.entries).children.get(leaf.id)?.length)
      warnings.push(`the current leaf ${leaf.id} has children; pi will resume at the last entry written`);
    else ordered.push(...ordered.splice(ordered.indexOf(leaf), 1));
  }
  const enc = encodePiEntries(ordered);
  const header: PiRecord = { type: 'session', version: PI_SESSION_VERSION, id: sessionId, timestamp, cwd };
  const records = [header, ...enc.records];
  return {
    sessionId,
    relativePath: `sessions/${sessionDirName(cwd)}/${timestamp.replace(/[:.]/g, '-')}_${sessionId}.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings: [...warnings, ...enc.warnings],
  };
}

export interface EncodedOpenCode {
  sessionId: string;
  /** The session row (`info`), its message rows (`messages[].info`) with their part rows (`messages[].parts`). */
  data: OcSessionData;
  /** The same as `opencode export` prints it, for `opencode import <file>`. */
  exportJson: { info: Record<string, unknown>; messages: OcMessage[] };
  warnings: string[];
}

/** OpenCode's rows for the session's current path (OpenCode sessions are linear). */
export function encodeOpenCodeSession(session: Session, opts: Partial<OpenCodeEncodeOptions> = {}): EncodedOpenCode {
  const sessionId = opts.sessionId ?? newId('ses');
  const directory = opts.directory ?? session.project ?? '/';
  const { data, warnings } = encodeOpenCodeData(session, {
    ...opts,
    sessionId,
    projectID: opts.projectID ?? 'global',
    worktree: opts.worktree ?? '/',
    directory,
  });
  return { sessionId, data, exportJson: dataToExport(data), warnings };
}
