/**
 * One benchmark phase in its own process, so its peak RSS is its own. Prints one JSON line (wall ms,
 * CPU ms of the process, peak RSS).
 *   node --import tsx bench/phase.ts baseline <home>
 *   node --import tsx bench/phase.ts sync <home> [workers]      (workers: 0 = no worker thread)
 *   node --import tsx bench/phase.ts stats <home>               (a warm sync of Claude Code, then tokens and cost by session)
 *   node --import tsx bench/phase.ts search <home> [queries...]
 */
import { createReadStream, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ccusageOutput } from './ccusage.js';

// From the TypeScript sources, or (TB_BENCH_DIST=1, as run.ts does) from the compiled JavaScript in
// bench/data/dist, which is what an installed `threadbase` runs (and what its worker thread loads).
const fromDist = process.env.TB_BENCH_DIST === '1';
const mod = (path: string) => new URL(fromDist ? `./data/dist/${path}.js` : `../src/${path}.ts`, import.meta.url).href;
await import(mod('formats/all'));
const { Sources } = (await import(mod('formats/registry'))) as typeof import('../src/formats/registry.js');
const { loadPrices } = (await import(mod('stores/index-sync/prices'))) as typeof import('../src/stores/index-sync/prices.js');
const { stats } = (await import(mod('stores/index-sync/stats'))) as typeof import('../src/stores/index-sync/stats.js');
const { IndexSync, indexPath } = (await import(
  mod('stores/index-sync/sync')
)) as typeof import('../src/stores/index-sync/sync.js');
const { openSqliteStore } = (await import(mod('stores/sqlite/index'))) as typeof import('../src/stores/sqlite/index.js');

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

/** Streams every file and JSON.parses every line (and every OpenCode row): the floor any indexer pays. */
async function baseline(): Promise<Record<string, number>> {
  let lines = 0;
  let bytes = 0;
  const oc = join(home, '.local', 'share', 'opencode', 'opencode.db');
  if (existsSync(oc)) {
    const db = new Database(oc, { readonly: true });
    for (const table of ['session', 'message', 'part']) {
      const col = table === 'session' ? 'model' : 'data';
      for (const r of db.prepare(`SELECT ${col} v FROM ${table}`).iterate() as Iterable<{ v: string | null }>) {
        if (r.v === null) continue;
        bytes += r.v.length;
        JSON.parse(r.v);
        lines++;
      }
    }
    db.close();
  }
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

const FORMATS = ['claude', 'pi', 'opencode'];
const started = performance.now();
const cpu0 = process.cpuUsage();
let extra: Record<string, unknown> = {};
if (phase === 'baseline') extra = await baseline();
else if (phase === 'sync') {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(home, '.threadbase'), { recursive: true });
  const store = openSqliteStore(indexPath(env));
  const workers = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
  const r = await new IndexSync(store).sync(new Sources(env), {
    formats: FORMATS,
    ...(workers !== undefined ? { workers } : {}),
  });
  extra = {
    units: r.units,
    reread: r.reread,
    appended: r.appended,
    unchanged: r.unchanged,
    inWorker: r.inWorker,
    failed: r.failed,
    warnings: r.warnings.length,
  };
  await store.close();
} else if (phase === 'stats') {
  // what `threadbase stats --by session --source claude --json` does on a warm index (the question
  // `ccusage claude session` answers, from the same files): bring Claude Code's part up to date, then
  // group; with `all`, every agent's (`threadbase stats --by session`, as `ccusage session` answers)
  const all = process.argv[4] === 'all';
  const store = openSqliteStore(indexPath(env));
  const r = await new IndexSync(store).sync(new Sources(env), { formats: all ? FORMATS : ['claude'] });
  const rows = stats(store, loadPrices(), { by: 'session', ...(all ? {} : { source: 'claude' }) });
  extra = {
    unchanged: r.unchanged,
    sessions: rows.length,
    inputTokens: rows.reduce((n, x) => n + x.inputTokens, 0),
    // as ccusage counts output, to compare with it
    outputTokens: rows.reduce((n, x) => n + ccusageOutput(x), 0),
  };
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
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({ phase, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMB: process.resourceUsage().maxRSS / 1024, ...extra }),
);
