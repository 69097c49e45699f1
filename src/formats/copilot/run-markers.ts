/**
 * Whether bytes of an events.jsonl can hold a sub-agent run's events, found without parsing them: the
 * index's listing (driver.ts listUnits) reads a file whole to find its runs only when this says so, for
 * a new file over all of it, for one Copilot CLI appended to over what it appended.
 *
 * Every event that makes, grows or removes a run (events.ts parseEvents) has one of these as written
 * (Copilot CLI writes compact JSON): a run's events name its call (`parentToolCallId`) or carry its
 * top-level `agentId`; its start, end and configuration are `subagent.*` events; its prompt and model
 * change have `source: 'agent…'` (1.0.102 writes them with the agentId too); a rewind may abandon the
 * call that ran one.
 */
import { promises as fs } from 'node:fs';

const RUN_MARKERS = [
  '"parentToolCallId"',
  '"agentId"',
  '"subagent.',
  '"session.snapshot_rewind"',
  '"source":"agent',
  '"source": "agent',
].map((m) => Buffer.from(m));

const LONGEST = Math.max(...RUN_MARKERS.map((m) => m.length));
const CHUNK = 256 * 1024;

/**
 * Whether the bytes of `file` from `start` up to `end` hold any run marker; read in chunks (a marker
 * across two of them is found too), stopping at the first found.
 */
export async function hasRunMarkers(file: string, start: number, end: number): Promise<boolean> {
  if (end <= start) return false;
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(CHUNK, end - start) + LONGEST);
    // the tail of the chunk before, kept at the buffer's start so that a marker across the two is whole
    let kept = 0;
    for (let at = start; at < end; ) {
      const { bytesRead } = await handle.read(buf, kept, Math.min(CHUNK, end - at), at);
      if (bytesRead === 0) break;
      const filled = kept + bytesRead;
      const view = buf.subarray(0, filled);
      if (RUN_MARKERS.some((m) => view.includes(m))) return true;
      at += bytesRead;
      kept = Math.min(LONGEST - 1, filled);
      buf.copy(buf, 0, filled - kept, filled);
    }
    return false;
  } finally {
    await handle.close();
  }
}

/** How many of a file's bytes before an offset tell a file appended to from one rewritten (endBytes). */
const END_BYTES = 32;

/**
 * The last bytes of `file` before `offset` (base64): kept with what a listing saw, the same bytes there
 * later mean the file grew after them rather than was rewritten (threadbase rewrites a file it wrote, with
 * a sub-agent put inside: its bytes there shift).
 */
export async function endBytes(file: string, offset: number): Promise<string> {
  if (offset <= 0) return '';
  const handle = await fs.open(file, 'r');
  try {
    const from = Math.max(0, offset - END_BYTES);
    const buf = Buffer.alloc(offset - from);
    const { bytesRead } = await handle.read(buf, 0, buf.length, from);
    return buf.subarray(0, bytesRead).toString('base64');
  } finally {
    await handle.close();
  }
}

/** Whether bytes endBytes gave end a line (none: the file's start): what follows them is whole lines. */
export function endLine(end: string): boolean {
  return end === '' || Buffer.from(end, 'base64').at(-1) === 0x0a;
}
