/**
 * The index benchmark: on one generated corpus, in one run, each phase in its own process.
 *   node --import tsx bench/run.ts --mb 10 [--out /tmp/tb-bench-10]
 *   [--repeat 3]: baseline and one-thread cold sync runs (medians reported)
 * Prints the JSON of every phase and a Markdown table row for bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeAppendLines, generate, piAppendLines, VOCABULARY } from './generate.js';

const arg = (k: string, d: string) => {
  const i = process.argv.indexOf(k);
  return i >= 0 ? (process.argv[i + 1] as string) : d;
};
const mb = Number(arg('--mb', '10'));
const out = arg('--out', `/tmp/tb-bench-${mb}`);
const repeat = Number(arg('--repeat', '3'));
const home = join(out, 'home');
const index = join(home, '.threadbase', 'index.db');

// The phases run the compiled JavaScript, as an installed `threadbase` does (see phase.ts).
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', 'bench/data/dist'], {
  stdio: 'inherit',
});

type Phase = Record<string, number>;
function phase(name: string, ...rest: string[]): Phase {
  const text = execFileSync(process.execPath, ['--import', 'tsx', 'bench/phase.ts', name, home, ...rest], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, TB_BENCH_DIST: '1' },
  });
  const result = JSON.parse(text.trim().split('\n').pop() as string) as Phase;
  console.error(`${name} ${rest.length > 3 ? `(${rest.length} queries)` : rest.join(' ')}: ${JSON.stringify(result)}`);
  return result;
}
const dropIndex = () => {
  for (const f of [index, `${index}-wal`, `${index}-shm`]) rmSync(f, { force: true });
};

rmSync(out, { recursive: true, force: true });
const files = await generate({ out: home, mb });
// The corpus was just written: flush it and read it once, so the first measured phase does not pay
// for the disk catching up (the machine is shared and noisy: each ratio is the median of `repeat` runs,
// the baseline and the cold sync alternating on the same files).
execFileSync('sync');
phase('baseline');
/** The median of each measure on its own (wall and CPU time are noisy apart). */
const median = (runs: Phase[]): Phase => {
  const mid = (k: string) => {
    const v = runs.map((r) => r[k] ?? 0).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)] as number;
  };
  return { ...runs[0], ms: mid('ms'), cpuMs: mid('cpuMs'), maxRssMB: Math.max(...runs.map((r) => r.maxRssMB ?? 0)) };
};
const bases: Phase[] = [];
const colds: Phase[] = [];
for (let r = 0; r < repeat; r++) {
  bases.push(phase('baseline'));
  dropIndex();
  // Cold: all in this thread.
  colds.push(phase('sync', '0'));
}
const base = median(bases);
const cold0 = median(colds);
// Cold again, parsing in a worker thread while this one writes.
dropIndex();
const cold = phase('sync', '1');
const indexMB = (statSync(index).size + (existsSync(`${index}-wal`) ? statSync(`${index}-wal`).size : 0)) / 2 ** 20;
// Warm, nothing changed: the median of `repeat` runs (each ≈ 10-200 ms, where a stray scheduling delay shows).
const warms = Array.from({ length: repeat }, () => phase('sync'));
const warm = median(warms);
// one more turn in 1% of the sessions (every 100th JSONL session)
const jsonl = files.filter((f) => f.format !== 'opencode');
const touched = jsonl.filter((_, i) => i % 100 === 0);
for (const f of touched) {
  const lines = readFileSync(f.path, 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines[lines.length - 1] as string) as { uuid?: string; id?: string };
  appendFileSync(
    f.path,
    f.format === 'claude' ? claudeAppendLines(f.sessionId, f.cwd, last.uuid ?? null) : piAppendLines(last.id as string),
  );
}
const appended = phase('sync');
const statsWarm = phase('stats');
const statsAll = phase('stats', 'all');
// Queries as people search: distinctive words (Zipf ranks 50..20000, log-uniform), a fifth of them two words.
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const rankWord = () => VOCABULARY[Math.floor(Math.exp(Math.log(50) + rnd() * (Math.log(20000) - Math.log(50))))] as string;
const queries = Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? `${rankWord()} ${rankWord()}` : rankWord()));
const search = phase('search', ...queries);
// the most common words: the worst case for bm25 (it scores every row that matches)
const common = phase('search', ...VOCABULARY.slice(0, 10));
/** `ccusage <args> --json --offline` on the same files: its time, and the sessions and tokens it counts. */
function timeCcusage(args: string[]): { ms: number; sessions: number; inputTokens: number; outputTokens: number } | undefined {
  const bin = join(process.cwd(), 'node_modules', '.bin', 'ccusage');
  if (!existsSync(bin)) return undefined;
  const t = performance.now();
  const out = execFileSync(bin, [...args, '--json', '--offline'], {
    env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') },
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  });
  const ms = performance.now() - t;
  const j = JSON.parse(out) as {
    session?: unknown[];
    sessions?: unknown[];
    totals: { inputTokens: number; outputTokens: number };
  };
  return {
    ms,
    sessions: (j.session ?? j.sessions ?? []).length,
    inputTokens: j.totals.inputTokens,
    outputTokens: j.totals.outputTokens,
  };
}
// Claude Code's files alone (the issue's question), and every agent's (what `ccusage session` reads since v18)
const ccusageClaude = timeCcusage(['claude', 'session']);
const ccusageAll = timeCcusage(['session']);
const agree = (c: typeof ccusageAll, ours: Record<string, number | undefined>) =>
  c === undefined
    ? 'n/a'
    : c.sessions === ours.sessions && c.inputTokens === ours.inputTokens && c.outputTokens === ours.outputTokens
      ? 'same sessions and tokens'
      : `differ: ${c.sessions}/${c.inputTokens}/${c.outputTokens} vs ${ours.sessions}/${ours.inputTokens}/${ours.outputTokens}`;
