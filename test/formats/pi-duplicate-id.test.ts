/**
 * An entry id met twice in a pi session file: pi indexes entries by id with Map.set, so only the later
 * record is found (parent lookups, the leaf, branch()); threadbase reads the same tree and context, and
 * warns of the duplicate instead of cutting a made-up parentId cycle. A real cycle is still cut.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { PiDriver, sessionDirName } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';

const msg = (id: string, parentId: string | null, text: string) => ({
  type: 'message',
  id,
  parentId,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: text, timestamp: 1 },
});

/** A pi session file of these entries (after its header) in a temp home; the driver and the file. */
async function sessionOf(sessionId: string, entries: object[]): Promise<{ env: DriverEnv; file: string }> {
  const env: DriverEnv = { home: await fs.mkdtemp(join(tmpdir(), 'tb-pi-dup-')), env: {} };
  const dir = join(env.home, '.pi', 'agent', 'sessions', sessionDirName('/work/dup'));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_${sessionId}.jsonl`);
  const header = { type: 'session', version: 3, id: sessionId, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work/dup' };
  await fs.writeFile(file, `${[header, ...entries].map((l) => JSON.stringify(l)).join('\n')}\n`);
  return { env, file };
}

const warningsOf = (s: Session) => (s.warnings ?? []).map((w) => `${basename(w.file)}:${w.line} ${w.message}`);

/** The texts of pi's own context (SessionManager.buildSessionContext) at `leafId`, or at its leaf. */
function piContext(file: string, home: string, leafId?: string): string[] {
  const sm = SessionManager.open(file, join(home, 'unused-session-dir'));
  if (leafId) sm.branch(leafId);
  return sm.buildSessionContext().messages.map((m) => ('content' in m && typeof m.content === 'string' ? m.content : '?'));
}

describe('pi: a duplicated entry id', () => {
  it('reads the later record as pi does, warns of the duplicate, and cuts no cycle', async () => {
    const id = '0190dddd-4444-7000-8000-0000000000d1';
    const { env, file } = await sessionOf(id, [msg('x', 'b', 'x first'), msg('b', 'x', 'b'), msg('x', null, 'x again')]);
    const driver = new PiDriver(env);
    const s = (await driver.getSession(id)) as Session;
    const name = basename(file);
    expect(warningsOf(s)).toEqual([
      `${name}:2 duplicate id x: line 4 has it again and pi finds only that later record by the id; this one left out`,
    ]);
    // pi's tree: x (the later record) a root, b under it; the earlier x is found by no lookup.
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['b', 'x'],
      ['x', null],
    ]);
    expect(s.leafId).toBe('x');
    const sm = SessionManager.open(file, join(env.home, 'unused-session-dir'));
    expect(sm.getLeafId()).toBe('x');
    expect(sm.getChildren('x').map((e) => e.id)).toEqual(['b']);
    expect(sm.getChildren('b')).toEqual([]);

    const ours = async (leafId?: string) =>
      (await driver.getContext(id, leafId ? { leafId } : {})).messages.map((m) => messageText(m));
    expect(piContext(file, env.home)).toEqual(['x again']);
    expect(await ours()).toEqual(piContext(file, env.home));
    expect(piContext(file, env.home, 'b')).toEqual(['x again', 'b']);
    expect(await ours('b')).toEqual(piContext(file, env.home, 'b'));
  });

  it('still cuts a real cycle at its latest entry, and one the later record closes', async () => {
    const id = '0190dddd-4444-7000-8000-0000000000d2';
    const { env, file } = await sessionOf(id, [
      msg('r', null, 'root'),
      msg('c1', 'c2', 'cycle a'),
      msg('c2', 'c1', 'cycle b'),
      // the later x hangs under c, which hangs under x: by id (pi's lookups) a cycle, where pi's walk never ends
      msg('x', null, 'x first'),
      msg('c', 'x', 'c'),
      msg('x', 'c', 'x again'),
    ]);
    const s = (await new PiDriver(env).getSession(id)) as Session;
    const name = basename(file);
    expect(warningsOf(s)).toEqual([
      `${name}:5 duplicate id x: line 7 has it again and pi finds only that later record by the id; this one left out`,
      `${name}:4 parentId cycle (c1 → c2); c2 made a root`,
      `${name}:7 parentId cycle (c → x); x made a root`,
    ]);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['r', null],
      ['c1', 'c2'],
      ['c2', null],
      ['c', 'x'],
      ['x', null],
    ]);
    const driver = new PiDriver(env);
    expect((await driver.getContext(id, { leafId: 'c1' })).messages.map((m) => messageText(m))).toEqual(['cycle b', 'cycle a']);
    expect((await driver.getContext(id)).messages.map((m) => messageText(m))).toEqual(['x again']);
  });
});
