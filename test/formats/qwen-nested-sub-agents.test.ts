/**
 * A sub-agent's own sub-agent in Qwen Code 0.24.4, as the real `qwen` keeps it
 * (test/fixtures/qwen/real-0.24.4-nested/README.md: main → agent call → sub-agent → agent call →
 * sub-agent): both transcripts in `subagents/<main session>/`, the grandchild's meta naming the
 * sub-agent in `parentAgentId` with `depth` 1. threadbase reads that tree, and writes a sub-agent
 * tree converted into Qwen Code the same way, with metas Qwen Code's own trace reader accepts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { callIds, subAgentTree } from '../helpers/sub-agents.js';
import '../../src/formats/all.js';

const NESTED_DIR = resolve('test/fixtures/qwen/real-0.24.4-nested');
const MAIN = 'ae5c32fa-db80-41b8-b7cd-d2445f570fac';
const CHILD = 'general-purpose-toolu_standin_0001';
const GRANDCHILD = 'general-purpose-toolu_standin_0003';
const realEnv: DriverEnv = { home: '/nonexistent', env: { QWEN_HOME: NESTED_DIR } };
const realFolder = join(NESTED_DIR, 'projects', '-tmp-qwen-nested-proj', 'subagents', MAIN);

type Meta = Record<string, unknown>;
const metaOf = (folder: string, agentId: string): Meta =>
  JSON.parse(readFileSync(join(folder, `agent-${agentId}.meta.json`), 'utf8')) as Meta;

/** The checks Qwen Code 0.24.4's readAgentTrace makes of a meta file before it takes it into the trace. */
function qwenTraceRejects(meta: Meta, sessionId: string, fileName: string): string[] {
  const date = (v: unknown) => typeof v === 'string' && Number.isFinite(Date.parse(v));
  const bad: string[] = [];
  if (typeof meta.agentId !== 'string' || !meta.agentId) bad.push('agentId');
  if (typeof meta.agentType !== 'string') bad.push('agentType');
  if (typeof meta.description !== 'string') bad.push('description');
  if (!date(meta.createdAt)) bad.push('createdAt');
  if (meta.parentAgentId !== null && typeof meta.parentAgentId !== 'string') bad.push('parentAgentId');
  if (meta.toolUseId !== undefined && typeof meta.toolUseId !== 'string') bad.push('toolUseId');
  if (meta.depth !== undefined && !Number.isFinite(meta.depth)) bad.push('depth');
  if (meta.status !== undefined && !['running', 'paused', 'completed', 'failed', 'cancelled'].includes(meta.status as string))
    bad.push('status');
  if (meta.lastUpdatedAt !== undefined && !date(meta.lastUpdatedAt)) bad.push('lastUpdatedAt');
  if (meta.parentSessionId !== sessionId) bad.push('parentSessionId');
  if (fileName !== `agent-${String(meta.agentId).replace(/[^A-Za-z0-9_-]/g, '_')}.meta.json`) bad.push('file name');
  return bad;
}

/** What a meta says of its place in the tree. */
const placeOf = (m: Meta) => ({
  parentSessionId: m.parentSessionId,
  parentAgentId: m.parentAgentId,
  toolUseId: m.toolUseId,
  depth: m.depth,
});

describe('qwen: the real 0.24.4 sub-agent of a sub-agent', () => {
  it('reads the tree: the grandchild under the sub-agent, naming the call in the sub-agent that ran it', async () => {
    const driver = new QwenDriver(realEnv);
    const list = await driver.listSessions();
    expect(list.map((s) => [s.id, s.parentId ?? null, s.parentToolCallId]).sort()).toEqual(
      [
        [MAIN, null, undefined],
        [CHILD, MAIN, 'toolu_standin_0001'],
        [GRANDCHILD, CHILD, 'toolu_standin_0003'],
      ].sort(),
    );
    const main = (await driver.getSession(MAIN)) as Session;
    const child = (await driver.getSession(CHILD)) as Session;
    const grandchild = (await driver.getSession(GRANDCHILD)) as Session;
    expect(callIds(main)).toContain('toolu_standin_0001');
    expect(callIds(child)).toEqual(['toolu_standin_0003']);
    expect(grandchild).toMatchObject({ title: 'count the files', meta: { kind: 'subagent', agentType: 'general-purpose' } });
    // the real metas: one folder, the grandchild's parent the sub-agent, one level deeper
    expect([metaOf(realFolder, CHILD), metaOf(realFolder, GRANDCHILD)].map(placeOf)).toEqual([
      { parentSessionId: MAIN, parentAgentId: null, toolUseId: 'toolu_standin_0001', depth: 0 },
      { parentSessionId: MAIN, parentAgentId: CHILD, toolUseId: 'toolu_standin_0003', depth: 1 },
    ]);
  });
});

