/**
 * A store named by `--from` (convert, handoff, push), `ui --store` or `serve`/`token --db` that does
 * not open, as a path to a file that is no SQLite database: the error names the option and the store,
 * and the file is left as it was. SQLite said only "file is not a database", with no word of which file.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;
let notADatabase: string;
const TEXT = 'notes, not a database\n';

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-store-open-errors-'));
  notADatabase = join(root, 'notes.txt');
  await writeFile(notADatabase, TEXT);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it.each([
  ['--from', (f: string) => ['convert', '11111111', '--to', 'pi', '--from', f]],
  ['--from', (f: string) => ['handoff', '11111111', '--to', 'pi', '--from', `sqlite:${f}`]],
  ['--from', (f: string) => ['push', '--to', 'http://127.0.0.1:9', '--key', 'tb_x', '--from', f]],
  ['--store', (f: string) => ['ui', '--no-open', '--port', '0', '--store', f]],
  ['--db', (f: string) => ['serve', '--port', '0', '--db', f]],
  ['--db', (f: string) => ['token', 'list', '--db', f]],
  ['--db', (f: string) => ['token', 'create', '--project', 'p', '--db', f]],
])('%s naming a file that is no database: the error names it (%#)', async (option, args) => {
  const given = args(notADatabase);
  const r = await runCli(env, given);
  expect(r.err).toContain(`threadbase: ${option} ${given[given.length - 1]}: file is not a database`);
  expect(r.code).toBe(1);
  expect(await readFile(notADatabase, 'utf8')).toBe(TEXT);
});
