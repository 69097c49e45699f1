/**
 * `threadbase convert` carries a session's sub-agent sessions along: Claude Code's
 * `subagents/agent-<id>.jsonl` (the real fixture's Agent call) and OpenCode's child session (the real
 * fixture's task call) are written under the converted session in Claude Code, OpenCode and pi, each
 * read back as the written session's child, naming a call the written parent holds, its messages all
 * there (and into codex as a sub-agent thread, into Gemini CLI as a sub-agent chat).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import {
  CLAUDE_CHILD,
  CLAUDE_PARENT,
  type ConvertedRow,
  convertRow,
  expectCarried as expectCarriedIn,
  OPENCODE_CHILD,
  OPENCODE_PARENT,
  sessionIn,
} from '../helpers/sub-agents.js';
import '../../src/formats/all.js';

type Row = ConvertedRow;

/** The home of the describe block running */
let fx: FixtureHome;
const convert = (id: string, to: string) => convertRow(fx.env, id, to);
const session = (source: string, id: string) => sessionIn(fx.env, source, id);
const expectCarried = (to: string, out: Row, from: { source: string; id: string }) => expectCarriedIn(fx.env, to, out, from);

describe('convert carries Claude Code sub-agent transcripts', () => {
  let claudeHome: FixtureHome;
  beforeAll(async () => {
    claudeHome = await fixtureHome({ prefix: 'tb-sub-agents-', fixtures: ['claude', 'opencode'] });
    fx = claudeHome;
  });
  afterAll(() => {
    if (claudeHome) rmSync(claudeHome.home, { recursive: true, force: true });
  });

  it('into Claude Code: subagents/agent-<id>.jsonl beside the new session, its meta naming the Agent call', async () => {
    const out = await convert(CLAUDE_PARENT, 'claude');
    const { child, row } = await expectCarried('claude', out, { source: 'claude', id: CLAUDE_CHILD });
    expect(row.path).toBe(join(dirname(out.path as string), out.id, 'subagents', `agent-${row.id}.jsonl`));
    const meta = JSON.parse(readFileSync((row.path as string).replace(/\.jsonl$/, '.meta.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({
      toolUseId: 'toolu_standin_0003',
      agentType: 'general-purpose',
      description: 'sub task',
      spawnDepth: 1,
    });
    // every record is the sub-agent's, in the main session
    for (const line of readFileSync(row.path as string, 'utf8')
      .trim()
      .split('\n')) {
      const r = JSON.parse(line) as Record<string, unknown>;
      if ('uuid' in r) expect(r).toMatchObject({ isSidechain: true, agentId: row.id, sessionId: out.id });
    }
    expect(child.title).toBe((await session('claude', CLAUDE_CHILD)).title);
    // the call's result in the copied parent names the copy's agent id, as Claude Code finds its transcript
    const results = readFileSync(out.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { toolUseResult?: { agentId?: string } })
      .flatMap((r) => (r.toolUseResult?.agentId ? [r.toolUseResult.agentId] : []));
    expect(results).toEqual([row.id]);
    // the original stays where it was
    expect(
      existsSync(join(fx.dirs.claude, 'projects', '-tmp-cc-proj', CLAUDE_PARENT, 'subagents', `agent-${CLAUDE_CHILD}.jsonl`)),
    ).toBe(true);
  });

  it('into OpenCode: a child session (parentID) whose parent task part names it', async () => {
    const out = await convert(CLAUDE_PARENT, 'opencode');
    const { parent, child } = await expectCarried('opencode', out, { source: 'claude', id: CLAUDE_CHILD });
    const call = parent.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_call' && p.id === child.parentToolCallId);
    expect(call).toMatchObject({ name: 'Agent' });
    const db = new Database(out.path as string, { readonly: true });
    try {
      const parts = db.prepare('SELECT data FROM part WHERE session_id = ?').all(out.id) as { data: string }[];
      const task = parts
        .map((r) => JSON.parse(r.data) as { callID?: string; state?: { metadata?: unknown } })
        .find((p) => p.callID === child.parentToolCallId);
      expect(task?.state?.metadata).toMatchObject({ sessionId: child.id });
    } finally {
      db.close();
    }
  });

  it('into pi: a session of its own, linked in the header', async () => {
    const out = await convert(CLAUDE_PARENT, 'pi');
    const { row } = await expectCarried('pi', out, { source: 'claude', id: CLAUDE_CHILD });
    const header = JSON.parse(readFileSync(row.path as string, 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    expect(header).toMatchObject({ type: 'session', threadbase: { parentId: out.id, parentToolCallId: 'toolu_standin_0003' } });
  });

  it('into codex: a sub-agent thread (session_meta source.subagent.thread_spawn) naming the call', async () => {
    const out = await convert(CLAUDE_PARENT, 'codex');
    const { row } = await expectCarried('codex', out, { source: 'claude', id: CLAUDE_CHILD });
    const meta = JSON.parse(readFileSync(row.path as string, 'utf8').split('\n')[0] as string) as {
      payload: Record<string, unknown>;
    };
    expect(meta.payload).toMatchObject({
      id: row.id,
      parent_thread_id: out.id,
      thread_source: 'subagent',
      source: { subagent: { thread_spawn: { parent_thread_id: out.id, depth: 1 } } },
      threadbase: { parentToolCallId: 'toolu_standin_0003' },
    });
  });

  it('into Gemini CLI: a sub-agent chat chats/<parent id>/<agent id>.jsonl, the parent call carrying its agentId', async () => {
    const out = await convert(CLAUDE_PARENT, 'gemini');
    expect(out.warnings?.join('\n') ?? '').not.toContain('sub-agent session(s)');
    const { parent, child, row } = await expectCarried('gemini', out, { source: 'claude', id: CLAUDE_CHILD });
    expect(row.path).toBe(join(dirname(out.path as string), out.id, `${row.id}.jsonl`));
    const meta = JSON.parse(readFileSync(row.path as string, 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    expect(meta).toMatchObject({ sessionId: row.id, kind: 'subagent' });
    const call = parent.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_call' && p.id === child.parentToolCallId);
    expect(call?.type === 'tool_call' ? call.meta?.agentId : undefined).toBe(row.id);
  });
});

describe('convert carries OpenCode child sessions', () => {
  let ocHome: FixtureHome;
  beforeAll(async () => {
    ocHome = await fixtureHome({ prefix: 'tb-sub-agents-oc-' });
    const dir = join(ocHome.home, '.local', 'share', 'opencode');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join('test', 'fixtures', 'opencode', 'subagent.db'), join(dir, 'opencode.db'));
    fx = ocHome;
  });
  afterAll(() => {
    if (ocHome) rmSync(ocHome.home, { recursive: true, force: true });
  });

  for (const to of ['claude', 'pi', 'opencode', 'codex', 'gemini']) {
    it(`into ${to}`, async () => {
      const out = await convert(OPENCODE_PARENT, to);
      const { child } = await expectCarried(to, out, { source: 'opencode', id: OPENCODE_CHILD });
      expect(child.parentToolCallId).toBe('toolu_standin_0001');
    });
  }
});