describe('qwen: the model of a real 0.24.4 sub-agent', () => {
  it("its replies carry the model its meta names (Qwen Code writes none on a sub-agent's assistant records)", async () => {
    const driver = new QwenDriver(realEnv);
    for (const id of [CHILD, GRANDCHILD]) {
      // the backgrounded one names it as `model`, the foreground one only in persistedCliFlags (the model it ran on)
      const meta = metaOf(realFolder, id);
      expect(meta.model ?? (meta.persistedCliFlags as Meta).model).toBe('claude-standin');
      const sub = (await driver.getSession(id)) as Session;
      const replies = sub.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
      expect(replies.length).toBeGreaterThan(0);
      expect(replies.map((m) => m.model)).toEqual(replies.map(() => 'claude-standin'));
      expect(sub.models).toEqual(['claude-standin']);
    }
  });
});

describe('qwen: a sub-agent tree converted into Qwen Code is laid out as the real one', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'tb-qwen-nested-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('child and grandchild in the main session’s folder, parentAgentId and depth as Qwen Code writes them', async () => {
    const env = homeEnv(home);
    const project = join(home, 'project');
    mkdirSync(project, { recursive: true });
    const tree = subAgentTree(project);
    // no title: Qwen Code still needs a description (the call's, here none)
    const { title: _t, ...untitled } = tree.grandchild;
    const childrenOf = async (id: string) => (id === 'P' ? [tree.child] : id === 'C' ? [untitled] : []);
    const [written] = (await convertSessionAll(tree.parent, { to: 'qwen', env, childrenOf })) as WrittenSession[];
    const child = written?.children?.[0];
    const grandchild = child?.children?.[0];
    expect(grandchild?.path, JSON.stringify(written)).toBeDefined();
    const folder = dirname(grandchild?.path as string);
    expect(dirname(child?.path as string)).toBe(folder);
    expect(basename(folder)).toBe(written?.id);
    expect(basename(dirname(folder))).toBe('subagents');
    const childMeta = metaOf(folder, child?.id as string);
    const grandMeta = metaOf(folder, grandchild?.id as string);
    expect([childMeta, grandMeta].map(placeOf)).toEqual([
      { parentSessionId: written?.id, parentAgentId: null, toolUseId: 'call_p', depth: 0 },
      { parentSessionId: written?.id, parentAgentId: child?.id, toolUseId: 'call_c', depth: 1 },
    ]);
    // the model it ran on in the meta, as Qwen Code records it
    const lastModel = (x: Session) =>
      x.entries
        .flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' && e.message.model ? [e.message.model] : []))
        .at(-1);
    expect(lastModel(tree.child)).toBeDefined();
    expect(childMeta.model).toBe(lastModel(tree.child));
    // agent ids and file names as Qwen Code makes them: `<subagent name>-<call id>`
    expect([child?.id, grandchild?.id]).toEqual(['general-purpose-call_p', 'general-purpose-call_c']);
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.meta.json')))
      expect(
        qwenTraceRejects(metaOf(folder, name.slice('agent-'.length, -'.meta.json'.length)), written?.id as string, name),
      ).toEqual([]);
    // the same checks pass on the real ones
    for (const id of [CHILD, GRANDCHILD])
      expect(qwenTraceRejects(metaOf(realFolder, id), MAIN, `agent-${id}.meta.json`)).toEqual([]);
  });
});
