/**
 * What a user reads every day from the CLI: a cost no price is known for is not printed as 0, a
 * search hit names its entry (and `show --at` takes it), `sessions` lines up its columns (wide
 * characters and emoji in titles too) and cuts titles to a terminal's width, and "not found" says
 * the id once and where it looked.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { formatNames, Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { STATS_BY } from '../../src/stores/index-sync/stats.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';

const UNPRICED = 'mystery-model-9';
const PRICED = 'claude-sonnet-4-5';
const TITLE = '日本語のタイトル 🎉 with a family 👨‍👩‍👧 and more words after it';

let root: string;
let env: DriverEnv;
/** the Claude Code sessions written here: one of the unpriced model alone, one of both models */
let unpricedId: string;
let mixedId: string;

beforeAll(async () => {
  // OpenCode's ids (ses_…) are shorter than the others' UUIDs
  ({ home: root } = await fixtureHome({ prefix: 'tb-output-polish-', fixtures: ['claude', 'codexLegacy', 'opencode'] }));
  env = { home: root, env: { HOME: root } };
  const project = join(root, 'proj');
  const sources = new Sources(env);
  try {
    const claude = sources.driver('claude');
    const unpriced = chainSession('u-session', 'threadbase', project, [
      // entry ids of their own: the same ids would give the same response ids, counted once as copies
      ['x1', textMessage('user', 'xylophonic quartz question')],
      ['x2', textMessage('assistant', 'an answer', { model: UNPRICED, usage: usageOf(1000, 500) })],
    ]);
    const mixed = chainSession('m-session', 'threadbase', project, [
      ['u1', textMessage('user', 'first')],
      ['a1', textMessage('assistant', 'priced', { model: PRICED, usage: usageOf(100_000, 0) })],
      ['u2', textMessage('user', 'second')],
      ['a2', textMessage('assistant', 'not priced', { model: UNPRICED, usage: usageOf(10, 10) })],
    ]);
    // a project whose path is wider on screen than it is long
    const wide = chainSession('w-session', 'threadbase', join(root, '日本語のプロジェクト'), [
      ['w1', textMessage('user', 'hello')],
      ['w2', textMessage('assistant', 'hi', { model: 'gpt-5-codex', usage: usageOf(100, 100) })],
    ]);
    await claude.writeSession?.(wide);
    unpricedId = (await claude.writeSession?.({ ...unpriced, title: TITLE }))?.id as string;
    mixedId = (await claude.writeSession?.(mixed))?.id as string;
  } finally {
    await sources.close();
  }
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

interface StatsJsonRow {
  key: string;
  source?: string;
  cost: number;
  costKnown: boolean;
  unpricedModels: string[];
}

describe('stats: a cost no price is known for', () => {
  it('is shown as unknown in the table, not 0.0000, with the models named under it', async () => {
    const r = await runCli(env, ['stats', '--by', 'model', '--no-sync']);
    const lines = r.out.trimEnd().split('\n');
    const row = lines.find((l) => l.startsWith(`${UNPRICED} `)) as string;
    expect(row).toBeDefined();
    expect(row).not.toContain('0.0000');
    expect(row).toMatch(/ — +\d+$/);
    expect(lines.find((l) => l.startsWith(`${PRICED} `))).toMatch(/ 0\.3000 +\d+$/);
    // the note under it on stderr: stdout stays the table
    expect(r.err).toMatch(new RegExp(`not in the cost \\(no price known.*\\): .*${UNPRICED}`));
    expect(r.out).not.toContain('no price known');
  });

  it('keeps its numbers under their headings when a key holds wide characters', async () => {
    const lines = (await runCliOk(env, ['stats', '--by', 'project', '--no-sync'])).trimEnd().split('\n');
    expect(lines.some((l) => l.includes('日本語のプロジェクト'))).toBe(true);
    const msgsEnd = stringWidth(lines[0] as string);
    for (const l of lines) expect(stringWidth(l), l).toBe(msgsEnd);
  });

  it('a row priced in part shows what could be priced, marked', async () => {
    const out = await runCliOk(env, ['stats', '--by', 'session', '--source', 'claude', '--no-sync']);
    expect(out.split('\n').find((l) => l.startsWith(`${mixedId} `))).toMatch(/ 0\.3000\+ +\d+$/);
    expect(out.split('\n').find((l) => l.startsWith(`${unpricedId} `))).toMatch(/ — +\d+$/);
  });

  it('--json keeps the cost a number and says whether it is all of it, under every grouping', async () => {
    const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'model', '--no-sync', '--json'])) as StatsJsonRow[];
    expect(rows.find((r) => r.key === UNPRICED)).toMatchObject({ cost: 0, costKnown: false, unpricedModels: [UNPRICED] });
    expect(rows.find((r) => r.key === PRICED)).toMatchObject({ cost: 0.3, costKnown: true, unpricedModels: [] });
    // the rows that hold the unpriced model's tokens are marked, whatever they are grouped by
    for (const by of STATS_BY) {
      const grouped = JSON.parse(
        await runCliOk(env, ['stats', '--by', by, '--source', 'claude', '--no-sync', '--json']),
      ) as StatsJsonRow[];
      const marked = grouped.filter((r) => !r.costKnown);
      expect(marked.length, by).toBeGreaterThan(0);
      for (const r of grouped) expect(r.unpricedModels, `${by} ${r.key}`).toEqual(r.costKnown ? [] : [UNPRICED]);
      if (by === 'session') expect(marked.map((r) => r.key).sort()).toEqual([mixedId, unpricedId].sort());
    }
  });
});

