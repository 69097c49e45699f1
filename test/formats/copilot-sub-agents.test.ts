/**
 * Sub-agent sessions converted into Copilot CLI (convertSessionAll with `childrenOf`): each is written
 * as Copilot CLI records a sub-agent run, inside the parent's events.jsonl right after the spawning
 * call's tool.execution_start (subagent.started, its prompt with `source: 'agent-<session id>'`, its
 * turns naming the call, subagent.completed, all with the run's agentId); a sub-agent's own sub-agent
 * goes inside its run. Read back, each run is a side chain of the parent, the main chain unchanged.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChildSessions,
  childSessionsFrom,
  convertSession,
  convertSessionAll,
  type WrittenSession,
} from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { copilotContext } from '../../src/formats/copilot/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';
import { textEntry } from '../helpers/sessions.js';
import { homeWithSubAgentTree, withTask } from '../helpers/sub-agents.js';

let home: string;
let env: DriverEnv;
let tree: { parent: Session; childrenOf: ChildSessions };

beforeAll(() => {
  ({ home, env, tree } = homeWithSubAgentTree('tb-copilot-sub-agents-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const texts = (entries: readonly Entry[]) =>
  entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).map((p) => (p.type === 'text' ? p.text : p.type));

describe('sub-agents into Copilot CLI', () => {
  it('each run inside its parent, after the call that ran it; read back as side chains', async () => {
    const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
      WrittenSession,
    ];
    const child = written.children?.[0];
    const grandchild = child?.children?.[0];
    expect(child).toMatchObject({ source: 'copilot', parentId: written.id, parentToolCallId: 'call_p', path: written.path });
    expect(grandchild).toMatchObject({ parentId: child?.id, parentToolCallId: 'call_c', path: written.path });
    expect(child?.messageCount).toBe(4);

    const events = readFileSync(written.path as string, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { type: string; id: string; parentId: string | null; agentId?: string; data: Record<string, unknown> },
      );
    // one chain, each event after the one before it
    expect(events.map((e) => e.parentId)).toEqual([null, ...events.slice(0, -1).map((e) => e.id)]);
    const at = (type: string, call: string) => events.findIndex((e) => e.type === type && e.data.toolCallId === call);
    const order = [
      at('tool.execution_start', 'call_p'),
      at('subagent.started', 'call_p'),
      at('tool.execution_start', 'call_c'),
      at('subagent.started', 'call_c'),
      at('subagent.completed', 'call_c'),
      at('tool.execution_complete', 'call_c'),
      at('subagent.completed', 'call_p'),
      at('tool.execution_complete', 'call_p'),
    ];
    expect(order.every((n) => n >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const prompt = events.find((e) => e.type === 'user.message' && e.data.content === 'look around');
    expect(prompt?.data.source).toBe(`agent-${written.id}`);
    expect(prompt?.agentId).toBe(child?.id);
    expect(events.find((e) => e.type === 'assistant.message' && e.data.content === 'looked')?.data.parentToolCallId).toBe(
      'call_p',
    );
    expect(events.find((e) => e.type === 'assistant.message' && e.data.content === 'found it')?.data.parentToolCallId).toBe(
      'call_c',
    );

    const sources = new Sources(env);
    const read = await sources.driver('copilot').getSession(written.id);
    await sources.close();
    const entries = read?.entries ?? [];
    expect(texts(entries.filter((e) => !e.sidechain))).toEqual(['plan it', 'tool_call', 'tool_result', 'all done']);
    const side = entries.filter((e) => e.sidechain);
    expect(texts(side.filter((e) => e.raw && (e.raw as { agentId?: string }).agentId === child?.id))).toEqual([
      'look around',
      'tool_call',
      'tool_result',
      'looked',
    ]);
    expect(texts(side.filter((e) => (e.raw as { agentId?: string }).agentId === grandchild?.id))).toEqual([
      'look deeper',
      'tool_call',
      'tool_result',
      'found it',
    ]);
  });

  it('a sub-agent whose call came before a compaction: the compaction written where it was, the run before it', async () => {
    const task = withTask('Q', 'plan it', 'call_q', 'all done');
    const compaction: Entry = {
      kind: 'compaction',
      id: 'Q-c',
      parentId: 'Q-a2',
      timestamp: '2026-01-01T00:00:05.000Z',
      summary: 'SUMMARY planned and ran it',
      tokensBefore: 1234,
    };
    const parent: Session = {
      ...task,
      project: join(home, 'project'),
      entries: [
        ...task.entries,
        compaction,
        textEntry('Q-u2', 'Q-c', 6, 'user', 'after compact'),
        textEntry('Q-a3', 'Q-u2', 7, 'assistant', 'ok'),
      ],
      leafId: 'Q-a3',
    };
    const child = withTask('D', 'look around', 'call_d', 'looked', { parentId: 'Q', call: 'call_q' });
    const [written] = (await convertSessionAll(parent, {
      to: 'copilot',
      env,
      childrenOf: async (id) => (id === 'Q' ? [child] : []),
    })) as [WrittenSession];
    expect(written.children?.[0]).toMatchObject({ parentToolCallId: 'call_q', path: written.path, messageCount: 4 });
    const types = readFileSync(written.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.indexOf('subagent.started')).toBeLessThan(types.indexOf('session.compaction_complete'));
    const sources = new Sources(env);
    const read = (await sources.driver('copilot').getSession(written.id)) as Session;
    await sources.close();
    expect(read.entries.find((e) => e.kind === 'compaction')).toMatchObject({
      summary: 'SUMMARY planned and ran it',
      tokensBefore: 1234,
    });
    // resumed from the compaction: Copilot CLI's wording of it, then what came after
    const sent = copilotContext(read).messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(
      texts(sent.map((message, i) => ({ kind: 'message', id: `${i}`, parentId: null, timestamp: '', message }))).join('\n'),
    ).toContain('<summary>\nSUMMARY planned and ran it\n</summary>');
  });

  it("a Copilot CLI session's own sub-agent run (a side chain) copied into Copilot CLI: the run after its call, read back alike", async () => {
    const SUB = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
    cpSync('test/fixtures/copilot/real-1.0.102/.copilot', join(home, '.copilot'), { recursive: true });
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const original = (await driver.getSession(SUB)) as Session;
    const written = await convertSession(original, { to: 'copilot', env });
    expect(written.meta?.warnings).toBeUndefined();
    const copy = (await driver.getSession(written.id)) as Session;
    await sources.close();
    const side = (s: Session) => texts(s.entries.filter((e) => e.sidechain));
    expect(side(original)).toEqual(['say hello please', expect.stringMatching(/^ok: /)]);
    expect(side(copy)).toEqual(side(original));
    expect(texts(copy.entries.filter((e) => !e.sidechain))).toEqual(texts(original.entries.filter((e) => !e.sidechain)));
    const types = readFileSync(written.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.slice(types.indexOf('tool.execution_start'), types.indexOf('tool.execution_complete') + 1)).toEqual([
      'tool.execution_start',
      'subagent.started',
      'user.message',
      'session.usage_record',
      'assistant.message',
      'subagent.completed',
      'tool.execution_complete',
    ]);
  });
  it("a run inside a run (a sub-agent's own sub-agent, a side chain whose call is in another) copied into Copilot CLI: both kept, the inner inside the outer", async () => {
    const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
      WrittenSession,
    ];
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const original = (await driver.getSession(written.id)) as Session;
    const copy = await convertSession(original, { to: 'copilot', env });
    const read = (await driver.getSession(copy.id)) as Session;
    await sources.close();
    expect(copy.meta?.warnings).toBeUndefined();
    const side = (s: Session) => texts(s.entries.filter((e) => e.sidechain));
    expect(side(original)).toContain('found it');
    expect(side(read)).toEqual(side(original));
    expect(texts(read.entries.filter((e) => !e.sidechain))).toEqual(texts(original.entries.filter((e) => !e.sidechain)));
    const events = readFileSync(copy.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
    const at = (type: string, call: string) => events.findIndex((e) => e.type === type && e.data.toolCallId === call);
    const order = [
      at('subagent.started', 'call_p'),
      at('subagent.started', 'call_c'),
      at('subagent.completed', 'call_c'),
      at('subagent.completed', 'call_p'),
    ];
    expect(order.every((n) => n >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('a side chain no call ran: the warning says which entries were left out', async () => {
    const task = withTask('L', 'plan it', 'call_l', 'all done');
    const stray: Entry[] = [
      { ...textEntry('L-s1', null, 2, 'user', 'an errand nobody asked for'), sidechain: true },
      { ...textEntry('L-s2', 'L-s1', 3, 'assistant', 'done anyway'), sidechain: true },
    ];
    const parent: Session = { ...task, project: join(home, 'project'), entries: [...task.entries, ...stray] };
    const written = await convertSession(parent, { to: 'copilot', env });
    const warnings = (written.meta?.warnings as string[] | undefined) ?? [];
    expect(warnings.filter((w) => /side chain/.test(w))).toEqual([
      `threadbase:L → copilot: sub-agent side chain from entry L-s1 (2 message(s), prompt "an errand nobody asked for") left out: no call on the written path or in a sub-agent written has its prompt`,
    ]);
  });
});

describe('Copilot CLI runs as child sessions', () => {
  it('a sub-agent written into Copilot CLI is a session of its own: found by the id written, listed under its parent, its own run under it', async () => {
    const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
      WrittenSession,
    ];
    const child = written.children?.[0] as WrittenSession;
    const grandchild = child.children?.[0] as WrittenSession;
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const run = (await driver.getSession(child.id)) as Session;
    const inner = (await driver.getSession(grandchild.id)) as Session;
    const parent = (await driver.getSession(written.id)) as Session;
    const children = childSessionsFrom(driver);
    const kids = (await children(written.id)).map((s) => s.id);
    const grandkids = (await children(child.id)).map((s) => s.id);
    const listed = (await driver.listSessions()).filter((s) => s.path === written.path).map((s) => [s.id, s.parentId]);
    await sources.close();
    expect(run).toMatchObject({ id: child.id, parentId: written.id, parentToolCallId: 'call_p', messageCount: 4 });
    expect(child).toMatchObject({ messageCount: run.messageCount, title: run.title, createdAt: run.createdAt });
    // its own turns its main chain, its sub-agent's its side chain (as in the file)
    expect(texts(run.entries.filter((e) => !e.sidechain))).toEqual(['look around', 'tool_call', 'tool_result', 'looked']);
    expect(texts(run.entries.filter((e) => e.sidechain))).toEqual(['look deeper', 'tool_call', 'tool_result', 'found it']);
    expect(
      texts(buildContext(run).messages.map((message, i) => ({ ...textEntry(`${i}`, null, 0, 'user', ''), message }))),
    ).toEqual(['look around', 'tool_call', 'tool_result', 'looked']);
    expect(inner).toMatchObject({ parentId: child.id, parentToolCallId: 'call_c', messageCount: 4 });
    expect(kids).toEqual([child.id]);
    expect(grandkids).toEqual([grandchild.id]);
    expect(listed).toEqual(
      expect.arrayContaining([
        [written.id, undefined],
        [child.id, written.id],
        [grandchild.id, child.id],
      ]),
    );
    // the parent unchanged: both runs its side chains, what Copilot CLI resumes its main chain only
    expect(texts(parent.entries.filter((e) => e.sidechain))).toEqual([
      'look around',
      'tool_call',
      'look deeper',
      'tool_call',
      'tool_result',
      'found it',
      'tool_result',
      'looked',
    ]);
    expect(copilotContext(parent).messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join())).toEqual([
      'plan it',
      'tool_call',
      'tool_result',
      'all done',
    ]);
  });

  it('`threadbase sessions` lists a run under its session and `show <run id>` shows it', async () => {
    const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
      WrittenSession,
    ];
    const child = written.children?.[0] as WrittenSession;
    const rows = JSON.parse(await runCliOk(env, ['sessions', '--source', 'copilot', '--json'])) as {
      id: string;
      parentId?: string;
    }[];
    expect(rows.find((r) => r.id === child.id)).toMatchObject({ parentId: written.id });
    const shown = JSON.parse(await runCliOk(env, ['show', child.id, '--json'])) as Session;
    expect(shown).toMatchObject({ id: child.id, source: 'copilot', parentId: written.id, parentToolCallId: 'call_p' });
    expect(texts(shown.entries.filter((e) => !e.sidechain))).toEqual(['look around', 'tool_call', 'tool_result', 'looked']);
  });

  it('a Copilot CLI session converted with its runs listed as its children: each run written once, as its side chain', async () => {
    const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
      WrittenSession,
    ];
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const original = (await driver.getSession(written.id)) as Session;
    // as `threadbase convert` passes them: the sessions the driver lists under it (its runs)
    const childrenOf = childSessionsFrom(driver);
    const [copy] = (await convertSessionAll(original, { to: 'copilot', env, childrenOf })) as [WrittenSession];
    const [claude] = (await convertSessionAll(original, { to: 'claude', env, childrenOf })) as [WrittenSession];
    const read = (await driver.getSession(copy.id)) as Session;
    await sources.close();
    const started = readFileSync(copy.path as string, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"subagent.started"'));
    expect(started).toHaveLength(2);
    expect(copy.children ?? []).toEqual([]);
    expect(texts(read.entries.filter((e) => e.sidechain))).toEqual(texts(original.entries.filter((e) => e.sidechain)));
    // into Claude Code: the run a sub-agent transcript once, its own run one under it
    expect(claude.children?.map((c) => [c.parentToolCallId, c.children?.map((g) => g.parentToolCallId)])).toEqual([
      ['call_p', ['call_c']],
    ]);
  });
});

describe("a sub-agent's own side chains", () => {
  /** P ran C (call_p); C holds the run of its own call_c as a side chain (its messages, no session of their own). */
  function childWithSideChain() {
    const parent = { ...withTask('N', 'plan it', 'call_n', 'all done'), project: join(home, 'project') };
    const task = withTask('K', 'look around', 'call_k', 'looked', { parentId: 'N', call: 'call_n' });
    // the prompt call_k gave (withTask: `<prompt>, deeper`) starts the chain, as a Claude Code side chain starts
    const side: Entry[] = [
      { ...textEntry('K-s1', null, 2, 'user', 'look around, deeper'), sidechain: true },
      { ...textEntry('K-s2', 'K-s1', 3, 'assistant', 'found it inside'), sidechain: true },
    ];
    const child: Session = { ...task, project: join(home, 'project'), entries: [...task.entries, ...side] };
    return { parent, childrenOf: async (id: string) => (id === 'N' ? [child] : []) };
  }

  it("into Copilot CLI: written inside the sub-agent's run (writeChildSession), a run of its own under it", async () => {
    const { parent, childrenOf } = childWithSideChain();
    const [written] = (await convertSessionAll(parent, { to: 'copilot', env, childrenOf })) as [WrittenSession];
    const child = written.children?.[0] as WrittenSession;
    expect(child.meta?.warnings).toBeUndefined();
    const events = readFileSync(written.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
    const at = (type: string, call: string) => events.findIndex((e) => e.type === type && e.data.toolCallId === call);
    const order = [
      at('subagent.started', 'call_n'),
      at('tool.execution_start', 'call_k'),
      at('subagent.started', 'call_k'),
      at('subagent.completed', 'call_k'),
      at('tool.execution_complete', 'call_k'),
      at('subagent.completed', 'call_n'),
    ];
    expect(order.every((n) => n >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const run = (await driver.getSession(child.id)) as Session;
    const inner = await childSessionsFrom(driver)(child.id);
    const read = (await driver.getSession(written.id)) as Session;
    await sources.close();
    expect(texts(run.entries.filter((e) => e.sidechain))).toEqual(['look around, deeper', 'found it inside']);
    expect(inner.map((s) => [s.parentId, s.parentToolCallId, texts(s.entries)])).toEqual([
      [child.id, 'call_k', ['look around, deeper', 'found it inside']],
    ]);
    expect(texts(read.entries.filter((e) => !e.sidechain))).toEqual(['plan it', 'tool_call', 'tool_result', 'all done']);
  });

  it('into Claude Code: a sub-agent transcript under the sub-agent written', async () => {
    const { parent, childrenOf } = childWithSideChain();
    const [written] = (await convertSessionAll(parent, { to: 'claude', env, childrenOf })) as [WrittenSession];
    const child = written.children?.[0] as WrittenSession;
    // Claude Code keeps every sub-agent's transcript beside its session's: under the child in what was written
    expect(child.children?.map((g) => g.parentToolCallId)).toEqual(['call_k']);
    const sources = new Sources(env);
    const inner = (await sources.driver('claude').getSession(child.children?.[0]?.id as string)) as Session;
    await sources.close();
    expect(texts(inner.entries)).toEqual(['look around, deeper', 'found it inside']);
  });
});

describe('--all-branches into a target with trees', () => {
  it.each(['claude', 'pi'])(
    "a Copilot CLI session's run comes out as %s's sub-agent session, once, not in the tree",
    async (to) => {
      const SUB = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
      cpSync('test/fixtures/copilot/real-1.0.102/.copilot', join(home, '.copilot'), { recursive: true });
      const out = JSON.parse(
        await runCliOk(env, ['convert', SUB, '--source', 'copilot', '--to', to, '--all-branches', '--json', '--no-index']),
      ) as WrittenSession;
      expect(out.children?.map((c) => [c.source, c.parentToolCallId])).toEqual([[to, 'toolu_standin_0001']]);
      const sources = new Sources(env);
      const driver = sources.driver(to);
      const parent = (await driver.getSession(out.id)) as Session;
      const run = (await driver.getSession(out.children?.[0]?.id as string)) as Session;
      await sources.close();
      expect(parent.entries.some((e) => e.sidechain && e.kind === 'message')).toBe(false);
      expect(texts(parent.entries).join('\n')).not.toContain('say hello please');
      expect(texts(run.entries)[0]).toBe('say hello please');
      expect(run).toMatchObject({ parentId: out.id, parentToolCallId: 'toolu_standin_0001' });
    },
  );
});
