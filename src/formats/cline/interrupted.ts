/**
 * A call whose run ended before its result: Cline killed while a tool ran (real cline 3.0.65, SIGKILL mid
 * `run_commands`) leaves the call without a result and the manifest `status: "running"`, as a live run has
 * it. Cline tells the two apart by the manifest's process (@cline/core's reconcileDeadRunningSession: a
 * run `idle`, `running` or `pending` whose `pid` is gone is `failed`, `terminal_marker:
 * "failed_external_process_exit"`, which it records when it next lists or resumes), and on resume answers
 * such a call with its interrupted error result (addMissingToolResults). Read here the same: once the run
 * has ended, by its status or its process, the call reads with that result, marked cancelled; a live
 * run's open call stays open.
 */
import { readFileSync } from 'node:fs';
import { markDeclined } from '../../convert/declined.js';
import type { Entry, ToolCallPart, ToolResultPart } from '../../model/types.js';
import { parseJson } from '../shared/jsonl.js';
import { clineMissingResultBlock } from './denials.js';
import { isObject, type JsonObject } from './salvage.js';

/** The statuses Cline counts as a run still going (@cline/core's live statuses). */
const LIVE_STATUSES = ['idle', 'running', 'pending'];

/** A result's meta flag: the result is Cline's answer on resume to a call its ended run left open. */
export const INTERRUPTED = 'clineInterrupted';

/** Whether process `pid` is alive on this machine, as Cline's isPidAlive answers it (EPERM: someone else's, alive). */
function pidAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isFinite(pid) || pid <= 0) return false;
  try {
    process.kill(Math.floor(pid), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a manifest's run has ended: a status Cline counts as over, or a live one whose process is gone. */
export function clineRunEnded(manifest: JsonObject | undefined): boolean {
  if (!manifest) return false;
  const status = manifest.status;
  if (typeof status !== 'string' || !LIVE_STATUSES.includes(status)) return true;
  return !pidAlive(manifest.pid);
}

/** The same of a manifest file (undefined when unreadable), for a unit's version: a run's end re-reads it. */
export function clineRunEndedOf(file: string): boolean | undefined {
  try {
    const v = parseJson(readFileSync(file, 'utf8'));
    return isObject(v) ? clineRunEnded(v) : undefined;
  } catch {
    return undefined;
  }
}

/** Cline's result for a call left without one (its blocks: the provider layer sends them as their JSON text). */
export const clineInterruptedResult = (call: ToolCallPart): ToolResultPart =>
  markDeclined(
    {
      type: 'tool_result',
      callId: call.id,
      name: call.name,
      content: [clineMissingResultBlock(call.name)],
      meta: { [INTERRUPTED]: true },
    },
    'cancelled',
  );

/**
 * The entries of an ended run with Cline's result for each call no message answers, where Cline puts it:
 * after the results that follow its turn, else in a message of its own before the next turn.
 * `leftOpen`: calls answered only by threadbase's own stand-in results (a copy of a source that left
 * them open), which stay open as the source has them.
 */
export function withInterruptedResults(entries: Entry[], leftOpen: ReadonlySet<string>): Entry[] {
  const answered = new Set(leftOpen);
  for (const e of entries)
    if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_result') answered.add(p.callId);
  const out = [...entries];
  for (let i = 0; i < out.length; i++) {
    const e = out[i];
    if (e?.kind !== 'message' || e.message.role !== 'assistant') continue;
    const open = e.message.parts.flatMap((p) =>
      p.type === 'tool_call' && !answered.has(p.id) ? [clineInterruptedResult(p)] : [],
    );
    if (open.length === 0) continue;
    for (const r of open) answered.add(r.callId);
    const at = out.findIndex((c) => c.parentId === e.id);
    const next = out[at];
    if (next?.kind === 'message' && next.message.parts.some((p) => p.type === 'tool_result')) {
      const parts = next.message.parts;
      const last = parts.findLastIndex((p) => p.type === 'tool_result');
      out[at] = {
        ...next,
        message: { ...next.message, parts: [...parts.slice(0, last + 1), ...open, ...parts.slice(last + 1)] },
      };
      continue;
    }
    const id = `${e.id}:interrupted`;
    for (const [j, c] of out.entries()) if (c.parentId === e.id) out[j] = { ...c, parentId: id };
    out.splice(i + 1, 0, { id, parentId: e.id, timestamp: e.timestamp, kind: 'message', message: { role: 'tool', parts: open } });
  }
  return out;
}
