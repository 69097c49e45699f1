/**
 * The CLI's start-up as a user runs it: `bin/threadbase.js` (the compiled dist/) as a new process,
 * N runs of each case, median wall time (and CPU time of the process, on Linux), for one or more
 * checkouts, each built (`npm run build`). The checkouts take turns run by run, so that a busy
 * machine slows each alike; the ratios are against the last checkout named.
 *
 *   node --import tsx bench/startup.ts [--runs 15] <checkout> [<checkout> ...]
 *
 * e.g. this tree against the commit before a change:
 *   git worktree add -f /tmp/wt <rev> && ln -s "$PWD/node_modules" /tmp/wt/node_modules
 *   (cd /tmp/wt && npm run build) && npm run build
 *   node --import tsx bench/startup.ts . /tmp/wt
 *   git worktree remove --force /tmp/wt
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fixtureHome } from '../test/helpers/fixture-homes.js';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 15;
const checkouts = args.map((a) => resolve(a));
if (!checkouts.length || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: node --import tsx bench/startup.ts [--runs N] <checkout> [<checkout> ...]');
  process.exit(2);
}
for (const c of checkouts)
  if (!existsSync(join(c, 'dist', 'cli', 'main.js'))) throw new Error(`${c}: no dist/cli/main.js (run npm run build there)`);

/** CPU time (user + system, ms) of this process's children that have ended, where /proc says it. */
function childrenCpuMs(): number | undefined {
  try {
    // fields after the command's name: …, cutime (14th of the line, 12th after it), cstime
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Case {
  name: string;
  /** the command line; undefined: node alone (`node -e 0`), the floor every case stands on */
  argv?: string[];
  home: string;
}

const empty = await mkdtemp(join(tmpdir(), 'tb-startup-empty-'));
// a few agents' real sessions (Claude Code, pi, Codex, OpenCode, Gemini CLI), as test/fixtures holds them
const { home: small } = await fixtureHome({
  prefix: 'tb-startup-small-',
  fixtures: ['claude', 'pi', 'codex', 'opencode', 'gemini'],
});
const cases: Case[] = [
  { name: 'node -e 0 (floor)', home: empty },
  { name: '--version', argv: ['--version'], home: empty },
  { name: 'sessions, empty HOME', argv: ['sessions'], home: empty },
  { name: 'sessions, small HOME', argv: ['sessions'], home: small },
];

function runOnce(checkout: string, c: Case): { wall: number; cpu?: number } {
  const before = childrenCpuMs();
  const t = performance.now();
  const r = spawnSync(process.execPath, c.argv ? [join(checkout, 'bin', 'threadbase.js'), ...c.argv] : ['-e', '0'], {
    cwd: c.home,
    env: { PATH: process.env.PATH, HOME: c.home, THREADBASE_HOME: join(c.home, '.threadbase') },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const wall = performance.now() - t;
  const after = childrenCpuMs();
  if (r.status !== 0) throw new Error(`${checkout} ${c.argv?.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, ...(before !== undefined && after !== undefined ? { cpu: after - before } : {}) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const results = new Map<string, { wall: number[]; cpu: number[] }>();
const key = (checkout: string, c: Case) => `${checkout}\0${c.name}`;
for (const c of cases) {
  // one run each first, not counted: the files into the page cache
  for (const checkout of checkouts) runOnce(checkout, c);
  for (let i = 0; i < runs; i++)
    for (const checkout of checkouts) {
      const r = runOnce(checkout, c);
      const slot = results.get(key(checkout, c)) ?? { wall: [], cpu: [] };
      slot.wall.push(r.wall);
      if (r.cpu !== undefined) slot.cpu.push(r.cpu);
      results.set(key(checkout, c), slot);
    }
}

const label = (checkout: string) => {
  const rev = spawnSync('git', ['-C', checkout, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).stdout.trim();
  return `${checkout}${rev ? ` (${rev})` : ''}`;
};
const last = checkouts.at(-1) as string;
console.log(
  `median of ${runs} runs; wall ms (CPU ms of the process)${checkouts.length > 1 ? `; × = against ${label(last)}` : ''}\n`,
);
console.log(`| case | ${checkouts.map(label).join(' | ')} |`);
console.log(`|:--|${checkouts.map(() => '--:|').join('')}`);
for (const c of cases) {
  const base = median(results.get(key(last, c))?.wall ?? []);
  const cells = checkouts.map((checkout) => {
    const r = results.get(key(checkout, c)) ?? { wall: [], cpu: [] };
    const wall = median(r.wall);
    const cpu = r.cpu.length ? ` (${median(r.cpu).toFixed(0)})` : '';
    const ratio = checkouts.length > 1 && checkout !== last ? ` ${(wall / base).toFixed(2)}×` : '';
    return `${wall.toFixed(0)}${cpu}${ratio}`;
  });
  console.log(`| ${c.name} | ${cells.join(' | ')} |`);
}
await rm(empty, { recursive: true, force: true });
await rm(small, { recursive: true, force: true });
