/**
 * What a new user met walking through the CLI on real sessions (fixtures copied where the agents keep
 * them) that was unclear or inconsistent, each as it reads now.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringWidth } from '../../src/cli/text-width.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';
import { helloSession } from '../helpers/sessions.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  // pi's and codex's fixtures hold sessions whose ids begin alike (01a204ad-…)
  ({ home: root, env } = await fixtureHome({ prefix: 'tb-walk-polish-', agents: ['pi', 'codex'], fixtures: ['pi'] }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an id prefix several sessions share', () => {
  // the candidates read `pi:01a2…`, which no command takes as an id: the message said no way on
  it.each([['show'], ['context'], ['export']])('%s names the way to one of them', async (command) => {
    const r = await runCli(env, [command, '01a204a']);
    expect(r.err).toMatch(
      /^threadbase: id prefix "01a204a" matches \d sessions: .*codex:01a204ad.*; give more of the id, or name its agent: --source (pi\|codex|codex\|pi)\n$/,
    );
    expect(r.code).toBe(1);
  });

  it('within one agent (--source given) asks for more of the id only', async () => {
    const r = await runCli(env, ['show', '01a204ad', '--source', 'pi']);
    expect(r.err).toMatch(/matches 2 sessions: pi:01a204ad-[^,]+, pi:01a204ad-[^,]+; give more of the id\n$/);
    expect(r.code).toBe(1);
  });
});

describe('push that finds no session', () => {
  it('says so, naming the option that left none (a mistyped --project read as a push done)', async () => {
    const tokens = new MemoryTokenStore();
    const { key } = await tokens.createToken('p');
    const server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => undefined });
    try {
      const nope = join(root, 'no-such-project');
      const r = await runCli(env, ['push', '--to', server.url, '--key', key, '--project', nope]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe('pushed 0 new and 0 changed sessions (0 entries); 0 unchanged\n');
      expect(r.err).toContain(`threadbase: warning: nothing to push: no session of the local index matches --project ${nope}\n`);
      const empty = await runCli(env, ['push', '--to', server.url, '--key', key, '--from', 'memory:', '--json']);
      expect(empty.code, empty.err).toBe(0);
      expect(JSON.parse(empty.out)).toMatchObject({ sessions: 0 });
      expect(empty.err).toBe('threadbase: warning: nothing to push: the --from store holds no sessions\n');
    } finally {
      await server.close();
    }
  });
});

describe('ui --no-sync beside --store', () => {
  // only the local index is synced: the option was passed over unsaid, and the viewer served the store
  it('is refused (exit 2) before anything is served, as push refuses it beside --from', async () => {
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/run.ts', 'ui', '--store', 'memory:', '--no-sync', '--no-open', '--port', '0'],
        { cwd: join(import.meta.dirname, '..', '..'), env: { ...process.env, ...env.env } },
      );
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => p.kill('SIGTERM'), 15_000);
      p.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    expect(r.stderr).toBe(
      'threadbase: --no-sync is for the local index, which ui syncs first and follows; --store memory: is shown as it is: leave out --no-sync\n',
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  }, 30_000);

  it("--store's help names a team server, which it opens", async () => {
    const r = await runCli(env, ['ui', '--help']);
    expect(r.out).toMatch(/--store <url>\s+http\(s\):\/\/KEY@host \(a team server\), postgres/);
  });
});

describe('token list and revoke finding no key', () => {
  // a key made with `--db team.db` is not found without it: the answer named no database
  it('name the database they looked in', async () => {
    const index = join(env.env.THREADBASE_HOME ?? '', 'index.db');
    const none = await runCli(env, ['token', 'list']);
    expect(none.err).toBe(`threadbase: no keys in ${index}\n`);
    expect(none.code).toBe(0);
    const team = join(root, 'team.db');
    const made = await runCli(env, ['token', 'create', '--project', 'p', '--db', team, '--json']);
    expect(made.code, made.err).toBe(0);
    const unknown = await runCli(env, ['token', 'revoke', 'tok_000000000000', '--yes']);
    expect(unknown.err).toBe(`threadbase: no key with id or prefix tok_000000000000 in ${index} (see threadbase token list)\n`);
    expect(unknown.code).toBe(1);
    const other = await runCli(env, ['token', 'list', '--project', 'q', '--db', team]);
    expect(other.err).toBe(`threadbase: no keys for project q in ${team}\n`);
  });
});

/** Runs `fn` with stdout taken for a terminal `columns` wide. */
async function onTerminal<T>(columns: number, fn: () => Promise<T>): Promise<T> {
  const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  const cols = Object.getOwnPropertyDescriptor(process.stdout, 'columns');
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  Object.defineProperty(process.stdout, 'columns', { value: columns, configurable: true });
  try {
    return await fn();
  } finally {
    if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
    if (cols) Object.defineProperty(process.stdout, 'columns', cols);
    else delete (process.stdout as { columns?: number }).columns;
  }
}

