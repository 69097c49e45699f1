/**
 * `search` on a narrow terminal: each hit's lines fit the terminal's width (in display columns, wide
 * CJK characters two), cut with '…' around the word searched for so it stays in view, the session id
 * whole; in a pipe and with --json the lines stay whole. A hit's lines wrapped at 40 or 60 columns.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fitSnippet } from '../../src/cli/commands/search.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const LATIN =
  'the build runs every package through the linter and the type checker first, then the unit tests, then it packs the zanzibar archive for release';
const CJK = '日本語のテストをお願いします。長い説明のあとでファイルを読んで、最後にまとめてください。ありがとう';
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colours a terminal is sent
const ANSI = /\x1b\[[0-9;]*m/g;

let root: string;
let env: DriverEnv;
let sessionId: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-search-narrow-'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
  const sources = new Sources(env);
  try {
    const session = chainSession('narrow-session', 'threadbase', join(root, 'work', 'a-project-with-a-long-name'), [
      ['n1', textMessage('user', LATIN)],
      ['n2', textMessage('assistant', CJK, { model: 'claude-sonnet-4-5' })],
    ]);
    sessionId = (await sources.driver('claude').writeSession?.(session))?.id as string;
  } finally {
    await sources.close();
  }
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('on a terminal', () => {
  const tty = { isTTY: process.stdout.isTTY, columns: process.stdout.columns };
  afterEach(() => {
    Object.assign(process.stdout, tty);
  });

  const search = async (columns: number, query: string, color = true) => {
    Object.assign(process.stdout, { isTTY: true, columns });
    const searchEnv = { ...env, env: { ...env.env, ...(color ? {} : { NO_COLOR: '1' }) } };
    const out = await runCliOk(searchEnv, ['search', query, '--no-sync']);
    return out.trimEnd().split('\n');
  };

  for (const columns of [40, 60, 120])
    it(`fits each line in ${columns} columns, the word searched for in view`, async () => {
      for (const [query, word] of [
        ['zanzibar', 'zanzibar'],
        ['ファイル', 'ファイル'],
      ] as const) {
        const lines = await search(columns, query);
        for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(columns);
        expect(lines.some((l) => l.startsWith(sessionId))).toBe(true);
        // the hit in bold, whole
        const snippet = lines.at(-1) as string;
        expect(snippet).toContain(`\x1b[1;33m${word}\x1b[0m`);
        const plain = snippet.replace(ANSI, '');
        if (columns < 120) expect(plain).toMatch(/…$|…/);
        // a terminal's width is used, not cut shorter than it needs
        if (columns < 60) expect(stringWidth(plain)).toBeGreaterThan(columns - 3);
      }
    });

  it('keeps the [brackets] of a hit when colour is off, and counts them', async () => {
    const lines = await search(40, 'zanzibar', false);
    for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(40);
    expect(lines.at(-1)).toContain('[zanzibar]');
    expect(lines.join('\n')).not.toContain('\x1b');
  });

  it('cuts a project path at its start, keeping its name, when the line has room for the rest', async () => {
    const lines = await search(120, 'zanzibar');
    expect(lines[0]).toMatch(/ {2}user +…[^ ]*\/work\/a-project-with-a-long-name$/);
    expect(stringWidth(lines[0] as string)).toBe(120);
    const narrow = await search(40, 'zanzibar');
    // at 40 columns the id takes the line; the rest moves under it
    expect(narrow[0]?.trimEnd()).toBe(sessionId);
    expect(narrow[1]).toMatch(/^ {2}claude +\d{4}-\d\d-\d\dT\d\d:\d\d {2}user/);
  });
});

it('in a pipe and with --json each line stays whole', async () => {
  const piped = await runCliOk(env, ['search', 'zanzibar', '--no-sync']);
  expect(piped).toContain('[zanzibar]');
  const [hit] = JSON.parse(await runCliOk(env, ['search', 'zanzibar', '--no-sync', '--json'])) as { snippet: string }[];
  expect(piped).toContain(hit?.snippet);
  expect(piped).toContain(join(root, 'work', 'a-project-with-a-long-name'));
});

describe('fitSnippet', () => {
  const text = `${'word '.repeat(30)}the [needle] and ${'after '.repeat(30)}`;

  for (const width of [10, 20, 33, 60])
    it(`cuts around the first hit to ${width} columns, '…' on both sides`, () => {
      const cut = fitSnippet(text, width, false);
      expect(stringWidth(cut)).toBeLessThanOrEqual(width);
      expect(cut).toContain('[needle]');
      expect(cut.startsWith('…')).toBe(true);
      expect(cut.endsWith('…')).toBe(true);
      expect(stringWidth(cut)).toBeGreaterThanOrEqual(width - 2);
    });

  it('keeps the start when the hit is near it, and a hit near the end with the end', () => {
    expect(fitSnippet(`[needle] ${'after '.repeat(20)}`, 30, false)).toMatch(/^\[needle\] after .*…$/);
    const end = fitSnippet(`${'before '.repeat(20)}the [needle]`, 30, false);
    expect(end).toMatch(/^….*the \[needle\]$/);
    expect(stringWidth(end)).toBeGreaterThanOrEqual(29);
  });

  it('never cuts inside a wide character and counts it as two columns', () => {
    const cut = fitSnippet(`${'日本語'.repeat(10)}[検索]${'漢字'.repeat(10)}`, 21, true);
    expect(stringWidth(cut)).toBeLessThanOrEqual(21);
    expect(cut).toContain('\x1b[1;33m検索\x1b[0m');
  });

  it('a text as wide as the line stays whole', () => {
    expect(fitSnippet('a [b] c', 7, false)).toBe('a [b] c');
    expect(fitSnippet('a [b] c', 5, true)).toBe('a \x1b[1;33mb\x1b[0m c');
  });
});
