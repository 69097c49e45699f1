/**
 * The CLI where a user's set-up gives it little to work with, run for real (in-process, or as a process
 * on a pseudo-terminal): a THREADBASE_HOME it cannot write (/proc, a file, an index.db that is a FIFO),
 * no sessions at all (nor usage, nor matches), `show --tree --at`, `context --format`, `stats --by` and `export --format` misspelt, `branch` with nothing to start a branch, `search` without a word, and
 * `token revoke` of a key that does not exist.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeContext, writableIndexPath } from '../../src/cli/io.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { startUi } from '../e2e/ui-process.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** pi's real-branched.jsonl: a branch left at 247f70ec, the current one ending at e08af530 */
const PI_BRANCHED_ID = '01a204ad-e570-7374-8cfa-3a3511154668';

let fixtures: FixtureHome;
let empty: string;
const withHome = (threadbaseHome: string): DriverEnv => ({
  home: fixtures.home,
  env: { ...fixtures.env.env, THREADBASE_HOME: threadbaseHome },
});

beforeAll(async () => {
  fixtures = await fixtureHome({ prefix: 'tb-cli-edges-', fixtures: ['claude', 'piAll'] });
  empty = await mkdtemp(join(tmpdir(), 'tb-cli-empty-'));
});
afterAll(async () => {
  await rm(fixtures.home, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
});

describe('a THREADBASE_HOME threadbase cannot write', () => {
  /** Each unusable home, made under the fixture home, and what the refusal says of it. */
  const unusableHomes = async (): Promise<[string, string][]> => {
    const aFile = join(fixtures.home, 'a-file');
    await writeFile(aFile, 'not a directory');
    const withFifo = join(fixtures.home, 'fifo-home');
    await mkdir(withFifo, { recursive: true });
    if (!existsSync(join(withFifo, 'index.db'))) execFileSync('mkfifo', [join(withFifo, 'index.db')]);
    return [
      ['/proc', 'ENOENT'],
      [aFile, 'ENOTDIR: not a directory'],
      [withFifo, 'not a regular file'],
    ];
  };

  it('sync, search, stats, serve, token, push and convert --to threadbase fail at once naming the index and THREADBASE_HOME', async () => {
    for (const [home, reason] of await unusableHomes()) {
      for (const args of [
        ['sync'],
        ['search', 'hello'],
        ['stats'],
        ['token', 'list'],
        ['serve', '--port', '0'],
        ['push', '--to', 'http://127.0.0.1:9', '--key', 'tb_unused'],
        ['convert', PI_BRANCHED_ID, '--to', 'threadbase'],
      ]) {
        const started = Date.now();
        const r = await runCli(withHome(home), args);
        expect(r.code, `${args.join(' ')} with THREADBASE_HOME=${home}`).toBe(1);
        expect(r.out).toBe('');
        expect(r.err).toContain(`threadbase: the index ${join(home, 'index.db')} cannot be made or opened (`);
        expect(r.err).toContain(reason);
        expect(r.err).toContain(`THREADBASE_HOME=${home} must be a directory threadbase can write in`);
        expect(Date.now() - started).toBeLessThan(5000);
      }
    }
  });

  it.runIf(existsSync('/proc/self'))(
    'a THREADBASE_HOME under a directory that cannot be made (/proc/x/tb): refused at once, not a hang',
    () => {
      // a process, killed if it hangs: mkdirSync's `recursive` looped there for ever, deaf to SIGTERM
      const home = '/proc/x/tb';
      for (const command of ['sync', 'stats']) {
        const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', command], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, HOME: fixtures.home, THREADBASE_HOME: home },
          timeout: 20_000,
          killSignal: 'SIGKILL',
        });
        expect(r.signal, `${command} was killed: it hung`).toBeNull();
        expect(r.status).toBe(1);
        expect(r.stderr).toBe(
          `threadbase: the index ${home}/index.db cannot be made or opened (ENOENT: no such file or directory, mkdir '/proc/x'): THREADBASE_HOME=${home} must be a directory threadbase can write in\n`,
        );
      }
    },
    60_000,
  );

  it.runIf(existsSync('/proc/self'))(
    'a --db or --store file under a directory that cannot be made (/proc/x): refused at once, not a hang',
    () => {
      const home = join(fixtures.home, 'db-home');
      for (const args of [
        ['token', 'create', '--db', '/proc/x/y.db', '--project', 'p'],
        // `ui --store` reads a store that is there: a missing file is refused first (store-files.test.ts)
        ['serve', '--db', '/proc/x/y.db', '--port', '0'],
      ]) {
        const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, HOME: fixtures.home, THREADBASE_HOME: home },
          timeout: 20_000,
          killSignal: 'SIGKILL',
        });
        expect(r.signal, `${args.join(' ')} was killed: it hung`).toBeNull();
        expect(r.status).toBe(1);
        expect(r.stderr).toContain(`mkdir '/proc/x'`);
      }
    },
    90_000,
  );

  it('the check of a usable index leaves the locks of SQLite connections on it in place', async () => {
    // closing any descriptor of a SQLite file drops every lock this process holds on it (POSIX locks)
    const home = join(fixtures.home, 'locked-home');
    await mkdir(home, { recursive: true });
    const path = join(home, 'index.db');
    const db = new Database(path);
    try {
      db.exec('CREATE TABLE t (x INTEGER)');
      db.exec('BEGIN IMMEDIATE');
      db.exec('INSERT INTO t VALUES (1)');
      expect(writableIndexPath(makeContext(withHome(home)))).toBe(path);
      // another process cannot write while the transaction holds the lock
      const other = spawnSync(
        process.execPath,
        [
          '-e',
          `const D = require('better-sqlite3'); const d = new D(process.argv[1], { timeout: 0 }); d.exec('INSERT INTO t VALUES (2)');`,
          path,
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(other.status).not.toBe(0);
      expect(other.stderr).toMatch(/database is locked/);
      db.exec('COMMIT');
    } finally {
      db.close();
    }
  });

  it("sessions and show read the agents' files without the index, as they do before the first sync", async () => {
    for (const [home] of await unusableHomes()) {
      const listed = JSON.parse(await runCliOk(withHome(home), ['sessions', '--json'])) as { id: string }[];
      expect(listed.map((s) => s.id)).toContain(PI_BRANCHED_ID);
      expect(await runCliOk(withHome(home), ['show', PI_BRANCHED_ID])).toContain('on the new branch');
    }
  });

  it("ui shows the agents' own files and says why", async () => {
    const ui = await startUi(['--no-open', '--port', '0'], { ...process.env, ...withHome('/proc').env });
    try {
      const res = await fetch(`${ui.url}api/v1/web/sessions`);
      const list = (await res.json()) as { sessions: { id: string }[] };
      expect(list.sessions.map((s) => s.id)).toContain(PI_BRANCHED_ID);
      expect(ui.stdout()).toContain('(agents store');
      expect(ui.stderr()).toContain('the index /proc/index.db cannot be made or opened (ENOENT');
      expect(ui.stderr()).toContain("showing each agent's own files");
    } finally {
      expect(await ui.stop()).toBe(0);
    }
  }, 60_000);
});