const s = (ms: number | undefined) =>
  ms === undefined ? 'n/a' : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
const x = (a: number | undefined, b: number | undefined) => `${((a ?? 0) / (b ?? 1)).toFixed(1)}×`;
const result = {
  mb,
  sessions: files.length,
  byFormat: Object.fromEntries(['claude', 'pi', 'opencode'].map((f) => [f, files.filter((g) => g.format === f).length])),
  touched: touched.length,
  indexMB,
  baseline: base,
  bases,
  colds,
  cold0,
  cold,
  warm,
  warms,
  appended,
  statsWarm,
  statsAll,
  search,
  common,
  ccusageClaude,
  ccusageAll,
  agreeClaude: agree(ccusageClaude, statsWarm),
  agreeAll: agree(ccusageAll, statsAll),
};
console.log(JSON.stringify(result));
// warm against the faster cold sync (the stricter ratio)
const coldBest = Math.min(cold0.ms ?? Infinity, cold.ms ?? Infinity);
const rss = Math.max(cold0.maxRssMB ?? 0, cold.maxRssMB ?? 0, warm.maxRssMB ?? 0, appended.maxRssMB ?? 0);
console.log(
  `| ${mb} MB | ${files.length} | ${s(base.ms)} | ${s(cold0.ms)} (${x(cold0.ms, base.ms)}; CPU ${x(cold0.cpuMs, base.cpuMs)}) | ${s(cold.ms)} (${x(cold.ms, base.ms)}) | ${s(warm.ms)} (${((100 * (warm.ms ?? 0)) / coldBest).toFixed(1)} %) | ${s(appended.ms)} (${touched.length}) | ${search.p50?.toFixed(1)} / ${search.p95?.toFixed(1)} ms | ${common.p50?.toFixed(0)} / ${common.p95?.toFixed(0)} ms | ${rss.toFixed(0)} MB | ${indexMB.toFixed(0)} MB | ${s(ccusageClaude?.ms)} / ${s(statsWarm.ms)} | ${s(ccusageAll?.ms)} / ${s(statsAll.ms)} |`,
);
