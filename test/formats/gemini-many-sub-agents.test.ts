/**
 * A Gemini CLI main chat that ran many sub-agents (`chats/<main id>/<agent id>.jsonl`, the main chat's
 * invoke_agent calls carrying `agentId`): listing the units for sync and reading each does work that
 * grows with the number of chats, not with its square (each unit's version is one digest of its folder,
 * not every chat beside it; a read finds the spawning call in the main chat without reading the chats
 * beside it). A sub-agent's title is its task (the first line of its prompt), not the complete_task
 * JSON Gemini CLI saves as its summary.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';

const MAIN = '0c0c0c0c-0000-4000-8000-000000000000';
const agentId = (i: number) => `a9e9e9e9-0000-4000-8000-${String(i).padStart(12, '0')}`;
const callId = (i: number) => `invoke_agent__invoke_agent_${i}`;
const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, s)).toISOString();

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-many-'));
  env = { home: root, env: { GEMINI_CLI_HOME: root } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/**
 * A main chat whose one reply ran `n` sub-agents, each chat as LocalAgentExecutor writes it (its
 * prompt, its complete_task call, `$set.summary` the result's JSON); the last one was run by the one
 * before it (its call carries the id), as a sub-agent's own sub-agent is kept beside it.
 */
async function home(n: number): Promise<string> {
  const chats = join(root, '.gemini', 'tmp', 'proj', 'chats');
  await fs.mkdir(join(chats, MAIN), { recursive: true });
  await fs.writeFile(join(root, '.gemini', 'tmp', 'proj', '.project_root'), '/work/proj');
  const invoke = (i: number) => ({
    id: callId(i),
    name: 'invoke_agent',
    args: { agent_name: 'generalist', prompt: `task ${i}: count the files\nin every folder` },
    result: [{ functionResponse: { id: callId(i), name: 'invoke_agent', response: { output: `done ${i}` } } }],
    status: 'success',
    timestamp: at(2),
    agentId: agentId(i),
  });
  await fs.writeFile(
    join(chats, 'session-2026-11-26T10-00-0c0c0c0c.jsonl'),
    jsonl([
      { sessionId: MAIN, projectHash: 'h', startTime: at(0), lastUpdated: at(3), kind: 'main' },
      { id: 'u1', timestamp: at(1), type: 'user', content: [{ text: 'count everything' }] },
      {
        id: 'g1',
        timestamp: at(2),
        type: 'gemini',
        content: '',
        thoughts: [],
        model: 'gemini-3.1-pro-preview',
        toolCalls: Array.from({ length: n - 1 }, (_, i) => invoke(i)),
      },
    ]),
  );
  for (let i = 0; i < n; i++) {
    const nested = i === n - 2 ? { toolCalls: [invoke(n - 1)] } : {};
    await fs.writeFile(
      join(chats, MAIN, `${agentId(i)}.jsonl`),
      jsonl([
        {
          sessionId: agentId(i),
          projectHash: 'h',
          startTime: at(2),
          lastUpdated: at(2),
          kind: 'subagent',
          directories: ['/work/proj'],
        },
        { id: `s${i}u`, timestamp: at(2), type: 'user', content: [{ text: `task ${i}: count the files\nin every folder` }] },
        { id: `s${i}g`, timestamp: at(2), type: 'gemini', content: '', thoughts: [], model: 'gemini-3-flash-preview', ...nested },
        { $set: { summary: `{\n  "response": "there are ${i} files"\n}` } },
      ]),
    );
  }
  return chats;
}

describe('gemini: a main chat that ran many sub-agents', () => {
  it('lists units whose versions do not grow with the number of chats beside them, and still move when one changes', async () => {
    await home(10);
    const small = await new GeminiDriver(env).listUnits();
    await fs.rm(root, { recursive: true, force: true });
    await fs.mkdir(root);
    const chats = await home(300);
    const driver = new GeminiDriver(env);
    const units = await driver.listUnits();
    expect(units).toHaveLength(301);
    const longest = (us: typeof units) => Math.max(...us.map((u) => (u.version ?? '').length));
    // every chat beside it was in each version: 300 sizes and times in each of 300 versions
    // (the main chat's size has more digits)
    expect(longest(units)).toBeLessThan(longest(small) + 10);
    // a sub-agent's spawner may be any chat beside it: one of them running an agent moves the others' versions;
    // one growing without (a turn, its time) does not
    const versionOf5 = async () => (await driver.listUnits()).find((u) => u.sessionId === agentId(5))?.version;
    const before = units.find((u) => u.sessionId === agentId(5))?.version;
    await fs.appendFile(join(chats, MAIN, `${agentId(7)}.jsonl`), '{"$set":{"lastUpdated":"2026-11-26T11:00:00.000Z"}}\n');
    expect(await versionOf5()).toBe(before);
    const call = { id: 'call-nested', name: 'invoke_agent', args: { prompt: 'more' }, status: 'success', agentId: agentId(5) };
    await fs.appendFile(
      join(chats, MAIN, `${agentId(7)}.jsonl`),
      jsonl([{ id: 's7g2', timestamp: at(4), type: 'gemini', content: '', toolCalls: [call] }]),
    );
    expect(await versionOf5()).not.toBe(before);
  });

  it('reads every unit with a number of file looks that grows with the number of chats, not its square', async () => {
    const n = 120;
    await home(n);
    const driver = new GeminiDriver(env);
    const units = await driver.listUnits();
    const stat = vi.spyOn(fs, 'stat');
    try {
      const read = [];
      for (const u of units) read.push((await driver.readUnit(u))?.session);
      // each sub-agent under the chat whose call ran it: the main chat's, the last one's the one before it
      const byId = new Map(read.map((s) => [s?.id, s]));
      expect(byId.get(agentId(3))).toMatchObject({ parentId: MAIN, parentToolCallId: callId(3) });
      expect(byId.get(agentId(n - 1))).toMatchObject({ parentId: agentId(n - 2), parentToolCallId: callId(n - 1) });
      // a read looked at every chat beside it: n × n
      expect(stat.mock.calls.length).toBeLessThanOrEqual(3 * n);
    } finally {
      stat.mockRestore();
    }
  });

  it("titles a sub-agent by its task's first line, not by the complete_task JSON of its summary", async () => {
    await home(3);
    const driver = new GeminiDriver(env);
    const subs = await driver.listSessions({ parentId: MAIN });
    expect(subs.find((s) => s.id === agentId(0))?.title).toBe('task 0: count the files');
    // the real 0.61.0's sub-agent chat
    const real = resolve('test/fixtures/gemini/real-0.61.0-subagent');
    const realDriver = new GeminiDriver({ home: '/nonexistent', env: { GEMINI_CLI_HOME: real } });
    expect((await realDriver.getSession('ad0aaf66-f8bc-40ed-ad11-de0dea63b0fe'))?.title).toBe('NESTED: count the files');
  });

  it('a sub-agent chat with no user turn is titled by its result, taken out of the JSON', async () => {
    const chats = await home(2);
    const file = join(chats, MAIN, `${agentId(0)}.jsonl`);
    const lines = (await fs.readFile(file, 'utf8')).split('\n').filter((l) => l && !l.includes('"type":"user"'));
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    const s = await new GeminiDriver(env).getSession(agentId(0));
    expect(s?.title).toBe('there are 0 files');
  });
});
