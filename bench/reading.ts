/**
 * The reading commands on a big index, as a user runs them: each command a new process of the compiled
 * CLI (bench/data/dist, as run.ts builds it), N runs, median wall and CPU time, as ratios against a
 * baseline measured in the same run: a new process that reads the largest session's file and
 * JSON.parses its lines (what any reader of that session pays at least).
 *
 *   node --import tsx bench/reading.ts --mb 200 --out /tmp/tb-read-200 [--big-mb 30] [--runs 5]
 *     [--reuse]          keep the corpus and index of an earlier run in --out (else generated anew)
 *     [--no-build]       use bench/data/dist as it is
 *     [--only a,b]       only the cases whose name contains one of these
 *     [--tb FILE]        the CLI to time: a module that runs another build's dist/cli/main.js (default
 *                        bench/data/tb.mjs, this tree's, built by this script)
 *
 * The corpus is bench/generate.ts's, plus one Claude Code session of --big-mb MB (the largest, in
 * /bench/project-big), synced once into the index before the cases run. The server's cases are
 * `threadbase ui --no-sync` on that index: the first request (its cache cold) and the median of the rest,
 * with the server's CPU time a request over the rest (from /proc).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { claudeTurn, generate, VOCABULARY } from './generate.js';

const argv = process.argv.slice(2);
const arg = (k: string, d: string) => {
  const i = argv.indexOf(k);
  return i >= 0 ? (argv[i + 1] as string) : d;
};
const mb = Number(arg('--mb', '200'));
const out = resolve(arg('--out', `/tmp/tb-read-${mb}`));
const bigMb = Number(arg('--big-mb', '30'));
const runs = Number(arg('--runs', '5'));
const only = argv.includes('--only') ? arg('--only', '').split(',') : undefined;
const home = join(out, 'home');
const env = { PATH: process.env.PATH ?? '', HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
// --tb FILE: another build's CLI (e.g. a checkout before a change: a file that imports its dist/cli/main.js, as tb.mjs)
const tb = resolve(arg('--tb', 'bench/data/tb.mjs'));

if (!argv.includes('--no-build')) {
  execFileSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', 'bench/data/dist'],
    {
      stdio: 'inherit',
    },
  );
}
// main.js reads its version from ../package.json
copyFileSync('package.json', 'bench/data/package.json');
writeFileSync(tb, "import { main } from './dist/cli/main.js';\nmain(process.argv).then((c) => { process.exitCode = c; });\n");

interface Big {
  id: string;
  path: string;
  bytes: number;
  entries: number;
}
const bigInfo = join(out, 'big.json');
if (!argv.includes('--reuse') || !existsSync(bigInfo)) {
  rmSync(out, { recursive: true, force: true });
  await generate({ out: home, mb });
  // the largest session: one long Claude Code session, a turn every 10 s
  const id = '0b16b16b-0000-4000-8000-000000000001';
  const cwd = '/bench/project-big';
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${id}.jsonl`);
  const lines: string[] = [];
  let bytes = 0;
  let parent: string | null = null;
  let when = Date.parse('2025-10-01T00:00:00Z');
  for (let t = 0; bytes < bigMb * 2 ** 20; t++) {
    when += 10_000;
    const turn = claudeTurn(id, cwd, t, parent, when);
    for (const l of turn.lines) bytes += Buffer.byteLength(l) + 1;
    lines.push(...turn.lines);
    parent = turn.last;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  writeFileSync(bigInfo, JSON.stringify({ id, path, bytes, entries: lines.length } satisfies Big));
  execFileSync('sync');
}
const big = JSON.parse(readFileSync(bigInfo, 'utf8')) as Big;
// a session of the usual size (the first of one project's Claude Code files): what its export costs
const smallDir = join(home, '.claude', 'projects', '-bench-project-3');
const smallFile = readdirSync(smallDir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()[0] as string;
const small = { id: smallFile.replace(/\.jsonl$/, ''), bytes: statSync(join(smallDir, smallFile)).size };

/** Fields of /proc/<pid>/stat after the command's name (Linux). */
function procStat(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
/** CPU time (user + system, ms; 10 ms ticks) of this process's children that have ended. */
function childrenCpuMs(): number {
  const fields = procStat('self');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}
/** CPU time (user + system, ms) of a running process. */
function cpuMsOf(pid: number): number {
  const fields = procStat(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
interface Run {
  wall: number;
  cpu: number;
  bytes: number;
}
function runOnce(args: string[]): Run {
  const before = childrenCpuMs();
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: home, env, maxBuffer: 2 ** 31 - 1, stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: childrenCpuMs() - before, bytes: r.stdout.length };
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

// The index, synced once (cold) and then warm; every case after runs against it.
const t0 = performance.now();
runOnce([tb, 'sync']);
const syncMs = performance.now() - t0;

const BASELINE = `const fs=require('node:fs');let n=0;for(const l of fs.readFileSync(${JSON.stringify(big.path)},'utf8').split('\\n'))if(l){JSON.parse(l);n++}`;
const word = VOCABULARY[400] as string;
const common = VOCABULARY[5] as string;
const cli: { name: string; args: string[] }[] = [
  { name: 'baseline: read + JSON.parse the largest file', args: ['-e', BASELINE] },
  { name: 'floor: --version', args: [tb, '--version'] },
  { name: 'sessions', args: [tb, 'sessions'] },
  { name: 'sessions --json', args: [tb, 'sessions', '--json'] },
  { name: 'sessions --project', args: [tb, 'sessions', '--project', '/bench/project-3'] },
  { name: 'show (largest)', args: [tb, 'show', big.id] },
  { name: 'show --json (largest)', args: [tb, 'show', big.id, '--json'] },
  { name: 'context (largest, markdown)', args: [tb, 'context', big.id] },
  { name: 'context --json (largest)', args: [tb, 'context', big.id, '--json'] },
  { name: 'export --format html (largest)', args: [tb, 'export', big.id, '--format', 'html'] },
  {
    name: `export --format html (${(small.bytes / 1024).toFixed(0)} KB session)`,
    args: [tb, 'export', small.id, '--format', 'html'],
  },
  {
    name: `export --format json (${(small.bytes / 1024).toFixed(0)} KB session)`,
    args: [tb, 'export', small.id, '--format', 'json'],
  },
  { name: 'stats --by day', args: [tb, 'stats', '--by', 'day'] },
  { name: 'stats --by model', args: [tb, 'stats', '--by', 'model'] },
  { name: 'stats --by session', args: [tb, 'stats', '--by', 'session'] },
  { name: `search ${word}`, args: [tb, 'search', word] },
  { name: `search ${word} --project`, args: [tb, 'search', word, '--project', '/bench/project-3'] },
  {
    name: `search ${word} --source claude --project (largest's) --role assistant --since`,
    args: [
      tb,
      'search',
      word,
      '--source',
      'claude',
      '--project',
      '/bench/project-big',
      '--role',
      'assistant',
      '--since',
      '2025-10-01',
    ],
  },

  { name: `search ${common} --json --limit 50`, args: [tb, 'search', common, '--json', '--limit', '50'] },
];
const wanted = (name: string) => !only || name.startsWith('baseline') || only.some((o) => name.includes(o));

interface Row {
  name: string;
  wall: number;
  cpu: number;
  bytes: number;
  first?: number;
}
const rows: Row[] = [];
const cases = cli.filter((c) => wanted(c.name));
// one run each first, not counted (the files into the page cache), then the cases take turns run by run
for (const c of cases) runOnce(c.args);
const all = new Map<string, Run[]>(cases.map((c) => [c.name, []]));
for (let i = 0; i < runs; i++) for (const c of cases) all.get(c.name)?.push(runOnce(c.args));
for (const c of cases) {
  const rs = all.get(c.name) ?? [];
  rows.push({
    name: c.name,
    wall: median(rs.map((r) => r.wall)),
    cpu: median(rs.map((r) => r.cpu)),
    bytes: rs[0]?.bytes ?? 0,
  });
}

/** The viewer's data routes (`threadbase ui --no-sync` on the index): first request, then the median of `runs`. */
async function serverRows(): Promise<Row[]> {
  const child: ChildProcess = spawn(process.execPath, [tb, 'ui', '--no-open', '--no-sync', '--port', '0'], {
    cwd: home,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((res, rej) => {
      let text = '';
      child.stdout?.on('data', (d: Buffer) => {
        text += d.toString();
        const m = /(http:\/\/\S+?)\/?\s/.exec(text);
        if (m) res(m[1] as string);
      });
      child.on('exit', (code) => rej(new Error(`ui exited ${code}`)));
    });
    const routes: [string, string][] = [
      ['GET /api/v1/web/sessions', '/api/v1/web/sessions'],
      ['GET /api/v1/web/sessions?project=', '/api/v1/web/sessions?project=/bench/project-3'],
      // every session priced to sort them (SessionDriver.sessionCosts of all)
      ['GET /api/v1/web/sessions?sort=cost', '/api/v1/web/sessions?sort=cost'],
      ['GET /api/v1/web/sessions/:largest', `/api/v1/web/sessions/${big.id}`],
      ['GET /api/v1/web/sessions/:largest/path', `/api/v1/web/sessions/${big.id}/path`],
      ['GET /api/v1/web/sessions/:largest/context', `/api/v1/web/sessions/${big.id}/context`],
      ['GET /api/v1/web/sessions/:largest/tree', `/api/v1/web/sessions/${big.id}/tree`],
      [`GET /api/v1/web/search?q=${word}`, `/api/v1/web/search?q=${word}`],
      ['GET /api/v1/web/stats', '/api/v1/web/stats'],
    ];
    const out: Row[] = [];
    for (const [name, path] of routes) {
      if (!wanted(name)) continue;
      const get = async () => {
        const t = performance.now();
        const r = await fetch(url + path);
        const body = await r.arrayBuffer();
        if (!r.ok) throw new Error(`${path}: ${r.status} ${Buffer.from(body).toString().slice(0, 200)}`);
        return { ms: performance.now() - t, bytes: body.byteLength };
      };
      const first = await get();
      const rest: number[] = [];
      // the server's CPU time over the repeated requests (steadier than their wall time on a busy machine)
      const cpu0 = cpuMsOf(child.pid as number);
      for (let i = 0; i < runs; i++) rest.push((await get()).ms);
      const cpu = (cpuMsOf(child.pid as number) - cpu0) / runs;
      out.push({ name, wall: median(rest), cpu, bytes: first.bytes, first: first.ms });
    }
    return out;
  } finally {
    child.kill('SIGTERM');
  }
}
rows.push(...(await serverRows()));

const base = rows[0] as Row;
const s = (ms: number) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const size = (b: number) => (b < 2 ** 20 ? `${(b / 1024).toFixed(0)} KB` : `${(b / 2 ** 20).toFixed(1)} MB`);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  JSON.stringify({
    mb,
    big,
    indexMB: statSync(join(home, '.threadbase', 'index.db')).size / 2 ** 20,
    syncMs,
    runs,
    load,
    rows,
  }),
);
console.log(
  `\n${mb} MB corpus + one ${(big.bytes / 2 ** 20).toFixed(1)} MB session (${big.entries} records); first sync ${s(syncMs)}; load ${load}; median of ${runs}\n`,
);
console.log("| case | wall (× baseline) | CPU (× baseline; a route: the server's, a request) | output |");
console.log('|:--|--:|--:|--:|');
for (const r of rows) {
  const cpu = `${s(r.cpu)} (${(r.cpu / base.cpu).toFixed(2)}×)`;
  const wall = `${s(r.wall)} (${(r.wall / base.wall).toFixed(2)}×)${r.first !== undefined ? `; first ${s(r.first)}` : ''}`;
  console.log(`| ${r.name} | ${wall} | ${cpu} | ${size(r.bytes)} |`);
}
