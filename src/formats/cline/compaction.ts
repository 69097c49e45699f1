import { createHash } from 'node:crypto';
import type { CompactionEntry, Entry, ParseWarning, Part } from '../../model/types.js';
import { isObject, type JsonObject, readJsonObject } from './salvage.js';

/** The compaction state's file of a session's messages file. */
export function compactionFileOf(messagesFile: string): string {
  return messagesFile.replace(/\.messages\.json$/, '.compaction.json');
}

/** Cline's key of a message (compaction boundary key): its id, else its role and time, else its content. */
function messageKey(m: JsonObject): string {
  if (typeof m.id === 'string' && m.id.trim()) return `id:${m.id.trim()}`;
  if (typeof m.ts === 'number' && Number.isFinite(m.ts)) return `ts:${String(m.role)}:${m.ts}`;
  return `content:${String(m.role)}:${JSON.stringify(m.content)}`;
}

/** `<tag …>x</tag>` → x throughout (@cline/shared's unwrap of a user input tag). */
function unwrapTag(text: string, tag: string): string {
  if (!text.trim()) return '';
  return text.replace(new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'g'), '$1');
}

/** Text without its `<tag>…</tag>` blocks. */
function dropBlocks(text: string, tag: string): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  let out = text;
  let at = out.indexOf(open);
  while (at !== -1) {
    const end = out.indexOf(close, at + open.length);
    if (end === -1) break;
    out = out.slice(0, at) + out.slice(end + close.length);
    at = out.indexOf(open, at);
  }
  return out;
}

/** What the user typed as Cline shows it (@cline/shared formatDisplayUserInput, 3.0.65): the hash of a compaction's source is over it. */
export function clineDisplayUserInput(text: string): string {
  let shown = '';
  if (text.trim()) {
    shown = text.trim();
    for (const tag of ['user_input', 'user_command']) {
      const unwrapped = unwrapTag(shown, tag);
      shown = (unwrapped !== shown ? unwrapped : shown.replace(new RegExp(`<${tag}[^>]*>`, 'g'), '')).trim();
    }
  }
  shown = shown.trim() ? dropBlocks(shown, 'mode_notice').trim() : '';
  const command = text.trim() ? /^<user_command\b([^>]*)>([\s\S]*?)<\/user_command>$/i.exec(text.trim()) : null;
  const slash = command ? /slash="([^"]+)"/i.exec(command[1] ?? '')?.[1]?.trim() : undefined;
  if (!slash) return shown;
  if (slash.toLowerCase() === 'team') {
    const task = shown.toLowerCase().startsWith('spawn a team of agents for the following task:')
      ? shown.slice(46).trim()
      : shown;
    return task ? `/team ${task}` : '/team';
  }
  return shown ? `/${slash} ${shown}` : `/${slash}`;
}

/**
 * Cline's hash of the first `count` messages it sends (a compaction state's `source_prefix_hash`):
 * each message's role, content (a user's text as displayed), agent, sessionId, metadata, modelInfo
 * and metrics. Resuming, Cline applies a state only when it equals the hash of the messages it loaded.
 */