describe('search names the entry of each hit', () => {
  it('as show prints it, and show --at takes it and prints that entry in full', async () => {
    const out = await runCliOk(env, ['search', 'xylophonic', '--no-sync']);
    const [head, hit] = out.split('\n');
    expect(head?.startsWith(`${unpricedId}  claude`)).toBe(true);
    const entry = /^ {4}(\S+) {2}/.exec(hit ?? '')?.[1] as string;
    expect(entry).toBeDefined();
    // the same short id show lists the entry under
    const listed = await runCliOk(env, ['show', unpricedId]);
    expect(listed.split('\n').find((l) => l.startsWith(`${entry} `))).toContain('xylophonic quartz question');
    const at = await runCliOk(env, ['show', unpricedId, '--at', entry]);
    expect(at).toContain(`${entry} user: xylophonic quartz question`);
    expect(at).not.toContain('an answer');
    const json = JSON.parse(await runCliOk(env, ['show', unpricedId, '--at', entry, '--json'])) as {
      at: string;
      entries: { id: string }[];
    };
    expect(json.at.startsWith(entry)).toBe(true);
    expect(json.entries.at(-1)?.id).toBe(json.at);
  });

  it("on Claude Code's own sessions: a prefix of the entry's UUID that show --at takes", async () => {
    const out = await runCliOk(env, ['search', 'echo', '--source', 'claude', '--limit', '5', '--no-sync']);
    const lines = out.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (let i = 0; i < lines.length; i += 2) {
      const session = (lines[i] as string).split(' ')[0] as string;
      const entry = /^ {4}(\S+) {2}/.exec(lines[i + 1] ?? '')?.[1] as string;
      expect(entry.length).toBeLessThan(36);
      const shown = await runCliOk(env, ['show', session, '--at', entry]);
      expect(shown).toMatch(new RegExp(`\n${entry} \\w+: `));
      expect(shown.toLowerCase()).toContain('echo');
    }
  });
});

describe('sessions', () => {
  const tty = { isTTY: process.stdout.isTTY, columns: process.stdout.columns };
  afterEach(() => {
    Object.assign(process.stdout, tty);
  });

  /** The display column each of the line's cells after the id starts at: source, time, count. */
  const cellStarts = (line: string) => {
    const m = /^(\S+ +)(\S+ +)(\S+ +)(\d+ msgs)/.exec(line) as RegExpExecArray;
    const a = stringWidth(m[1] as string);
    const b = a + stringWidth(m[2] as string);
    return [a, b, b + stringWidth(m[3] as string) + (m[4] as string).length];
  };

  it('lines up its columns whatever the widths of the ids and agents', async () => {
    const lines = (await runCliOk(env, ['sessions', '--no-index'])).trimEnd().split('\n');
    expect(new Set(lines.map((l) => l.split(' ')[0]?.length)).size).toBeGreaterThan(1);
    const starts = lines.map((l) => cellStarts(l).join(','));
    expect(new Set(starts)).toEqual(new Set([starts[0]]));
    // in a pipe every title is whole
    expect(lines.find((l) => l.startsWith(unpricedId))?.endsWith(TITLE)).toBe(true);
  });

  it('cuts titles to the width of a terminal, in display columns (wide characters, emoji)', async () => {
    Object.assign(process.stdout, { isTTY: true, columns: 100 });
    const lines = (await runCliOk(env, ['sessions', '--no-index'])).trimEnd().split('\n');
    // (a child's line is as long as its parent's id makes it: that id is never cut)
    for (const l of lines) if (!l.includes('(child of')) expect(stringWidth(l), l).toBeLessThanOrEqual(100);
    const cut = lines.find((l) => l.startsWith(unpricedId)) as string;
    expect(cut.endsWith('…')).toBe(true);
    expect(stringWidth(cut)).toBeGreaterThan(96);
    expect(cut).toContain('日本語');
    // a child's parent id stays whole
    expect(lines.find((l) => l.includes('(child of'))).toMatch(/\(child of [\w-]+\)$/);
  });
});

describe('not found', () => {
  const times = (s: string, part: string) => s.split(part).length - 1;

  it('names a session id once, and which agents were searched', async () => {
    const r = await runCli(env, ['show', 'zzz-nope']);
    expect(r.code).toBe(1);
    expect(times(r.err, 'zzz-nope')).toBe(1);
    // every registered agent, then threadbase's own store
    const searched = r.err.match(/session not found: zzz-nope \(searched ([^)]*)\)/)?.[1]?.split(', ');
    // (in the order the agents registered: Kilo's folder imports OpenCode's, which registers first)
    expect(searched?.at(-1)).toBe('threadbase');
    expect(searched?.slice(0, -1).sort()).toEqual(
      formatNames()
        .filter((n) => n !== 'threadbase')
        .sort(),
    );
    const pi = await runCli(env, ['show', 'zzz-nope', '--source', 'pi', '--no-index']);
    expect(pi.err).toBe('threadbase: pi session not found: zzz-nope\n');
  });

  it('an ambiguous prefix is named once too', async () => {
    const r = await runCli(env, ['show', '0a', '--no-index']);
    expect(r.code).toBe(1);
    // 2 of the fixtures', and a session written above whose random id starts so too now and then
    expect(r.err).toMatch(/^threadbase: id prefix "0a" matches [23] sessions: /);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('names an entry id once, and the session it looked in', async () => {
    const r = await runCli(env, ['context', unpricedId, '--leaf', 'zzzz']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`threadbase: entry not found: zzzz (searched claude session ${unpricedId})\n`);
  });
});
