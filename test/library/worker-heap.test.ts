/**
 * The index's read worker starts with a larger old generation (fewer mark-compacts while it parses),
 * and a library user's own Workers made after a sync do not: the V8 flag behind it is put back once
 * the read worker is up. Counted by the major GCs a worker's fixed allocation takes (deterministic for
 * one allocation, the least of five runs; no timing).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexSync, openSqliteStore, Sources } from '../../src/index.js';
import { processInitialOldSpaceMb, withInitialOldSpace } from '../../src/stores/index-sync/worker-heap.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tb-worker-heap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user's worker (with a heap limit, as ours has) that keeps ~30 MB and reports its major GCs. */
const USER_WORKER = `
const { parentPort } = require('node:worker_threads');
const { PerformanceObserver, constants } = require('node:perf_hooks');
let majors = 0;
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
const keep = [];
for (let i = 0; i < 800; i++) keep.push(Array.from({ length: 500 }, (_, j) => ({ j, s: 'x' + j })));
setTimeout(() => parentPort.postMessage(majors + keep.length * 0), 50);
`;

/**
 * The fewest major GCs of five such workers: a busy machine can add one (V8's memory reducer runs on
 * idle time), never take one away, so the least is the allocation's own.
 */
async function majorGcs(
  create: () => Worker = () => new Worker(USER_WORKER, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 160 } }),
): Promise<number> {
  const counts: number[] = [];
  for (let i = 0; i < 5; i++) counts.push(await majorGcsOf(create()));
  return Math.min(...counts);
}

async function majorGcsOf(w: Worker): Promise<number> {
  try {
    return await new Promise<number>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  } finally {
    await w.terminate();
  }
}

describe("the read worker's initial old generation", () => {
  it('is the read worker’s alone: a user’s Worker made after a sync collects as one made before it', async () => {
    const before = await majorGcs();
    // the measure can tell: a worker made under the flag collects less often
    const flagged = await majorGcs(() =>
      withInitialOldSpace(64, () => new Worker(USER_WORKER, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 160 } })),
    );
    expect(flagged).toBeLessThan(before);

    const home = join(dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    cpSync(join(root, 'test/fixtures/claude/real/projects'), join(home, '.claude', 'projects'), { recursive: true });
    const sources = new Sources({ home, env: {} });
    const store = openSqliteStore(join(dir, 'index.db'));
    try {
      const report = await new IndexSync(store).sync(sources, { formats: ['claude'], workers: 1 });
      expect(report.inWorker).toBeGreaterThan(0);
      expect(report.failed).toBe(0);
    } finally {
      await store.close();
      await sources.close();
    }
    // compared with the flagged worker, not with `before`: idle-time GCs on a busy machine move both
    // unflagged counts (seen 1 before and 2 after), while a flag left set gives the flagged count
    expect(await majorGcs()).toBeGreaterThan(flagged);
  }, 60_000);

  it('is put back to what the process was started with', () => {
    expect(processInitialOldSpaceMb([], undefined)).toBe(0);
    expect(processInitialOldSpaceMb(['--initial-old-space-size=32'], undefined)).toBe(32);
    expect(processInitialOldSpaceMb(['--initial-old-space-size', '40'], undefined)).toBe(40);
    expect(processInitialOldSpaceMb([], '--max-old-space-size=100 --initial_old_space_size=48')).toBe(48);
    // the command line comes after NODE_OPTIONS, as Node applies them
    expect(processInitialOldSpaceMb(['--initial-old-space-size=16'], '--initial-old-space-size=48')).toBe(16);
    expect(processInitialOldSpaceMb(['--max-old-space-size=100'], '')).toBe(0);
    // leave this process as it started whatever the test did
    setFlagsFromString(`--initial-old-space-size=${processInitialOldSpaceMb()}`);
  });
});
