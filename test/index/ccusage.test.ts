/**
 * `threadbase stats --by session` against `ccusage session --json`, an independent counter of the same
 * files (it reads Claude Code, pi and OpenCode): every session's tokens agree. On a generated history
 * (Claude Code's split responses, pi, OpenCode) and on files the real agents wrote (an OpenCode
 * session with a compaction, pi sessions, a Claude Code session, Codex rollouts, a resumed Gemini CLI chat).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ccusageOutput } from '../../bench/ccusage.js';
import { generate } from '../../bench/generate.js';
import type { StatsRow } from '../../src/stores/index-sync/stats.js';
import { runCli } from '../helpers/cli.js';

const CCUSAGE = join(process.cwd(), 'node_modules', '.bin', 'ccusage');
const FIXTURES = join(__dirname, '..', 'fixtures');

interface Row {
  source?: string;
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function ccusageBySession(home: string): Map<string, Row> {
  const r = spawnSync(CCUSAGE, ['session', '--json', '--offline'], {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as {
    session: {
      period: string;
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      cacheCreationTokens: number;
      totalCost: number;
    }[];
  };
  return new Map(
    out.session.map((s) => [
      s.period,
      {
        input: s.inputTokens,
        output: s.outputTokens,
        reasoning: 0,
        cacheRead: s.cacheReadTokens,
        cacheWrite: s.cacheCreationTokens,
        cost: s.totalCost,
      },
    ]),
  );
}

async function oursBySession(home: string): Promise<Map<string, Row>> {
  const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  const r = await runCli(env, ['stats', '--by', 'session', '--json']);
  expect(r.code, r.err).toBe(0);
  const rows = JSON.parse(r.out) as StatsRow[];
  return new Map(
    rows.map((s) => [
      s.key,
      {
        source: s.source,
        input: s.inputTokens,
        output: s.outputTokens,
        reasoning: s.reasoningTokens,
        cacheRead: s.cacheReadTokens,
        cacheWrite: s.cacheWriteTokens,
        cost: s.cost,
      },
    ]),
  );
}

/** Every session ccusage counts, we count the same; and we count no session it does not. */
function expectSameTokens(ours: Map<string, Row>, theirs: Map<string, Row>, opts: { cost: boolean }): void {
  expect(theirs.size).toBeGreaterThan(0);
  expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
  for (const [id, t] of theirs) {
    const o = ours.get(id) as Row;
    const output = ccusageOutput({ source: o.source, outputTokens: o.output, reasoningTokens: o.reasoning });
    expect({ id, input: o.input, output, cacheRead: o.cacheRead, cacheWrite: o.cacheWrite }).toEqual({
      id,
      input: t.input,
      output: t.output,
      cacheRead: t.cacheRead,
      cacheWrite: t.cacheWrite,
    });
    if (opts.cost) expect(o.cost).toBeCloseTo(t.cost, 6);
  }
}

it.skipIf(!existsSync(CCUSAGE))('agrees with ccusage on every session of a generated history', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-ccusage-gen-'));
  const files = await generate({ out: dir, mb: 2 });
  expect(new Set(files.map((f) => f.format))).toEqual(new Set(['claude', 'pi', 'opencode']));
  const ours = await oursBySession(dir);
  // OpenCode's responses spend reasoning tokens here
  expect([...ours.values()].some((r) => r.source === 'opencode' && r.reasoning > 0)).toBe(true);
  // the same models at the same prices: the costs agree too
  expectSameTokens(ours, ccusageBySession(dir), { cost: true });
});

it.skipIf(!existsSync(CCUSAGE))('agrees with ccusage on sessions the real agents wrote', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-ccusage-real-'));
  // OpenCode with a compaction (its summary request counts), pi with branches and a compaction, Claude Code
  mkdirSync(join(dir, '.local', 'share', 'opencode'), { recursive: true });
  cpSync(join(FIXTURES, 'opencode', 'opencode.db'), join(dir, '.local', 'share', 'opencode', 'opencode.db'));
  const pi = join(dir, '.pi', 'agent', 'sessions', '--tmp-pi--');
  mkdirSync(pi, { recursive: true });
  for (const f of ['real-branched.jsonl', 'real-compacted.jsonl', 'real-tool-call.jsonl'])
    cpSync(join(FIXTURES, 'pi', f), join(pi, f));
  cpSync(join(FIXTURES, 'claude', 'real', 'projects', '-tmp-cc-proj2'), join(dir, '.claude', 'projects', '-tmp-cc-proj2'), {
    recursive: true,
  });
  // Gemini CLI's chat, resumed once (the resume writes the first run's replies back without tokens)
  cpSync(join(FIXTURES, 'gemini', 'real-0.61.0', '.gemini'), join(dir, '.gemini'), { recursive: true });
  // the real Codex rollouts (a resume, and a compaction)
  cpSync(join(FIXTURES, 'codex', 'home', 'sessions', '2026'), join(dir, '.codex', 'sessions', '2026'), { recursive: true });
  // ccusage names a pi session by its file, we by the id in its header
  const piIds = new Map(
    ['real-branched', 'real-compacted', 'real-tool-call'].map((f) => {
      const header = JSON.parse(readFileSync(join(pi, `${f}.jsonl`), 'utf8').split('\n')[0] ?? '{}') as { id: string };
      return [f, header.id] as const;
    }),
  );
  // and a Codex session by its rollout's path, we by the id it ends with
  const idOf = (k: string) => piIds.get(k) ?? /rollout-[^/]*-([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})$/.exec(k)?.[1] ?? k;
  const theirs = new Map([...ccusageBySession(dir)].map(([k, v]) => [idOf(k), v]));
  expect([...theirs.keys()].filter((k) => k.startsWith('01a204'))).toHaveLength(5); // 3 pi, 2 Codex
  const ours = await oursBySession(dir);
  const gemini = '1feb6904-698a-4392-9399-e06da18b836d';
  expect(theirs.has(gemini)).toBe(true);
  expect(ours.get(gemini)?.reasoning).toBeGreaterThan(0);
  // its model, gemini-3.1-pro-preview, is in both price tables: the same cost (thoughts billed as output)
  expect(ours.get(gemini)?.cost).toBeGreaterThan(0);
  expect(ours.get(gemini)?.cost).toBeCloseTo(theirs.get(gemini)?.cost ?? -1, 9);
  // the other sessions' models (the stand-in's, Claude Opus 5.5) are not in both tables
  expectSameTokens(ours, theirs, { cost: false });
});