describe('sessions when there are none', () => {
  const home = (): DriverEnv => ({ home: empty, env: { HOME: empty } });

  it('says so on stderr, naming where it looked; stdout stays empty, --json prints []', async () => {
    const r = await runCli(home(), ['sessions']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^threadbase: no sessions found: looked where claude, .*pi.* keep them under /);
    expect(r.err.trim().endsWith(empty)).toBe(true);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(JSON.parse(await runCliOk(home(), ['sessions', '--json']))).toEqual([]);
  });

  it('names the filters and the variables that move an agent (never another variable)', async () => {
    const moved = join(empty, 'elsewhere');
    const r = await runCli({ home: empty, env: { HOME: empty, CODEX_HOME: moved, THREADBASE_API_KEY: 'tb_secret' } }, [
      'sessions',
      '--source',
      'codex',
      '--project',
      '/nowhere',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `threadbase: no codex sessions match --project /nowhere: looked where codex keeps them under ${empty} (CODEX_HOME=${moved})\n`,
    );
    // with sessions there is no such line
    const some = await runCli(fixtures.env, ['sessions', '--source', 'pi']);
    expect(some.out).toContain(PI_BRANCHED_ID);
    expect(some.err).not.toContain('no pi sessions');
  });
});

describe('stats and search with nothing to show', () => {
  const home = (): DriverEnv => ({ home: empty, env: { HOME: empty } });

  it('say so on stderr; stdout stays empty (stats printed its header alone); --json prints []', async () => {
    const stats = await runCli(home(), ['stats', '--source', 'pi', '--since', '2026-01-01']);
    expect(stats.code).toBe(0);
    expect(stats.out).toBe('');
    expect(stats.err).toBe('threadbase: no usage recorded for --source pi --since 2026-01-01\n');
    expect(JSON.parse(await runCliOk(home(), ['stats', '--json']))).toEqual([]);
    const search = await runCli(home(), ['search', 'nothing-like-this']);
    expect(search.code).toBe(0);
    expect(search.out).toBe('');
    expect(search.err).toBe('threadbase: no matches\n');
  });
});

describe('search without a word', () => {
  it('is refused before the index is made or synced (it said no matches)', async () => {
    const home = join(empty, 'no-word');
    for (const query of ['', '  ', '?']) {
      const r = await runCli({ home, env: { HOME: home } }, ['search', query]);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toBe(
        `threadbase: no word to search for in ${JSON.stringify(query)}: the index matches words (letters, digits)\n`,
      );
    }
    expect(existsSync(join(home, '.threadbase'))).toBe(false);
    // one word among signs is searched for
    const hits = JSON.parse(await runCliOk(fixtures.env, ['search', 'second?', '--source', 'pi', '--json'])) as unknown[];
    expect(hits.length).toBeGreaterThan(0);
  });
});

describe('stats --by and export --format', () => {
  it('refuse another value as the other options do, naming the values they take', async () => {
    const home = join(empty, 'bad-values');
    const by = await runCli({ home, env: { HOME: home } }, ['stats', '--by', 'hour']);
    expect(by.code).toBe(2);
    expect(by.err).toBe(
      "threadbase: option '--by <key>' argument 'hour' is invalid. Expected one of day, week, month, model, project, session, source.\n(see threadbase stats --help)\n",
    );
    const format = await runCli({ home, env: { HOME: home } }, ['export', 'no-such-session', '--format', 'pdf']);
    expect(format.code).toBe(2);
    expect(format.err).toBe(
      "threadbase: option '--format <format>' argument 'pdf' is invalid. Expected one of html, md, json, opencode.\n(see threadbase export --help)\n",
    );
    expect(existsSync(join(home, '.threadbase'))).toBe(false);
  });
});

describe('context --format', () => {
  it('refuses an unknown format before looking for the session, naming the known ones', async () => {
    const r = await runCli(fixtures.env, ['context', 'no-such-session', '--format', 'anthropc']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/option '--format <format>' argument 'anthropc' is invalid\. Known formats: markdown, anthropic, /);
    expect(r.err).not.toContain('session not found');
    const known = await runCliOk(fixtures.env, ['context', PI_BRANCHED_ID, '--no-index', '--format', 'openai']);
    expect(JSON.stringify(JSON.parse(known))).toContain('on the new branch');
  });
});

describe('branch without --summary or --message', () => {
  it('is refused before the session is looked for, as a missing --at is', async () => {
    const r = await runCli(fixtures.env, ['branch', 'no-such-session', '--at', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('threadbase: give --summary and/or --message: a new branch starts with an entry\n');
  });
});

describe('show --tree --at', () => {
  it('draws the whole tree with the --at entry and the current leaf marked, then the entry in full', async () => {
    const out = await runCliOk(fixtures.env, ['show', PI_BRANCHED_ID, '--no-index', '--tree', '--at', '247f70ec']);
    const tree = out.split('\n\n')[1]?.split('\n') ?? [];
    expect(tree.filter((l) => l.includes('←'))).toEqual([
      '│  247f70ec assistant: ok: second question ← --at',
      '   e08af530 assistant: ok: on the new branch ← current',
    ]);
    // both branches, drawn as a tree
    expect(tree.some((l) => l.startsWith('├─ '))).toBe(true);
    expect(tree.some((l) => l.startsWith('└─ 78b8da2d branch summary'))).toBe(true);
    expect(out.trimEnd().endsWith('## assistant (claude-standin)\n\nok: second question')).toBe(true);
    // --at alone still lists the path to the entry; the current leaf marked with it when they are one
    const path = await runCliOk(fixtures.env, ['show', PI_BRANCHED_ID, '--no-index', '--at', '247f70ec']);
    expect(path).not.toContain('on the new branch');
    const atLeaf = await runCliOk(fixtures.env, ['show', PI_BRANCHED_ID, '--no-index', '--tree', '--at', 'e08af530']);
    expect(atLeaf).toContain('e08af530 assistant: ok: on the new branch ← current, --at');
  });
});

/** The CLI as a process on a pseudo-terminal (`script`), so that it would ask for confirmation. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((done, reject) => {
    const cli = [process.execPath, '--import', 'tsx', 'src/cli/run.ts', ...args];
    const quoted = cli.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const p: ChildProcess = spawn('script', ['-qefc', quoted, '/dev/null'], { cwd: ROOT, env });
    let out = '';
    p.stdout?.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => done({ code: code ?? -1, out }));
    // an answer there, should it ask: "y" would revoke
    p.stdin?.write('y\n');
  });
}

describe('token revoke of a key that does not exist', () => {
  it('says no key has that id before asking, on a terminal or not', async () => {
    const db = join(empty, 'tokens.db');
    const env = fixtures.env;
    const created = JSON.parse(await runCliOk(env, ['token', 'create', '--project', 'alpha', '--db', db, '--json'])) as {
      id: string;
    };
    const asked = await onTerminal(['token', 'revoke', 'tok_000000000000', '--db', db], {
      ...process.env,
      HOME: fixtures.home,
      THREADBASE_HOME: join(fixtures.home, '.threadbase'),
    });
    expect(asked.out).not.toContain('Revoke key');
    expect(asked.out).toContain(
      `threadbase: no key with id or prefix tok_000000000000 in ${db} (see threadbase token list --db ${db})`,
    );
    expect(asked.code).toBe(1);
    // without a terminal nor --yes: the unknown id is what is said (it said "pass --yes", exit 2)
    const script = await runCli(env, ['token', 'revoke', 'tok_000000000000', '--db', db]);
    expect(script.code).toBe(1);
    expect(script.err).toBe(
      `threadbase: no key with id or prefix tok_000000000000 in ${db} (see threadbase token list --db ${db})\n`,
    );
    // a key that exists is still refused without a terminal or --yes, and revoked with --yes
    const refused = await runCli(env, ['token', 'revoke', created.id, '--db', db]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('no terminal to confirm on; pass --yes');
    expect(await runCliOk(env, ['token', 'revoke', created.id, '--db', db, '--yes'])).toContain(`revoked ${created.id}`);
  }, 60_000);

  it('token list and revoke on a --db file that is not there say so and make none', async () => {
    const typo = join(empty, 'tokens-typo.db');
    for (const args of [
      ['token', 'list', '--db', typo],
      ['token', 'revoke', 'tok_000000000000', '--db', typo, '--yes'],
    ]) {
      const r = await runCli(fixtures.env, args);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`threadbase: --db ${typo}: no such database (token create makes one)\n`);
      expect(existsSync(typo)).toBe(false);
    }
  });
});
