/**
 * Side chains (sub-agent work kept inside a session: Copilot CLI's runs, the Agent SDK's sub-agent
 * messages) converted into a target that keeps sub-agents apart: each one goes as the target's
 * sub-agent session under the call that ran it; into a target that keeps no sub-agents, one loss line.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { convertSessionAll } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { Message, Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { callIds, convertRow, sessionIn, textsOf } from '../helpers/sub-agents.js';
import '../../src/formats/all.js';

/** The real Copilot CLI 1.0.102 session with one sub-agent run (test/fixtures/copilot/real-1.0.102). */
const COPILOT_WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';

const sideMessages = (s: Session): Message[] =>
  s.entries.flatMap((e) => (e.kind === 'message' && e.sidechain ? [e.message] : []));
const messagesOf = (s: Session): Message[] => s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));

let fx: FixtureHome;
beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-side-chains-', fixtures: ['copilot', 'opencode'] });
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

describe('Copilot CLI runs into Claude Code', () => {
  it('the run is a sub-agent file under the written session, linked to the call that ran it, holding the run', async () => {
    const original = await sessionIn(fx.env, 'copilot', COPILOT_WITH_RUN);
    const run = sideMessages(original);
    expect(run.length).toBeGreaterThan(0);
    const out = await convertRow(fx.env, COPILOT_WITH_RUN, 'claude');
    expect(out.warnings?.join('\n') ?? '').not.toContain('side chain');
    expect(out.children, JSON.stringify(out)).toHaveLength(1);
    const row = out.children?.[0];
    expect(row?.path).toMatch(new RegExp(`/${out.id}/subagents/agent-${row?.id}\\.jsonl$`));
    const parent = await sessionIn(fx.env, 'claude', out.id);
    const child = await sessionIn(fx.env, 'claude', row?.id as string);
    expect(child.parentId).toBe(out.id);
    expect(row?.parentToolCallId).toBe(child.parentToolCallId);
    expect(callIds(parent)).toContain(child.parentToolCallId);
    // the call is the one Copilot CLI ran the sub-agent with
    const runCall = run.map((m) => m.meta?.parent_tool_use_id).find((v) => typeof v === 'string');
    expect(child.parentToolCallId).toBe(runCall);
    // read back, the sub-agent's messages are the run's
    expect(messagesOf(child).map((m) => m.role)).toEqual(run.map((m) => m.role));
    expect(textsOf(messagesOf(child))).toEqual(textsOf(run));
    // the parent holds no message of the run
    expect(textsOf(messagesOf(parent))).not.toContain(textsOf(run)[0]);
  });
});

/** An Agent SDK run whose Task call ran a sub-agent, stored by ClaudeAgentStorage (sub-agent messages as a side chain). */
async function agentSdkSession(): Promise<Session> {
  const store = new MemoryStore();
  const storage = new ClaudeAgentStorage({ store, throwOnError: true });
  const sid = 'sdk-side-chains';
  const sdk = (type: 'user' | 'assistant', content: unknown, parent: string | null = null, id?: string) => ({
    type,
    message: { role: type, content, ...(type === 'assistant' ? { id, model: 'claude-sonnet-4-5' } : {}) },
    session_id: sid,
    parent_tool_use_id: parent,
  });
  await storage.saveMessage({ type: 'system', subtype: 'init', session_id: sid, cwd: '/work/app' });
  await storage.saveMessage(sdk('user', 'count the files with a sub-agent'));
  await storage.saveMessage(
    sdk(
      'assistant',
      [{ type: 'tool_use', id: 'toolu_task1', name: 'Task', input: { description: 'count', prompt: 'count the files' } }],
      null,
      'msg_1',
    ),
  );
  await storage.saveMessage(sdk('user', 'count the files', 'toolu_task1'));
  await storage.saveMessage(sdk('assistant', [{ type: 'text', text: 'there are 3 files' }], 'toolu_task1', 'msg_s1'));
  await storage.saveMessage(sdk('user', [{ type: 'tool_result', tool_use_id: 'toolu_task1', content: 'there are 3 files' }]));
  await storage.saveMessage(sdk('assistant', [{ type: 'text', text: 'The sub-agent counted 3.' }], null, 'msg_2'));
  return (await store.getSession(sid)) as Session;
}

describe('the Agent SDK sub-agent messages', () => {
  for (const to of ['pi', 'opencode'] as const)
    it(`into ${to}: a child session naming the Task call, holding the sub-agent's messages`, async () => {
      const session = await agentSdkSession();
      expect(sideMessages(session)).toHaveLength(2);
      const [out] = await convertSessionAll(session, { to, env: fx.env });
      expect(out?.children, JSON.stringify(out)).toHaveLength(1);
      const row = out?.children?.[0];
      const child = await sessionIn(fx.env, to, row?.id as string);
      expect(child.parentId).toBe(out?.id);
      const parent = await sessionIn(fx.env, to, out?.id as string);
      expect(callIds(parent)).toContain(child.parentToolCallId);
      const call = parent.entries
        .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
        .find((p) => p.type === 'tool_call' && p.id === child.parentToolCallId);
      expect(call).toMatchObject({ input: { prompt: 'count the files' } });
      expect(textsOf(await new Sources(fx.env).driver(to).getMessages(child.id))).toEqual([
        'count the files',
        'there are 3 files',
      ]);
      // the sub-agent's prompt is no user message of the parent
      expect(textsOf(messagesOf(parent).filter((m) => m.role === 'user'))).toEqual(['count the files with a sub-agent']);
    });
});

describe('a target that keeps no sub-agent sessions', () => {
  it('into Continue: the side chain is said once as a loss line, with the prefix every loss line has', async () => {
    const session = await agentSdkSession();
    const [out] = await convertSessionAll(session, { to: 'continue', env: fx.env });
    const warnings = (out?.meta?.warnings ?? []) as string[];
    const said = warnings.filter((w) => w.includes('side chain'));
    expect(said, warnings.join('\n')).toHaveLength(1);
    expect(said[0]).toMatch(/^threadbase:sdk-side-chains → continue: 1 side chain\(s\) of sub-agent work not written/);
    expect(said[0]).toContain('continue keeps no sub-agent sessions');
  });

  it('a side chain no call on the written path ran is said once as a loss line', async () => {
    const session = await agentSdkSession();
    // written up to before the Task call: no call on the path ran the sub-agent
    const [out] = await convertSessionAll(session, { to: 'pi', env: fx.env, at: session.entries[0]?.id });
    expect(out?.children ?? []).toEqual([]);
    const said = ((out?.meta?.warnings ?? []) as string[]).filter((w) => w.includes('side chain'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^threadbase:sdk-side-chains → pi: 1 side chain\(s\) .*no call on the written path ran them$/);
  });
});
