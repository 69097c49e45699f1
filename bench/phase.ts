/**
 * One benchmark phase in its own process, so its peak RSS is its own. Prints one JSON line.
 *   node --import tsx bench/phase.ts <baseline|sync|search> <home> [queries...]
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import '../src/formats/all.js';
import { Sources } from '../src/formats/registry.js';
import { IndexSync, indexPath } from '../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';

const [phase, home] = process.argv.slice(2) as [string, string];
const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };

async function* jsonlFiles(dir: string): AsyncGenerator<string> {
  let items: import('node:fs').Dirent[];
  try {
    items = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of items) {
    const p = join(dir, d.name);
    if (d.isDirectory()) yield* jsonlFiles(p);
    else if (d.name.endsWith('.jsonl')) yield p;
  }
}

/** Streams every file and JSON.parses every line: the floor any indexer pays. */
async function baseline(): Promise<Record<string, number>> {
  let lines = 0;
  let bytes = 0;
  for (const root of [join(home, '.claude'), join(home, '.pi')]) {
    for await (const file of jsonlFiles(root)) {
      let rest = '';
      for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
        bytes += (chunk as string).length;
        const parts = (rest + (chunk as string)).split('\n');
        rest = parts.pop() ?? '';
        for (const l of parts) {
          if (!l) continue;
          JSON.parse(l);
          lines++;
        }
      }
      if (rest) {
        JSON.parse(rest);
        lines++;
      }
    }
  }
  return { lines, bytes };
}

const started = performance.now();
let extra: Record<string, unknown> = {};
if (phase === 'baseline') extra = await baseline();
else if (phase === 'sync') {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(home, '.threadbase'), { recursive: true });
  const store = openSqliteStore(indexPath(env));
  const r = await new IndexSync(store).sync(new Sources(env), { formats: ['claude', 'pi'] });
  extra = { units: r.units, reread: r.reread, appended: r.appended, unchanged: r.unchanged, warnings: r.warnings.length };
  await store.close();
} else if (phase === 'search') {
  const store = openSqliteStore(indexPath(env));
  const queries = process.argv.slice(4);
  const times: number[] = [];
  let hits = 0;
  for (const q of queries) {
    const t = performance.now();
    hits += (await store.search(q, { limit: 20 })).length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  extra = { queries: queries.length, hits, p50: at(0.5), p95: at(0.95) };
  await store.close();
}
const ms = performance.now() - started;
console.log(JSON.stringify({ phase, ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ...extra }));