export function clineSourcePrefixHash(messages: readonly JsonObject[], count: number): string {
  const hash = createHash('sha256');
  hash.update('cline-session-compaction-source-v2\n');
  hash.update(`${count}\n`);
  for (const m of messages.slice(0, count)) {
    const content =
      m.role !== 'user'
        ? m.content
        : typeof m.content === 'string'
          ? clineDisplayUserInput(m.content)
          : Array.isArray(m.content)
            ? m.content.map((b) =>
                isObject(b) && b.type === 'text' && typeof b.text === 'string'
                  ? { ...b, text: clineDisplayUserInput(b.text) }
                  : b,
              )
            : m.content;
    const fields = [
      ['role', m.role],
      ['content', content],
      ['agent', m.agent ?? null],
      ['sessionId', m.sessionId ?? null],
      ['metadata', m.metadata ?? null],
      ['modelInfo', m.modelInfo ?? null],
      ['metrics', m.metrics ?? null],
    ];
    hash.update(JSON.stringify(fields));
    hash.update('\n');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** A summary turn of Cline's compaction (what it sends in place of the turns it left out). */
const isSummaryTurn = (m: JsonObject): boolean =>
  isObject(m.metadata) && (m.metadata.kind === 'compaction' || m.metadata.kind === 'compaction_summary');

async function readState(file: string, warnings: ParseWarning[]): Promise<JsonObject | undefined> {
  const v = await readJsonObject(file, warnings);
  if (!v) return undefined;
  const count = v.source_message_count;
  if (v.version === 1 && Number.isInteger(count) && (count as number) >= 0 && Array.isArray(v.messages)) return v;
  warnings.push({
    file,
    line: 1,
    message: 'not a Cline compaction state (version 1, source_message_count, messages); ignored',
  });
  return undefined;
}

export interface WithCompaction {
  entries: Entry[];
}

/**
 * The entries with Cline's compaction (its state file, if any) put in after the last message it
 * covers, in the chain as other agents' compactions are (pi's compaction entry, Claude Code's
 * compact_boundary): the messages before it are those it summarised or kept (firstKeptEntryId), the
 * messages after it follow it. `records` are the messages file's items, `entries` what was read of
 * them (each message's entry has its record as `raw`); `partsOf` gives a record's content as parts, as
 * the messages are read.
 *
 * Whether Cline applies the state when it resumes the session (its source_prefix_hash is that of the
 * messages it loads) goes into the entry (`appliedOnResume: false` where it does not): there, Cline's
 * context (context.ts) at the session's leaf is every message, as Cline sends them on resume, and at
 * the compaction itself what Cline sent after compacting. Cline 3.0.65 hashes its messages in memory,
 * where an assistant message's modelInfo has no `family` yet, and the file's have it: a state
 * covering a message of the run that compacted is not applied on resume (real cline, agents test).
 */
export async function withCompactionState(
  file: string,
  records: readonly unknown[],
  entries: Entry[],
  idPrefix: string,
  partsOf: (m: JsonObject) => Part[],
  warnings: ParseWarning[],
): Promise<WithCompaction> {
  const state = await readState(file, warnings);
  if (!state) return { entries };
  const ignored = (why: string): WithCompaction => {
    warnings.push({ file, message: `${why}; the compaction is not applied (as Cline does not)` });
    return { entries };
  };
  // Cline counts the messages it sends: displayOnly ones are not
  const source = records.filter(
    (r): r is JsonObject => isObject(r) && !(isObject(r.metadata) && r.metadata.displayOnly === true),
  );
  const count = state.source_message_count as number;
  if (count === 0 || count > source.length) return ignored(`it covers ${count} messages, the session has ${source.length}`);
  const last = source[count - 1] as JsonObject;
  if (typeof state.source_last_message_key === 'string' && state.source_last_message_key !== messageKey(last))
    return ignored('its last message is not the session’s');
  const at = entries.findIndex((e) => e.raw === last);
  if (at < 0) return ignored('the last message it covers was not read');

  const compacted = (state.messages as unknown[]).filter(isObject);
  const summaries = compacted.filter(isSummaryTurn);
  if (summaries.length === 0) return ignored('it has no summary turn');
  const summary = summaries.flatMap((m) => partsOf(m).flatMap((p) => (p.type === 'text' ? [p.text] : []))).join('\n');
  // the first turn it kept, as read from the messages file
  const keptIds = new Set(compacted.filter((m) => !isSummaryTurn(m) && typeof m.id === 'string').map((m) => m.id));
  const firstKept = source.slice(0, count).find((r) => keptIds.has(r.id));
  const firstKeptEntry = firstKept ? entries.find((e) => e.raw === firstKept) : undefined;
  const meta = summaries.map((m) => m.metadata as JsonObject).find((m) => typeof m.tokensBefore === 'number');
  const updated =
    typeof state.updated_at === 'string' && !Number.isNaN(Date.parse(state.updated_at)) ? state.updated_at : undefined;
  const after = entries[at] as Entry;
  const hash = typeof state.source_prefix_hash === 'string' && state.source_prefix_hash ? state.source_prefix_hash : undefined;
  const appliedOnResume = hash
    ? clineSourcePrefixHash(source, count) === hash
    : typeof state.source_last_message_key === 'string';
  const compaction: CompactionEntry = {
    id: `${idPrefix}compaction`,
    parentId: after.id,
    timestamp: updated && updated > after.timestamp ? updated : after.timestamp,
    kind: 'compaction',
    summary,
    ...(firstKeptEntry ? { firstKeptEntryId: firstKeptEntry.id } : {}),
    ...(meta ? { tokensBefore: meta.tokensBefore as number } : {}),
    ...(appliedOnResume ? {} : { appliedOnResume: false as const }),
    raw: state,
    rawSource: 'cline',
  };
  const next = entries[at + 1];
  return {
    entries: [
      ...entries.slice(0, at + 1),
      compaction,
      ...(next ? [{ ...next, parentId: compaction.id } as Entry, ...entries.slice(at + 2)] : []),
    ],
  };
}
