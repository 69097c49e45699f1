/**
 * The CLI contract of DESIGN.md, checked over two small in-test formats registered like any agent's,
 * so it holds whatever the real formats do.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerFormat } from '../../src/formats/registry.js';
import { applyFilter, DriverBase } from '../../src/formats/shared/base.js';
import type { DriverCapabilities, ForkOptions, SessionFilter } from '../../src/model/driver.js';
import { countMessages } from '../../src/model/tree.js';
import type { Entry, Session, SessionInfo } from '../../src/model/types.js';
import { type CliResult, runCli } from '../helpers/cli.js';

const caps: DriverCapabilities = {
  read: true,
  write: true,
  append: true,
  fork: true,
  branch: false,
  delete: false,
  title: false,
  search: false,
};

class ListDriver extends DriverBase {
  readonly capabilities = caps;
  sessions = new Map<string, Session>();
  constructor(
    readonly name: string,
    private failList = false,
  ) {
    super();
  }
  info(s: Session): SessionInfo {
    const { entries: _e, leafId: _l, warnings: _w, ...info } = s;
    return { ...info, messageCount: countMessages(s.entries) };
  }
  async listSessions(filter?: SessionFilter) {
    if (this.failList) throw new Error('store is locked');
    return applyFilter(
      [...this.sessions.values()].map((s) => this.info(s)),
      filter,
    );
  }
  async getSession(id: string) {
    return this.sessions.get(id);
  }
  async writeSession(s: Session) {
    const id = `${this.name}-${this.sessions.size + 1}`;
    const copy = { ...s, id, source: this.name, path: `/store/${id}` };
    this.sessions.set(id, copy);
    return this.info(copy);
  }
  async forkSession(id: string, opts: ForkOptions = {}) {
    const s = (await this.requireSession(id)) as Session;
    const cut = opts.at ? s.entries.slice(0, s.entries.findIndex((e) => e.id === opts.at) + 1) : s.entries;
    const w = await this.writeSession({ ...s, entries: cut, parentId: id });
    return w;
  }
  resumeCommand(s: SessionInfo) {
    return `${this.name}-agent --resume ${s.id}`;
  }
}

const t = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
const m = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string): Entry => ({
  id,
  parentId,
  timestamp: t(id.length),
  kind: 'message',
  message: { role, parts: [{ type: 'text', text }] },
});

const alpha = new ListDriver('fixa');
const beta = new ListDriver('fixb');
const broken = new ListDriver('fixbroken', true);

beforeAll(() => {
  registerFormat('fixa', () => alpha);
  registerFormat('fixb', () => beta);
  registerFormat('fixbroken', () => broken);
  const base = { source: 'fixa', project: '/p/one', createdAt: t(0), messageCount: 0 };
  alpha.sessions.set('abc111', {
    ...base,
    id: 'abc111',
    title: 'first',
    updatedAt: t(5),
    entries: [m('u1', null, 'user', 'hello'), m('a1', 'u1', 'assistant', 'hi'), m('a2', 'u1', 'assistant', 'other branch')],
  });
  alpha.sessions.set('abc222', {
    ...base,
    id: 'abc222',
    project: '/p/two',
    title: 'second',
    updatedAt: t(9),
    entries: [m('x', null, 'user', 'x')],
  });
});

function run(...args: string[]): Promise<CliResult> {
  return runCli({ home: '/nonexistent', env: {} }, args);
}

afterEach(() => vi.restoreAllMocks());

describe('generic CLI contract', () => {
  it('--version prints the package version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await run(flag);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(version);
    }
  });

  it('sessions --json prints the documented shape, newest first, and a failing store only warns', async () => {
    const r = await run('sessions', '--json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as Record<string, unknown>[];
    const ours = rows.filter((x) => x.source === 'fixa');
    expect(ours.map((x) => x.id)).toEqual(['abc222', 'abc111']);
    expect(Object.keys(ours[1] as object).sort()).toEqual([
      'createdAt',
      'id',
      'messageCount',
      'parentId',
      'project',
      'source',
      'title',
      'updatedAt',
    ]);
    expect(ours[1]).toMatchObject({ messageCount: 3, parentId: null, project: '/p/one' });
    expect(r.err).toMatch(/fixbroken: store is locked/);
    const filtered = JSON.parse((await run('sessions', '--source', 'fixa', '--project', '/p/two', '--json')).out);
    expect(filtered.map((x: { id: string }) => x.id)).toEqual(['abc222']);
  });

  it('names a session by unique prefix and refuses an ambiguous one', async () => {
    const ok = await run('context', 'abc1', '--format', 'markdown');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('other branch');
    expect(ok.out).not.toMatch(/## assistant\n\nhi\n/);
    const leaf = await run('context', 'abc1', '--leaf', 'a1');
    expect(leaf.out).toContain('hi');
    const amb = await run('show', 'abc');
    expect(amb.code).toBe(1);
    expect(amb.err).toMatch(/matches 2 sessions/);
    const none = await run('show', 'zzz');
    expect(none.err).toMatch(/session not found: zzz/);
  });

  it('show --tree marks the current leaf', async () => {
    const r = await run('show', 'abc111', '--tree');
    expect(r.out).toMatch(/a2 +assistant: other branch ← current/);
    expect(r.out).toMatch(/a1 +assistant: hi\n/);
  });

  it('convert writes the current branch; --all-branches one session per branch; handoff prints the resume command', async () => {
    const one = JSON.parse((await run('convert', 'abc111', '--to', 'fixb', '--json')).out);
    expect(one).toEqual({ id: expect.stringMatching(/^fixb-/), source: 'fixb', path: expect.stringMatching(/^\/store\//) });
    expect(beta.sessions.get(one.id)?.entries.map((e) => e.id)).toEqual(['u1', 'a2']);
    const all = JSON.parse((await run('convert', 'abc111', '--to', 'fixb', '--all-branches', '--json')).out);
    expect(all).toHaveLength(2);
    expect(beta.sessions.get(all[0].id)?.entries.map((e) => e.id)).toEqual(['u1', 'a2']);
    expect(beta.sessions.get(all[1].id)?.entries.map((e) => e.id)).toEqual(['u1', 'a1']);
    const h = await run('handoff', 'abc111', '--to', 'fixb', '--at', 'a1');
    expect(h.out).toMatch(/resume it with:\n {2}fixb-agent --resume fixb-\d+/);
  });

  it('fork --at writes a child session', async () => {
    const r = JSON.parse((await run('fork', 'abc111', '--at', 'u1', '--json')).out);
    expect(r.parentId).toBe('abc111');
    expect(alpha.sessions.get(r.id)?.entries.map((e) => e.id)).toEqual(['u1']);
  });
});
