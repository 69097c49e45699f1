/**
 * Reading one unit whole and turning it into the rows the index stores: the part of a sync that needs
 * no database, so it can run in a worker thread (read-worker.ts) while the main thread writes.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { isIncrementalSource, type SessionDriver, type SourceUnit, type UnitRead } from '../../model/driver.js';
import type { ParseWarning } from '../../model/types.js';
import { type PreparedSession, prepareSession } from '../sqlite/index.js';

const EDGE_BYTES = 4096;

/**
 * Hashes of a file's first bytes and of the bytes just before `offset`: when both still match, the
 * file grew by appending; otherwise it was rewritten and is re-read whole.
 */
export async function edgeHashes(path: string, offset: number): Promise<{ head: string; tail: string } | undefined> {
  // on the thread, as the file's lines were just read (see fileChunks in formats/shared/jsonl.ts)
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const read = (from: number, len: number) => {
      const buf = Buffer.alloc(len);
      const bytesRead = readSync(fd, buf, 0, len, from);
      return createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex');
    };
    const tailFrom = Math.max(0, offset - EDGE_BYTES);
    return { head: read(0, Math.min(EDGE_BYTES, offset)), tail: read(tailFrom, offset - tailFrom) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface WholeRead {
  prepared: PreparedSession;
  warnings: ParseWarning[];
  offset?: number;
  state?: string;
  /** edgeHashes at offset (an append-only file) */
  edges?: { head: string; tail: string };
}

/** A read (whole) of a unit prepared for the index. */
export async function prepareRead(format: string, unit: SourceUnit, read: UnitRead): Promise<WholeRead> {
  const session = { ...read.session, source: read.session.source || format };
  const out: WholeRead = {
    prepared: prepareSession(session, { keepSource: true, dropRaw: true }),
    warnings: session.warnings ?? [],
  };
  if (read.offset !== undefined) out.offset = read.offset;
  if (read.state !== undefined) out.state = read.state;
  if (unit.path && read.offset) {
    const edges = await edgeHashes(unit.path, read.offset);
    if (edges) out.edges = edges;
  }
  return out;
}

/** The unit read whole and prepared for the index; undefined when its session is gone. */
export async function readWhole(format: string, driver: SessionDriver, unit: SourceUnit): Promise<WholeRead | undefined> {
  let read: UnitRead | undefined;
  if (isIncrementalSource(driver)) read = await driver.readUnit(unit);
  else {
    const session = await driver.getSession(unit.sessionId);
    read = session ? { session } : undefined;
  }
  return read ? prepareRead(format, unit, read) : undefined;
}

export interface ReadJob {
  seq: number;
  format: string;
  unit: SourceUnit;
}

export type ReadResult = { seq: number; read?: WholeRead; error?: string };
