/**
 * The text output of the commands on real Claude Code sessions (the fixtures copied where Claude Code
 * keeps them): each line says what it found, whole enough to be given back to another command.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  // Claude Code's 0afea31a… and bcdac43d… were compacted with /compact: their compaction entries hold
  // the summary; codex's 0a1b2c3d… is a legacy rollout that records no working directory
  ({ home: root } = await fixtureHome({ prefix: 'tb-text-output-', fixtures: ['claude', 'codexLegacy'] }));
  env = { home: root, env: { HOME: root } };
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('a hit in a compaction summary is marked as a summary in the role column', async () => {
  const hits = JSON.parse(
    await runCliOk(env, ['search', 'tools-used-before-summary', '--source', 'claude', '--no-sync', '--json']),
  ) as {
    sessionId: string;
    role: string | null;
  }[];
  const summaries = hits.filter((h) => h.role === null);
  expect(summaries.length).toBeGreaterThan(0);
  const text = await runCliOk(env, ['search', 'tools-used-before-summary', '--source', 'claude', '--no-sync']);
  const heads = text.split('\n').filter((l) => !l.startsWith('    ') && l.trim());
  expect(heads).toHaveLength(hits.length);
  // sessionId, source, time, role, project: no column left blank
  for (const line of heads) expect(line).toMatch(/^\S+ {2}claude {3}\S+ {2}(user|assistant|tool|system|summary) +\/tmp\//);
  expect(heads.filter((l) => / {2}summary +\//.test(l))).toHaveLength(summaries.length);
});

it('a search with no hits says so on stderr and prints nothing', async () => {
  const r = await runCli(env, ['search', 'zzzqqq-nothing', '--no-sync']);
  expect(r).toMatchObject({ code: 0, out: '' });
  expect(r.err).toContain('no matches');
});

it('stats --by session prints each session id whole, with its agent, in a column wide enough', async () => {
  const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--source', 'claude', '--no-sync', '--json'])) as {
    key: string;
  }[];
  expect(rows.length).toBeGreaterThan(1);
  const lines = (await runCliOk(env, ['stats', '--by', 'session', '--source', 'claude', '--no-sync'])).trimEnd().split('\n');
  expect(lines).toHaveLength(rows.length + 1);
  const inputAt = (lines[0] as string).indexOf('input') + 'input'.length;
  rows.forEach((r, i) => {
    const line = lines[i + 1] as string;
    expect(line.startsWith(`${r.key} (claude) `)).toBe(true);
    // the numbers stay under their headings
    expect(line.slice(0, inputAt)).toMatch(/ \d[\d,]*$/);
  });
});

it('context --json prints JSON: the anthropic format unless another JSON format is named, and refuses markdown', async () => {
  const id = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
  const json = await runCliOk(env, ['context', id, '--json']);
  expect(JSON.parse(json)).toEqual(JSON.parse(await runCliOk(env, ['context', id, '--format', 'anthropic'])));
  const openai = await runCliOk(env, ['context', id, '--format', 'openai', '--json']);
  expect(JSON.parse(openai)).toEqual(JSON.parse(await runCliOk(env, ['context', id, '--format', 'openai'])));
  expect(await runCliOk(env, ['context', id])).toMatch(/^## user\n/);
  const md = await runCli(env, ['context', id, '--format', 'markdown', '--json']);
  expect(md.code).not.toBe(0);
  expect(md.out).toBe('');
  expect(md.err).toContain('markdown');
});

it('stats --by project names the row of sessions that record no directory instead of leaving its key blank', async () => {
  const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'project', '--no-sync', '--json'])) as { key: string }[];
  expect(rows.map((r) => r.key)).toContain('');
  const lines = (await runCliOk(env, ['stats', '--by', 'project', '--no-sync'])).trimEnd().split('\n');
  expect(lines).toHaveLength(rows.length + 1);
  for (const line of lines) expect(line).toMatch(/^\S/);
  expect(lines.filter((l) => l.startsWith('(no project) '))).toHaveLength(1);
});

it("on a terminal, search puts the hits in bold and leaves the text's own brackets as they are", async () => {
  const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  try {
    // the task notification's result reads '[harness: subagent output matched …'
    const out = await runCliOk(env, ['search', 'harness', '--source', 'claude', '--no-sync', '--limit', '1']);
    expect(out).toContain('<result>[\x1b[1;33mharness\x1b[0m: subagent output');
  } finally {
    if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  }
});

it.each(['model', 'project', 'session', 'source'])('stats --by %s names its key column so (it said "key")', async (by) => {
  const head = (await runCliOk(env, ['stats', '--by', by, '--no-sync'])).split('\n')[0] as string;
  expect(head).toMatch(new RegExp(`^${by} +input +output +cache read +cache write +reasoning +cost \\$ +msgs$`));
});
