/**
 * `show` over sessions the real agents wrote (test/fixtures): the conversation without the agent's
 * bookkeeping records unless `--all`, and entry ids printed so that each one given back to `context
 * --leaf`, `fork --at`, `convert --at` or `branch --at` names that entry (a unique prefix).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext, pathToLeaf } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { runCli, runCliOk } from '../helpers/cli.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CODEX_ID = '01a204ad-60d8-7b73-9e2b-cb6ea62b6afe';

let root: string;
let env: DriverEnv;
const session = async (id: string): Promise<Session> => {
  const s = await new Sources(env).open(id);
  return s.session;
};
/** The ids `show` printed, in order, each with the line it began. */
const printedIds = (out: string): string[] =>
  out
    .split('\n\n')[1]
    ?.split('\n')
    .filter((l) => l && !l.startsWith('('))
    .map((l) => l.replace(/^[│├└─ ]+/, '').split(' ')[0] ?? '') ?? [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-show-'));
  await cp(join(FIXTURES, 'claude/real/projects'), join(root, '.claude/projects'), { recursive: true });
  await cp(join(FIXTURES, 'codex/home'), join(root, '.codex'), { recursive: true });
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('show', () => {
  it("lists the conversation without Claude Code's bookkeeping records; --all lists every entry", async () => {
    const s = await session(CLAUDE_ID);
    const bookkeeping = s.entries.filter((e) => e.kind === 'metadata').length;
    expect(bookkeeping).toBeGreaterThan(10);
    for (const args of [[], ['--tree']]) {
      const out = await runCliOk(env, ['show', CLAUDE_ID, '--no-index', ...args]);
      expect(printedIds(out)).toHaveLength(s.entries.length - bookkeeping);
      expect(out).not.toMatch(/\(attachment\)|\(api-request/);
      expect(out).toContain(`(${bookkeeping} bookkeeping records of the agent not shown: --all lists them)`);
      const all = await runCliOk(env, ['show', CLAUDE_ID, '--no-index', '--all', ...args]);
      expect(printedIds(all)).toHaveLength(s.entries.length);
      expect(all).toMatch(/\(attachment\)/);
    }
  });

  it('the tree has no side branches made of bookkeeping records, and marks the shown entry the leaf hangs from', async () => {
    const out = await runCliOk(env, ['show', CLAUDE_ID, '--no-index', '--tree']);
    expect(out).not.toMatch(/[├└]─/);
    const lines = out.split('\n\n')[1]?.split('\n') ?? [];
    const current = lines.filter((l) => l.endsWith('← current'));
    expect(current).toHaveLength(1);
    const s = await session(CLAUDE_ID);
    const lastMessage = pathToLeaf(s)
      .filter((e) => e.kind !== 'metadata')
      .at(-1);
    expect(current[0]?.startsWith(lastMessage?.id.slice(0, 12) ?? '?')).toBe(true);
  });

  it('every printed entry id names its entry: codex ids that share their first 12 characters are printed longer', async () => {
    const s = await session(CODEX_ID);
    const ids = s.entries.filter((e) => e.kind !== 'metadata').map((e) => e.id);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBeLessThan(ids.length);
    const printed = printedIds(await runCliOk(env, ['show', CODEX_ID, '--no-index']));
    expect(printed).toHaveLength(ids.length);
    printed.forEach((p, i) => {
      expect(ids[i]?.startsWith(p)).toBe(true);
      expect(s.entries.filter((e) => e.id.startsWith(p)).map((e) => e.id)).toEqual([ids[i]]);
    });
  });
});

describe('an entry named by a unique prefix', () => {
  it('context --leaf takes the printed id and gives the context at that entry', async () => {
    const s = await session(CLAUDE_ID);
    const printed = printedIds(await runCliOk(env, ['show', CLAUDE_ID, '--no-index']));
    const target = s.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    const short = printed.find((p) => target?.id.startsWith(p));
    expect(short).toBeDefined();
    expect(short?.length).toBeLessThan(target?.id.length ?? 0);
    const out = JSON.parse(
      await runCliOk(env, ['context', CLAUDE_ID, '--no-index', '--leaf', short ?? '', '--format', 'anthropic']),
    );
    const full = JSON.parse(
      await runCliOk(env, ['context', CLAUDE_ID, '--no-index', '--leaf', target?.id ?? '', '--format', 'anthropic']),
    );
    expect(out).toEqual(full);
    const atLeaf = JSON.parse(await runCliOk(env, ['context', CLAUDE_ID, '--no-index', '--format', 'anthropic']));
    expect(out).not.toEqual(atLeaf);
  });

  it('fork --at and convert --at take it; an ambiguous or unknown prefix is refused, naming the matches', async () => {
    const s = await session(CLAUDE_ID);
    const target = s.entries.find((e) => e.kind === 'message' && e.message.role === 'tool');
    const short = target?.id.slice(0, 12) ?? '';
    const forked = JSON.parse(await runCliOk(env, ['fork', CLAUDE_ID, '--no-index', '--at', short, '--json']));
    const fork = await session(forked.id);
    expect(fork.entries.filter((e) => e.kind === 'message').at(-1)?.id).toBe(target?.id);
    const converted = JSON.parse(
      await runCliOk(env, ['convert', CLAUDE_ID, '--no-index', '--to', 'pi', '--at', short, '--json']),
    );
    const pi = await session(converted.id);
    expect(buildContext(pi).messages.at(-1)?.role).toBe('tool');
    const ambiguous = await runCli(env, ['context', CLAUDE_ID, '--no-index', '--leaf', 'a']);
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.err).toMatch(/id prefix "a" matches \d+ entries/);
    const unknown = await runCli(env, ['fork', CLAUDE_ID, '--no-index', '--at', 'zzzz']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/entry not found: zzzz/);
  });
});
