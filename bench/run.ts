/**
 * The index benchmark: on one generated corpus, in one run, each phase in its own process.
 *   node --import tsx bench/run.ts --mb 10 [--out /tmp/tb-bench-10]
 * Prints a Markdown table row set for bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { claudeAppendLines, generate } from './generate.js';

const arg = (k: string, d: string) => {
  const i = process.argv.indexOf(k);
  return i >= 0 ? (process.argv[i + 1] as string) : d;
};
const mb = Number(arg('--mb', '10'));
const out = arg('--out', `/tmp/tb-bench-${mb}`);
const home = join(out, 'home');

function phase(name: string, ...rest: string[]): Record<string, number> {
  const text = execFileSync(process.execPath, ['--import', 'tsx', 'bench/phase.ts', name, home, ...rest], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return JSON.parse(text.trim().split('\n').pop() as string);
}

rmSync(out, { recursive: true, force: true });
const files = await generate({ out: home, mb });
const base = phase('baseline');
const cold = phase('sync');
const warm = phase('sync');
// append one turn to 1% of the Claude Code sessions
const claude = files.filter((f) => f.format === 'claude');
const step = 100;
const touched = claude.filter((_, i) => i % step === 0);
for (const f of touched) {
  const lines = readFileSync(f.path, 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines[lines.length - 1] as string).uuid as string;
  appendFileSync(f.path, claudeAppendLines(f.sessionId, f.cwd, last));
}
const appended = phase('sync');
const words = ['grep', 'sqlite schema', 'token cache', 'migration', 'rank query', 'stream buffer', 'lock retry', 'compile'];
const queries = Array.from({ length: 200 }, (_, i) => words[i % words.length] as string);
const search = phase('search', ...queries);
let ccusageMs: number | undefined;
const ccusage = join(process.cwd(), 'node_modules', '.bin', 'ccusage');
if (existsSync(ccusage)) {
  const t = performance.now();
  execFileSync(ccusage, ['session', '--json', '--offline'], {
    env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') },
    stdio: ['ignore', 'ignore', 'ignore'],
    maxBuffer: 1 << 28,
  });
  ccusageMs = performance.now() - t;
}
const s = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
const result = {
  mb,
  sessions: files.length,
  claudeSessions: claude.length,
  touched: touched.length,
  baseline: base,
  cold,
  warm,
  appended,
  search,
  ccusageMs,
};
console.log(JSON.stringify(result));
console.log(
  `| ${mb} MB | ${files.length} | ${s(base.ms)} | ${s(cold.ms)} (${((cold.ms ?? 0) / (base.ms ?? 1)).toFixed(1)}×) | ${s(warm.ms)} (${((100 * (warm.ms ?? 0)) / (cold.ms ?? 1)).toFixed(1)}%) | ${s(appended.ms)} (${touched.length} sessions) | ${search.p50?.toFixed(1)} / ${search.p95?.toFixed(1)} ms | ${Math.max(cold.maxRssMB ?? 0, warm.maxRssMB ?? 0, appended.maxRssMB ?? 0).toFixed(0)} MB | ${s(ccusageMs)} |`,
);
