/**
 * `threadbase search ls -la`, as the README writes it: a query word that starts with one '-' (a
 * command's flags) is a word of the query, not an option refused; `--name` stays an option (a typo
 * of one refused with exit 2 and a suggestion), and after `--` every word is the query's.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-search-dash-' }));
  env = { home: root, env: { HOME: root } };
  const sources = new Sources(env);
  try {
    await sources.driver('claude').writeSession?.(
      chainSession('dash-session', 'threadbase', join(root, 'proj'), [
        ['u1', textMessage('user', 'list the folder with ls -la please')],
        ['a1', textMessage('assistant', 'then rm -rf --no-preserve-root is never run', { model: 'claude-sonnet-4-5' })],
      ]),
    );
  } finally {
    await sources.close();
  }
  await runCliOk(env, ['sync', '--json']);
});

afterAll(() => rm(root, { recursive: true, force: true }));

const snippets = (out: string) => (JSON.parse(out) as { snippet: string }[]).map((h) => h.snippet);

describe('search: query words that start with a dash', () => {
  it('takes `ls -la` as two words, options after them still options', async () => {
    const r = await runCli(env, ['search', 'ls', '-la', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(snippets(r.out)).toEqual(['list the folder with [ls] -[la] please']);
  });

  it('takes a dash word first and words after it, in order', async () => {
    const r = await runCli(env, ['search', '-rf', 'rm', '--limit', '5', '--json']);
    expect(r.code).toBe(0);
    expect(snippets(r.out)).toEqual(['then [rm] -[rf] --no-preserve-root is never run']);
  });

  it('takes words after -- whatever they look like', async () => {
    const r = await runCli(env, ['search', '--json', 'rm', '-rf', '--', '--no-preserve-root']);
    expect(r.code).toBe(0);
    expect(snippets(r.out)).toEqual(['then [rm] -[rf] --[no]-[preserve]-[root] is never run']);
  });

  it('still refuses an unknown --option, with a suggestion (exit 2)', async () => {
    const r = await runCli(env, ['search', 'ls', '-la', '--jsno']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--jsno'");
    expect(r.err).toContain('--json');
    expect(r.out).toBe('');
  });
});
