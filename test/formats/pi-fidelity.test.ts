/**
 * pi fidelity against pi 0.73.1's own code (SessionManager, SettingsManager, pi-ai): files pi
 * resumes without damage, the sessionDir setting, OpenAI Responses tool-call ids, thinking
 * signatures by api.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { PiDriver, sessionDirName } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';

async function home(): Promise<DriverEnv> {
  return { home: await fs.mkdtemp(join(tmpdir(), 'tb-pi-fid-')), env: {} };
}

/** Writes pi records (header first) as a session file under the env's default session dir. */
async function installRecords(env: DriverEnv, records: object[], cwd = '/work/x'): Promise<{ file: string; id: string }> {
  const id = (records[0] as { id: string }).id;
  const dir = join(env.home, '.pi', 'agent', 'sessions', sessionDirName(cwd));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  await fs.writeFile(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return { file, id };
}

const T = '2026-01-01T00:00:00.000Z';
const header = (id: string) => ({ type: 'session', version: 3, id, timestamp: T, cwd: '/work/x' });
const zeroUsage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** What pi's SessionManager does on `pi --session FILE` and one answered prompt. */
function resumeWithPi(file: string): void {
  const sm = SessionManager.open(file);
  sm.appendMessage({ role: 'user', content: [{ type: 'text', text: 'next' }], timestamp: Date.now() });
  sm.appendMessage({
    role: 'assistant',
    content: [{ type: 'text', text: 'answer' }],
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-x',
    usage: zeroUsage,
    stopReason: 'stop',
    timestamp: Date.now(),
  });
}

async function linesOf(file: string): Promise<{ type: string; id: string }[]> {
  return (await fs.readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; id: string });
}

async function expectUndamaged(file: string): Promise<void> {
  const lines = await linesOf(file);
  expect(lines.filter((l) => l.type === 'session')).toHaveLength(1);
  const ids = lines.filter((l) => l.type !== 'session').map((l) => l.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('files without an answer (F1)', () => {
  const userOnly: Entry[] = [
    {
      id: 'u1',
      parentId: null,
      timestamp: T,
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: 'hello' }] },
    },
  ];

  it('writeSession of a user-only session: pi resumes it without writing it twice, and the context is unchanged', async () => {
    const env = await home();
    const d = new PiDriver(env);
    const s: Session = {
      id: 'x',
      source: 'threadbase',
      project: '/work/x',
      createdAt: T,
      updatedAt: T,
      messageCount: 1,
      entries: userOnly,
    };
    const info = await d.writeSession(s);
    expect(JSON.stringify(info.meta?.warnings)).toContain('no assistant message');
    const ctx = await d.getContext(info.id);
    expect(ctx.messages.map((m) => m.role)).toEqual(['user']);
    resumeWithPi(info.path as string);
    await expectUndamaged(info.path as string);
    const after = (await d.getSession(info.id)) as Session;
    expect(after.warnings).toEqual([]);
  });

  it('fork --at the first user entry: pi resumes the fork without writing it twice', async () => {
    const env = await home();
    const { id } = await installRecords(env, [
      header('019a0000-0000-7000-8000-0000000000f1'),
      { type: 'model_change', id: 'm0000001', parentId: null, timestamp: T, provider: 'anthropic', modelId: 'claude-x' },
      {
        type: 'message',
        id: 'a0000001',
        parentId: 'm0000001',
        timestamp: T,
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 },
      },
      {
        type: 'message',
        id: 'a0000002',
        parentId: 'a0000001',
        timestamp: T,
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'yo' }],
          api: 'anthropic-messages',
          provider: 'anthropic',
          model: 'claude-x',
          usage: zeroUsage,
          stopReason: 'stop',
          timestamp: 2,
        },
      },
    ]);
    const d = new PiDriver(env);
    const fork = await d.forkSession(id, { at: 'a0000001' });
    const recs = await linesOf(fork.path as string);
    // the added answer keeps the session's model, so pi restores it
    expect(recs.at(-1)).toMatchObject({
      type: 'message',
      parentId: 'a0000001',
      message: { role: 'assistant', stopReason: 'aborted', provider: 'anthropic', model: 'claude-x', content: [] },
    });
    const sm = SessionManager.open(fork.path as string);
    expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await d.getContext(fork.id)).messages.map((m) => m.role)).toEqual(['user']);
    resumeWithPi(fork.path as string);
    await expectUndamaged(fork.path as string);
  });

  it('a fork with an answer is written as it was', async () => {
    const env = await home();
    const d = new PiDriver(env);
    const s: Session = {
      id: 'x',
      source: 'threadbase',
      project: '/work/x',
      createdAt: T,
      updatedAt: T,
      messageCount: 2,
      entries: [
        ...userOnly,
        {
          id: 'a1',
          parentId: 'u1',
          timestamp: T,
          kind: 'message',
          message: { role: 'assistant', parts: [{ type: 'text', text: 'hi' }] },
        },
      ],
    };
    const info = await d.writeSession(s);
    expect((await linesOf(info.path as string)).map((l) => l.id)).toEqual([info.id, 'u1', 'a1']);
  });
});

