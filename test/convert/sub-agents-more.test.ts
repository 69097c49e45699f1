/**
 * Sub-agent sessions carried into Gemini CLI, Qwen Code and Cline CLI: the real Claude Code fixture's
 * Agent call and OpenCode fixture's task call, each sub-agent read back as the written session's child,
 * naming the same call (held by the written parent), its text all there, laid out as the agent keeps
 * its own (Qwen Code's subagents/<session>/agent-<id>.jsonl + meta, Cline's <agentId>.messages.json
 * beside the root's); and a sub-agent's own sub-agent under the written sub-agent.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildSessions, convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { type FixtureHome, fixtureHome, homeEnv } from '../helpers/fixture-homes.js';
import {
  CLAUDE_CHILD,
  CLAUDE_PARENT,
  type ConvertedRow,
  convertRow,
  expectCarried as expectCarriedIn,
  homeWithSubAgentTree,
  OPENCODE_CHILD,
  OPENCODE_PARENT,
  sessionIn,
  textsOf,
} from '../helpers/sub-agents.js';
import '../../src/formats/all.js';

type Row = ConvertedRow;

let env: DriverEnv;
const convert = (id: string, to: string) => convertRow(env, id, to);
const session = (source: string, id: string) => sessionIn(env, source, id);
const expectCarried = (to: string, out: Row, from: { source: string; id: string }) => expectCarriedIn(env, to, out, from);

describe('Claude Code sub-agent transcripts', () => {
  let fx: FixtureHome;
  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'tb-sub-agents-more-', fixtures: ['claude'] });
    env = fx.env;
  });
  afterAll(() => {
    if (fx) rmSync(fx.home, { recursive: true, force: true });
  });

  it('into Qwen Code: subagents/<session>/agent-<id>.jsonl, its meta naming the call', async () => {
    env = fx.env;
    const out = await convert(CLAUDE_PARENT, 'qwen');
    const { row } = await expectCarried('qwen', out, { source: 'claude', id: CLAUDE_CHILD });
    const path = row.path as string;
    expect(dirname(path)).toBe(join(dirname(dirname(out.path as string)), 'subagents', out.id));
    expect(basename(path)).toBe(`agent-${row.id}.jsonl`);
    const meta = JSON.parse(readFileSync(path.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as Record<string, unknown>;
    expect(meta).toMatchObject({ agentId: row.id, parentSessionId: out.id, toolUseId: 'toolu_standin_0003', depth: 0 });
    for (const line of readFileSync(path, 'utf8').trim().split('\n'))
      expect(JSON.parse(line)).toMatchObject({ sessionId: out.id, agentId: row.id, isSidechain: true });
  });

  it("into Cline CLI: <agentId>.messages.json beside the root's, id <root>__<agentId>", async () => {
    env = fx.env;
    const out = await convert(CLAUDE_PARENT, 'cline');
    const { row } = await expectCarried('cline', out, { source: 'claude', id: CLAUDE_CHILD });
    const path = row.path as string;
    expect(dirname(path)).toBe(dirname(out.path as string));
    const agentId = basename(path).replace(/\.messages\.json$/, '');
    expect(agentId).toMatch(/^agent_\d+_[a-z0-9]{6}$/);
    expect(row.id).toBe(`${out.id}__${agentId}`);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({ agent: 'subagent', sessionId: row.id, origin: { mode: 'subagent', parentThreadId: out.id } });
  });
});

describe('OpenCode child sessions', () => {
  let home: FixtureHome;
  beforeAll(async () => {
    home = await fixtureHome({ prefix: 'tb-sub-agents-more-oc-' });
    const dir = join(home.home, '.local', 'share', 'opencode');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join('test', 'fixtures', 'opencode', 'subagent.db'), join(dir, 'opencode.db'));
  });
  afterAll(() => {
    if (home) rmSync(home.home, { recursive: true, force: true });
  });

  for (const to of ['qwen', 'cline']) {
    it(`into ${to}`, async () => {
      env = home.env;
      const out = await convert(OPENCODE_PARENT, to);
      const { child } = await expectCarried(to, out, { source: 'opencode', id: OPENCODE_CHILD });
      expect(child.parentToolCallId).toBe('toolu_standin_0001');
    });
  }
});

describe('sub-agents of sub-agents', () => {
  let home: string;
  let tree: { parent: Session; childrenOf: ChildSessions };
  beforeAll(() => {
    ({ home, env, tree } = homeWithSubAgentTree('tb-sub-agents-more-tree-'));
  });
  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  for (const to of ['gemini', 'qwen', 'cline']) {
    it(`into ${to}: the grandchild under the written child, naming the child's call`, async () => {
      env = homeEnv(home);
      const [written] = (await convertSessionAll(tree.parent, { to, env, childrenOf: tree.childrenOf })) as WrittenSession[];
      const child = written?.children?.[0];
      const grandchild = child?.children?.[0];
      expect(grandchild, JSON.stringify(written)).toBeDefined();
      expect(await session(to, child?.id as string)).toMatchObject({ parentId: written?.id, parentToolCallId: 'call_p' });
      const g = await session(to, grandchild?.id as string);
      expect(g).toMatchObject({ parentId: child?.id, parentToolCallId: 'call_c' });
      expect(textsOf(await new Sources(env).driver(to).getMessages(g.id))).toEqual(
        expect.arrayContaining(['look deeper', 'found it', 'G ran']),
      );
    });
  }
});
