/** The CLI commands of DESIGN.md over pi sessions: sessions, show (--tree), context, convert, fork, branch. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionDirName } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { type CliResult, runCli } from '../helpers/cli.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pi');
const ALL = '0190cccc-3333-7000-8000-000000000003';

async function setup(): Promise<{ env: DriverEnv; file: string }> {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-pi-cli-'));
  const dir = join(home, '.pi', 'agent', 'sessions', sessionDirName('/work/all'));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, `2026-01-01T10-00-00-000Z_${ALL}.jsonl`);
  await fs.copyFile(join(fixtures, 'v3-all-types.jsonl'), file);
  // A damaged line, so warnings show up on stderr with file and line.
  await fs.appendFile(file, '{"type":"message","id":"torn"');
  return { env: { home, env: {} }, file };
}

function run(env: DriverEnv, ...args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

afterEach(() => vi.restoreAllMocks());

describe('threadbase CLI on pi sessions', () => {
  it('sessions --source pi --json', async () => {
    const { env, file } = await setup();
    const r = await run(env, 'sessions', '--source', 'pi', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([
      {
        id: ALL,
        source: 'pi',
        project: '/work/all',
        title: 'All the types',
        createdAt: '2026-01-01T10:00:00.000Z',
        updatedAt: '2026-01-01T10:00:17.000Z',
        messageCount: 8,
        parentId: null,
      },
    ]);
    expect(r.err).toContain(`${file}:19: torn last line`);
  });

  it('show --tree marks the current leaf; show --json has the tree and branches', async () => {
    const { env } = await setup();
    const r = await run(env, 'show', ALL.slice(0, 8), '--tree');
    expect(r.code).toBe(0);
    // the leaf is a record pi does not know (hidden without --all): the message it hangs from is marked
    expect(r.out).toContain('e0000015 user: other way ← current');
    expect(r.out).toMatch(/├─ e0000007 user: Ran `git status`/);
    expect(r.out).toMatch(/│ {2}e0000010 user: injected context/);
    expect(r.out).toMatch(/└─ e0000014 branch summary: Tried compacting\.\n {3}e0000015/);
    expect(r.out.match(/← current/g)).toHaveLength(1);
    const all = await run(env, 'show', ALL.slice(0, 8), '--tree', '--all');
    expect(all.out).toContain('e0000017 (future_thing) ← current');
    expect(all.out).toMatch(/│ {2}e0000009 \(custom\)/);
    const j = JSON.parse((await run(env, 'show', ALL, '--json')).out);
    expect(j.leafId).toBe('e0000017');
    expect(j.entries).toHaveLength(17);
    expect(j.branches.map((b: { leafId: string }) => b.leafId).sort()).toEqual(['e0000013', 'e0000017']);
  });

  it('context --format anthropic words summaries as pi does, at any leaf', async () => {
    const { env } = await setup();
    const r = await run(env, 'context', ALL, '--leaf', 'e0000013', '--format', 'anthropic');
    expect(r.code).toBe(0);
    const req = JSON.parse(r.out);
    expect(req.messages[0]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'The conversation history before this point was compacted into the following summary:\n\n<summary>\nListed files.\n</summary>',
        },
      ],
    });
    expect(req.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    const md = await run(env, 'context', ALL);
    expect(md.out).toContain('The following is a summary of a branch that this conversation came back from');
  });

  it('fork --json and convert --to pi write new files pi opens', async () => {
    const { env, file } = await setup();
    const f = JSON.parse((await run(env, 'fork', ALL, '--at', 'e0000006', '--json')).out);
    expect(f).toMatchObject({ source: 'pi', parentId: ALL });
    const header = JSON.parse((await fs.readFile(f.path, 'utf8')).split('\n')[0] as string);
    expect(header.parentSession).toBe(file);
    expect(SessionManager.open(f.path).buildSessionContext().messages).toHaveLength(4);
    const c = JSON.parse((await run(env, 'convert', ALL, '--to', 'pi', '--at', 'e0000013', '--json')).out);
    expect(c.source).toBe('pi');
    const sm = SessionManager.open(c.path);
    expect(sm.getLeafId()).toBe('e0000013');
    const listed = JSON.parse((await run(env, 'sessions', '--source', 'pi', '--json')).out);
    expect(listed).toHaveLength(3);
    expect(listed.find((s: { id: string }) => s.id === f.id).parentId).toBe(ALL);
    const h = JSON.parse((await run(env, 'handoff', ALL, '--to', 'pi', '--json')).out);
    expect(h.command).toBe(`cd /work/all && pi --session ${h.path}`);
  });

  it('branch --at ENTRY --summary branches in place; without an entry to write it refuses', async () => {
    const { env, file } = await setup();
    const size = (await fs.stat(file)).size;
    const r = await run(
      env,
      'branch',
      ALL,
      '--at',
      'e0000006',
      '--summary',
      'Left the compaction branch.',
      '--message',
      'new way',
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.entries).toHaveLength(2);
    expect(out.entries[0]).toMatch(/^[0-9a-f]{8}$/);
    expect((await fs.stat(file)).size).toBeGreaterThan(size);
    const sm = SessionManager.open(file);
    expect(sm.getLeafId()).toBe(out.leafId);
    expect(
      sm
        .getBranch()
        .slice(-2)
        .map((e) => e.type),
    ).toEqual(['branch_summary', 'message']);
    const tree = (await run(env, 'show', ALL, '--tree')).out;
    expect(tree).toContain(`${out.leafId} user: new way ← current`);
    const bad = await run(env, 'branch', ALL, '--at', 'e0000006');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--summary and\/or --message/);
    const missing = await run(env, 'branch', ALL, '--at', 'nope', '--summary', 'x');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('nope');
  });
});

describe('a pi session file whose header line is damaged', () => {
  const ID = '2026-01-01T00-00-00-000Z_badbad';

  async function damagedHeader(): Promise<{ env: DriverEnv; file: string }> {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-pi-bad-header-'));
    const dir = join(home, '.pi', 'agent', 'sessions', sessionDirName('/work/bad'));
    await fs.mkdir(dir, { recursive: true });
    const file = join(dir, `${ID}.jsonl`);
    const record = {
      type: 'message',
      id: 'a1',
      parentId: null,
      timestamp: '2026-01-01T00:00:05.000Z',
      message: { role: 'user', content: 'hello there', timestamp: 1 },
    };
    await fs.writeFile(file, `{"type":"session","version":3,"id":"bad\n${JSON.stringify(record)}\n`);
    return { env: { home, env: { HOME: home } }, file };
  }

  it('is listed under the id and date its name gives, and that id opens, from the files and from the index', async () => {
    const { env, file } = await damagedHeader();
    try {
      for (const index of [['--no-index'], []]) {
        const listed = await run(env, 'sessions', '--source', 'pi', '--json', ...index);
        expect(listed.code, listed.err).toBe(0);
        expect(JSON.parse(listed.out)).toMatchObject([{ id: ID, createdAt: '2026-01-01T00:00:00.000Z', messageCount: 1 }]);

        const shown = await run(env, 'show', ID, ...index);
        expect(shown.code, shown.err).toBe(0);
        expect(shown.out).toContain('a1 user: hello there');
        expect(shown.err).toContain(`${file}:1: no pi session header on the first line`);

        // then the same through the index
        if (index.length) expect((await run(env, 'sync')).code).toBe(0);
      }
    } finally {
      await fs.rm(env.home, { recursive: true, force: true });
    }
  });
});
