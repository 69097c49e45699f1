/**
 * A Cline sub-agent's call: Cline records none with the sub-agent, so the reader takes the
 * `spawn_agent` call whose task is its first prompt from the session that ran it (origin.parentThreadId):
 * the root's messages, or another sub-agent's beside them for a sub-agent's own sub-agent.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

const ROOT = '1795666477967_abcde';
const A = 'agent_1795666478619_aaaaaa';
const B = 'agent_1795666478900_bbbbbb';

const spawnTurn = (id: string, callId: string, task: string, ts: number) => [
  { id: `${id}-u`, role: 'user', content: [{ type: 'text', text: id === 'root' ? 'SPAWN' : task }], ts },
  {
    id: `${id}-a`,
    role: 'assistant',
    content: [{ type: 'tool_use', id: callId, name: 'spawn_agent', input: { systemPrompt: 'be brief', task: `${task} inner` } }],
    ts: ts + 10,
  },
];

const subagentDoc = (agentId: string, parentThreadId: string, messages: unknown[]) => ({
  version: 1,
  agent: 'subagent',
  sessionId: `${ROOT}__${agentId}`,
  taskType: 'subagent_task',
  origin: { source: 'cli', mode: 'subagent', sessionId: `${ROOT}__${agentId}`, parentThreadId, subagent: agentId },
  messages,
});

describe("a sub-agent's own sub-agent", () => {
  it('is linked to the spawn_agent call in the sub-agent that ran it', async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-subs-'));
    homes.push(home);
    const dir = join(home, 'data', 'sessions', ROOT);
    await fs.mkdir(dir, { recursive: true });
    const ts = 1795666478000;
    await fs.writeFile(
      join(dir, `${ROOT}.messages.json`),
      JSON.stringify({ version: 1, agent: 'lead', sessionId: ROOT, messages: spawnTurn('root', 'call-root', 'task', ts) }),
    );
    // A ran "task inner" (the root's call) and spawned B with "task inner inner"
    await fs.writeFile(
      join(dir, `${A}.messages.json`),
      JSON.stringify(subagentDoc(A, ROOT, spawnTurn('a', 'call-a', 'task inner', ts + 700))),
    );
    await fs.writeFile(
      join(dir, `${B}.messages.json`),
      JSON.stringify(
        subagentDoc(B, `${ROOT}__${A}`, [
          { id: 'b-u', role: 'user', content: [{ type: 'text', text: 'task inner inner' }], ts: ts + 950 },
        ]),
      ),
    );
    const driver = new ClineDriver({ home, env: { CLINE_DATA_DIR: join(home, 'data') } });
    const a = await driver.getSession(`${ROOT}__${A}`);
    const b = await driver.getSession(`${ROOT}__${B}`);
    expect([a?.parentId, a?.parentToolCallId]).toEqual([ROOT, 'call-root']);
    expect([b?.parentId, b?.parentToolCallId]).toEqual([`${ROOT}__${A}`, 'call-a']);
  });
});