describe('the sessionDir setting (F4)', () => {
  const answered = (id: string) => [
    header(id),
    {
      type: 'message',
      id: 'a0000001',
      parentId: null,
      timestamp: T,
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 },
    },
    {
      type: 'message',
      id: 'a0000002',
      parentId: 'a0000001',
      timestamp: T,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'yo' }],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-x',
        usage: zeroUsage,
        stopReason: 'stop',
        timestamp: 2,
      },
    },
  ];

  it('reads and writes where the global settings.json puts sessions (~ expanded), as pi lists them', async () => {
    const env = await home();
    const agent = join(env.home, '.pi', 'agent');
    await fs.mkdir(join(env.home, 'custom'), { recursive: true });
    await fs.mkdir(agent, { recursive: true });
    await fs.writeFile(join(agent, 'settings.json'), JSON.stringify({ sessionDir: '~/custom' }));
    const id = '019a0000-0000-7000-8000-0000000000f4';
    await fs.writeFile(
      join(env.home, 'custom', `2026-01-01T00-00-00-000Z_${id}.jsonl`),
      `${answered(id)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    const d = new PiDriver(env, { cwd: join(env.home, 'somewhere') });
    expect((await d.listSessions()).map((s) => s.id)).toEqual([id]);
    const copy = await d.writeSession((await d.getSession(id)) as Session);
    expect(copy.path?.startsWith(join(env.home, 'custom', '2'))).toBe(true);
    // pi itself, given that dir (main.js: settingsManager.getSessionDir()), lists both
    const listed = await SessionManager.list('/work/x', join(env.home, 'custom'));
    expect(listed.map((s) => s.id).sort()).toEqual([id, copy.id].sort());
  });

  it("a project's .pi/settings.json wins over the global one; a relative dir is the project's", async () => {
    const env = await home();
    const agent = join(env.home, '.pi', 'agent');
    const project = join(env.home, 'proj');
    await fs.mkdir(agent, { recursive: true });
    await fs.mkdir(join(project, '.pi'), { recursive: true });
    await fs.writeFile(join(agent, 'settings.json'), JSON.stringify({ sessionDir: '/nonexistent/global' }));
    await fs.writeFile(join(project, '.pi', 'settings.json'), JSON.stringify({ sessionDir: '.pi/sessions' }));
    const d = new PiDriver(env, { cwd: project });
    const s: Session = {
      id: 'x',
      source: 'threadbase',
      project,
      createdAt: T,
      updatedAt: T,
      messageCount: 2,
      entries: [
        {
          id: 'u1',
          parentId: null,
          timestamp: T,
          kind: 'message',
          message: { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        },
        {
          id: 'a1',
          parentId: 'u1',
          timestamp: T,
          kind: 'message',
          message: { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
        },
      ],
    };
    const w = await d.writeSession(s);
    expect(w.path?.startsWith(join(project, '.pi', 'sessions', '2'))).toBe(true);
    expect((await d.listSessions()).map((l) => l.id)).toEqual([w.id]);
    // the environment's flat dir still comes first, as in pi
    const flat = new PiDriver({ home: env.home, env: { PI_CODING_AGENT_SESSION_DIR: '~/flat' } }, { cwd: project });
    expect(flat.sessionDirFor(project)).toBe(join(env.home, 'flat'));
    expect(await flat.listSessions()).toEqual([]);
  });
});
