/** Following the agents' stores: `sync --watch` and `threadbase ui` on the local index. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SyncReport } from './sync.js';

/**
 * How long to wait before looking again: the interval asked for, or longer when looking itself takes
 * long (every store listed: ≈ 50-80 ms at 1 GB of history, more over a cold disk cache), so that
 * following takes at most a tenth of a core instead of most of one.
 */
export function watchDelay(intervalMs: number, lastSyncMs: number): number {
  return Math.max(intervalMs, 9 * lastSyncMs);
}

export interface FollowOptions {
  intervalMs: number;
  /** stops the loop, also while it waits */
  signal: AbortSignal;
  /** a sync that changed the index */
  onChange?: (report: SyncReport) => void;
  /** a sync that threw (the loop goes on) */
  onError?: (error: Error) => void;
}

/** Runs `syncOnce` every watchDelay until the signal aborts; resolves once the loop has stopped. */
export async function followChanges(syncOnce: () => Promise<SyncReport>, opts: FollowOptions): Promise<void> {
  let lookMs = 0;
  while (!opts.signal.aborted) {
    try {
      await sleep(watchDelay(opts.intervalMs, lookMs), undefined, { signal: opts.signal });
    } catch {
      break; // aborted while waiting
    }
    let r: SyncReport;
    try {
      r = await syncOnce();
    } catch (error) {
      opts.onError?.(error as Error);
      continue;
    }
    if (!r.reread && !r.appended && !r.removed && !r.failed) lookMs = r.ms;
    if (r.reread || r.appended || r.removed) opts.onChange?.(r);
  }
}
