/**
 * The parts of a replace sent in several requests (push --force of a session larger than one
 * request), held by the server until the last part comes, then swapped in at once. Held in this
 * process's memory, never in the store: no listing, search or read sees them, and a part lost (the
 * push stopped, the server restarted, an upload abandoned) leaves the stored session as it was.
 * Bounded in bytes (all uploads together) and in time (an upload untouched that long is dropped).
 */
import type { Entry } from '../model/types.js';

/** Defaults: 256 MiB of staged JSON in all (a 50 MB session several times over), 15 minutes per upload since its last part. */
export const DEFAULT_MAX_STAGED_BYTES = 256 * 1024 * 1024;
export const DEFAULT_STAGED_TTL_MS = 15 * 60 * 1000;

interface Upload {
  /** part number → its entries as JSON text (kept as text: about its bytes in memory, not several times them as objects) */
  parts: Map<number, string>;
  bytes: number;
  touched: number;
}

export type StageResult = { ok: true } | { ok: false; reason: 'staging_full'; held: number } | { ok: false; reason: 'gone' };

export class StagedReplaces {
  private readonly uploads = new Map<string, Upload>();
  private held = 0;

  constructor(
    readonly maxBytes: number = DEFAULT_MAX_STAGED_BYTES,
    readonly ttlMs: number = DEFAULT_STAGED_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held by every upload now. */
  get bytes(): number {
    return this.held;
  }

  /** Drops the uploads untouched for ttlMs (looked at on every call: no timer keeps the process alive). */
  private sweep(): void {
    const before = this.now() - this.ttlMs;
    for (const [key, upload] of this.uploads) if (upload.touched <= before) this.drop(key);
  }

  /**
   * Holds part `part` of upload `key`. A part after the first of an upload not held (expired, dropped,
   * another process's) is `gone`; one that would take the bytes held past maxBytes is refused and
   * its upload dropped (the replace cannot complete; the memory is given back at once). A part sent
   * again replaces the one held (a request repeated after an answer that was lost).
   */
  stage(key: string, part: number, entries: readonly Entry[]): StageResult {
    this.sweep();
    let upload = this.uploads.get(key);
    if (!upload) {
      if (part > 1) return { ok: false, reason: 'gone' };
      upload = { parts: new Map(), bytes: 0, touched: this.now() };
      this.uploads.set(key, upload);
    }
    const text = JSON.stringify(entries);
    const size = Buffer.byteLength(text);
    const replaced = upload.parts.get(part);
    const freed = replaced === undefined ? 0 : Buffer.byteLength(replaced);
    if (this.held - freed + size > this.maxBytes) {
      this.drop(key);
      return { ok: false, reason: 'staging_full', held: this.held };
    }
    upload.parts.set(part, text);
    upload.bytes += size - freed;
    this.held += size - freed;
    upload.touched = this.now();
    return { ok: true };
  }

  /**
   * The entries of parts 1 to `before - 1`, in order, and the upload dropped; undefined (the upload
   * dropped too) when one of them is not held or a part after `before` is.
   */
  take(key: string, before: number): Entry[] | undefined {
    this.sweep();
    const upload = this.uploads.get(key);
    this.drop(key);
    if (before === 1) return upload && upload.parts.size > 0 ? undefined : [];
    if (!upload || upload.parts.size !== before - 1) return undefined;
    const entries: Entry[] = [];
    for (let part = 1; part < before; part++) {
      const text = upload.parts.get(part);
      if (text === undefined) return undefined;
      for (const e of JSON.parse(text) as Entry[]) entries.push(e);
    }
    return entries;
  }

  /** Forgets the upload; whether it was held. */
  drop(key: string): boolean {
    const upload = this.uploads.get(key);
    if (!upload) return false;
    this.held -= upload.bytes;
    this.uploads.delete(key);
    return true;
  }
}
