/**
 * Sub-agents in Gemini CLI 0.61 as the real `gemini` keeps them (test/fixtures/gemini/real-0.61.0-subagent:
 * `invoke_agent` ran the generalist, whose own `invoke_agent` call Gemini CLI refused): a sub-agent's chat
 * is `chats/<main id>/<agent id>.jsonl`, the call that ran it carries `agentId`, and a sub-agent cannot
 * run one of its own (LocalAgentExecutor leaves every agent tool out of a sub-agent's tools). Gemini CLI
 * hands every sub-agent the main session's id as the folder (parentSessionId), so a sub-agent's own
 * sub-agent converted into Gemini CLI goes in the main session's folder too, beside the sub-agent whose
 * call carries its id; read back (whole and through sync's readUnit) under that sub-agent. One written
 * the older way, in `chats/<sub-agent id>/`, reads the same.
 */
import { promises as fs } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { callIds, subAgentTree } from '../helpers/sub-agents.js';
import '../../src/formats/all.js';

const REAL_DIR = resolve('test/fixtures/gemini/real-0.61.0-subagent');
const MAIN = '41dfdf5c-73a4-41db-8fa7-a1ffecb25c29';
const SUB = 'ad0aaf66-f8bc-40ed-ad11-de0dea63b0fe';
const INVOKE = 'invoke_agent__invoke_agent_1795687180321_0';

const parts = (s: Session) =>
  s.entries.flatMap((e) =>
    e.kind === 'message'
      ? e.message.parts.map((p) =>
          p.type === 'tool_call'
            ? `call:${p.name}`
            : p.type === 'tool_result'
              ? `result:${typeof p.content === 'string' ? p.content : ''}${p.isError ? ' (error)' : ''}`
              : p.type === 'text'
                ? `${e.message.role}:${p.text.slice(0, 30)}`
                : p.type,
        )
      : [],
  );

describe('gemini: a sub-agent as the real 0.61.0 keeps it', () => {
  const driver = new GeminiDriver({ home: '/nonexistent', env: { GEMINI_CLI_HOME: REAL_DIR } });

  it('reads it under the main chat, naming the invoke_agent call that carries its id', async () => {
    const list = await driver.listSessions();
    expect(list.map((s) => [s.id, s.parentId ?? null, s.parentToolCallId]).sort()).toEqual(
      [
        [MAIN, null, undefined],
        [SUB, MAIN, INVOKE],
      ].sort(),
    );
    const sub = (await driver.getSession(SUB)) as Session;
    expect(basename(dirname(sub.path as string))).toBe(MAIN);
    expect(sub.meta).toMatchObject({ kind: 'subagent', directories: ['/tmp/gemini-sub/proj'] });
    expect(callIds((await driver.getSession(MAIN)) as Session)).toEqual([INVOKE]);
  });

  it("its own invoke_agent call was refused, and Gemini CLI kept only the refusal: no sub-agent's sub-agent", async () => {
    const sub = (await driver.getSession(SUB)) as Session;
    expect(parts(sub)).toEqual([
      'user:NESTED: count the files',
      // the model's turn with the refused call is recorded without its call; the error answers it
      "result:Unauthorized tool call: 'invoke_agent' is not available to this agent. (error)",
      'call:complete_task',
      'result:Output submitted and task completed.',
    ]);
    const folder = join(REAL_DIR, '.gemini', 'tmp', 'proj', 'chats');
    expect((await fs.readdir(folder)).sort()).toEqual([MAIN, 'session-2026-11-26T09-59-41dfdf5c.jsonl']);
    expect(await fs.readdir(join(folder, MAIN))).toEqual([`${SUB}.jsonl`]);
  });
});

describe('gemini: a sub-agent tree converted into Gemini CLI', () => {
  let home: string;
  let env: DriverEnv;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'tb-gemini-nested-'));
    env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  });
  afterEach(() => fs.rm(home, { recursive: true, force: true }));

  async function writeTree() {
    const project = join(home, 'project');
    await fs.mkdir(project, { recursive: true });
    const tree = subAgentTree(project);
    const [main] = (await convertSessionAll(tree.parent, { to: 'gemini', env, childrenOf: tree.childrenOf })) as WrittenSession[];
    const child = main?.children?.[0];
    const grandchild = child?.children?.[0];
    if (!main || !child?.path || !grandchild?.path) throw new Error(`not written: ${JSON.stringify(main)}`);
    return { main, child: { ...child, path: child.path }, grandchild: { ...grandchild, path: grandchild.path } };
  }

  it("puts the grandchild in the main session's folder beside the sub-agent; read back under the sub-agent, naming its call", async () => {
    const { main, child, grandchild } = await writeTree();
    expect(dirname(grandchild.path)).toBe(dirname(child.path));
    expect(basename(dirname(child.path))).toBe(main.id);
    // the sub-agent's call carries the grandchild's id, as Gemini CLI marks the call that ran one
    const childChat = await fs.readFile(child.path, 'utf8');
    expect(childChat).toContain(`"id":"call_c"`);
    expect(childChat).toContain(`"agentId":"${grandchild.id}"`);
    const driver = new GeminiDriver(env);
    expect(await driver.getSession(grandchild.id)).toMatchObject({ parentId: child.id, parentToolCallId: 'call_c' });
    expect(await driver.getSession(child.id)).toMatchObject({ parentId: main.id, parentToolCallId: 'call_p' });
    // sync reads one file at a time: the same parent and call
    const units = await driver.listUnits();
    const unit = units.find((u) => u.sessionId === grandchild.id);
    expect((await driver.readUnit(unit as (typeof units)[number]))?.session).toMatchObject({
      parentId: child.id,
      parentToolCallId: 'call_c',
    });
    // its version follows the sub-agent chat beside it (where its call is marked), not only the main chat: the
    // agents its calls ran, not its time
    const versionNow = async () => (await new GeminiDriver(env).listUnits()).find((u) => u.sessionId === grandchild.id)?.version;
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(child.path, later, later);
    expect(await versionNow()).toBe(unit?.version);
    await fs.writeFile(child.path, childChat.replace(`"agentId":"${grandchild.id}"`, '"agentId":"someone-else"'));
    expect(await versionNow()).not.toBe(unit?.version);
  });

  it("reads a grandchild written the older way, in the sub-agent's own folder, under the sub-agent too", async () => {
    const { child, grandchild } = await writeTree();
    const older = join(dirname(dirname(child.path)), child.id, basename(grandchild.path));
    await fs.mkdir(dirname(older), { recursive: true });
    await fs.rename(grandchild.path, older);
    expect(await new GeminiDriver(env).getSession(grandchild.id)).toMatchObject({
      parentId: child.id,
      parentToolCallId: 'call_c',
      path: older,
    });
  });
});