describe('show on a narrow terminal', () => {
  // each entry's text was cut at 70 columns whatever the terminal: on 40 its lines wrapped under the tree
  const entryLines = (out: string) => out.split('\n\n')[1]?.split('\n').filter(Boolean) ?? [];

  it.each([[[]], [['--tree']]])('fits each entry line %j in the terminal, the current mark kept', async (args) => {
    const r = await onTerminal(40, () => runCli(env, ['show', PI_TOOL_CALL_ID, ...args]));
    expect(r.code, r.err).toBe(0);
    const lines = entryLines(r.out);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(40);
    expect(lines.some((l) => l.includes('…'))).toBe(true);
    if (args.length) expect(lines.at(-1)).toMatch(/… ← current$/);
  });

  it('takes $COLUMNS over the terminal width, and in a pipe cuts nothing more than before', async () => {
    const narrow = await onTerminal(200, () => runCli({ ...env, env: { ...env.env, COLUMNS: '36' } }, ['show', PI_TOOL_CALL_ID]));
    for (const l of entryLines(narrow.out)) expect(stringWidth(l), l).toBeLessThanOrEqual(36);
    // sessions cuts its titles to $COLUMNS as well
    const listed = await onTerminal(200, () => runCli({ ...env, env: { ...env.env, COLUMNS: '85' } }, ['sessions']));
    const rows = listed.out.split('\n').filter((l) => l && !l.includes('(child of'));
    for (const l of rows) expect(stringWidth(l), l).toBeLessThanOrEqual(85);
    expect(rows.some((l) => l.endsWith('…'))).toBe(true);
    const piped = await runCli({ ...env, env: { ...env.env, COLUMNS: '36' } }, ['show', PI_TOOL_CALL_ID, '--tree']);
    expect(entryLines(piped.out).at(-1)).toMatch(/ assistant: Tool finished: \(no output\) ← current$/);
  });
});

describe('push and convert say what they do', () => {
  it("push counts one session and one entry in the singular ('1 changed sessions (1 entries)')", async () => {
    const tokens = new MemoryTokenStore();
    const { key } = await tokens.createToken('p');
    const server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => undefined });
    const file = join(root, 'one.db');
    const store = openSqliteStore(file);
    await store.writeSession(helloSession('one'));
    await store.close();
    try {
      const r = await runCli(env, ['push', '--to', server.url, '--key', key, '--from', `sqlite:${file}`]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe('pushed 1 new and 0 changed session (1 entry); 0 unchanged\n');
    } finally {
      await server.close();
    }
  });

  it('the help names where push reads from, and how convert --from takes a key', async () => {
    expect((await runCli(env, ['push', '--help'])).out).toMatch(
      /the local index's\s+unless\s+--from\s+or\s+--source\s+names\s+others/,
    );
    expect((await runCli(env, ['convert', '--help'])).out).toMatch(
      /http\(s\):\/\/KEY@host\s+of\s+a\s+team\s+server\s+\(or\s+the\s+key/,
    );
  });
});

describe('serve and ui on a port in use', () => {
  // Node's "listen EADDRINUSE: address already in use 127.0.0.1:P" named neither the option nor the way out
  it.each([[['serve', '--db', 'memory:']], [['ui', '--store', 'agents', '--no-open']]])(
    '%j says another server listens there and which option to change',
    async (args) => {
      const busy = createServer();
      await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
      const port = (busy.address() as { port: number }).port;
      try {
        const r = await runCli(env, [...args, '--port', String(port)]);
        expect(r.err).toBe(
          `threadbase: cannot listen on 127.0.0.1:${port}: another server listens there; give another --port (0: any free one)\n`,
        );
        expect(r.code).toBe(1);
      } finally {
        await new Promise((done) => busy.close(done));
      }
    },
  );
});

describe('token revoke', () => {
  // a session is named by the start of its id; a key's id start (tok_709b) was "no key with id or prefix"
  it('takes the start of a key id, as unique, and refuses one several ids share', async () => {
    const db = join(root, 'revoke.db');
    const make = async () =>
      (JSON.parse((await runCli(env, ['token', 'create', '--project', 'p', '--db', db, '--json'])).out) as { id: string }).id;
    const id = await make();
    await make();
    const shared = await runCli(env, ['token', 'revoke', 'tok_', '--db', db, '--yes']);
    expect(shared.err).toMatch(/^threadbase: tok_ matches several keys \(tok_\w+, tok_\w+\); give the id\n$/);
    expect(shared.code).toBe(1);
    const r = await runCli(env, ['token', 'revoke', id.slice(0, 10), '--db', db, '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ id, revokedAt: expect.any(String) });
  });
});
