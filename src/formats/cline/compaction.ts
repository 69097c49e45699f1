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

/**
 * The entries with Cline's compaction (its state file, if any) put in after the last message it
 * covers. `records` are the messages file's items, `entries` what was read of them (each message's
 * entry has its record as `raw`); `partsOf` gives a record's content as parts, as the messages are read.
 */
export async function withCompactionState(
  file: string,
  records: readonly unknown[],
  entries: Entry[],
  idPrefix: string,
  partsOf: (m: JsonObject) => Part[],
  warnings: ParseWarning[],
): Promise<Entry[]> {
  const state = await readState(file, warnings);
  if (!state) return entries;
  const ignored = (why: string) => {
    warnings.push({ file, message: `${why}; the compaction is not applied (as Cline does not)` });
    return entries;
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
  const compaction: CompactionEntry = {
    id: `${idPrefix}compaction`,
    parentId: after.id,
    timestamp: updated && updated > after.timestamp ? updated : after.timestamp,
    kind: 'compaction',
    summary,
    ...(firstKeptEntry ? { firstKeptEntryId: firstKeptEntry.id } : {}),
    ...(meta ? { tokensBefore: meta.tokensBefore as number } : {}),
    raw: state,
    rawSource: 'cline',
  };
  const next = entries[at + 1];
  return [
    ...entries.slice(0, at + 1),
    compaction,
    ...(next ? [{ ...next, parentId: compaction.id } as Entry, ...entries.slice(at + 2)] : []),
  ];
}
