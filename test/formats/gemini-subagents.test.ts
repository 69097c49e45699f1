/**
 * Sub-agent work kept in a session (side chains: Claude Code's in-file sidechain, the Agent SDK's
 * sub-agent messages) converted into Gemini CLI becomes Gemini CLI 0.61's sub-agent chats:
 * `chats/<main id>/<agent id>.jsonl`, `kind: "subagent"`, the call that ran it carrying `agentId`; read
 * back as sub-agent sessions of the main chat (parent, spawning call, their turns), the main chat's
 * conversation unchanged. A side chain of an abandoned branch, or of records alone, is no such work.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { Sources } from '../../src/formats/registry.js';
import { buildContext } from '../../src/model/tree.js';
import type { Entry, Session, SessionInfo } from '../../src/model/types.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { messageEntry, textEntry, textMessage } from '../helpers/sessions.js';

const OLDER_ID = '11111111-1111-4111-8111-111111111111';

let h: FixtureHome;
beforeEach(async () => {
  h = await fixtureHome({ prefix: 'tb-gemini-sub-', fixtures: ['claudeOlder'] });
});
afterEach(async () => {
  await fs.rm(h.home, { recursive: true, force: true });
});

const texts = (s: Session) =>
  s.entries.flatMap((e) =>
    e.kind === 'message'
      ? [`${e.message.role}:${e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')}`]
      : [],
  );

/** The written main chat, and every sub-agent session of it as the Gemini reader lists and reads them. */
async function readBack(written: SessionInfo): Promise<{ main: Session; subs: Session[] }> {
  const gemini = new GeminiDriver(h.env);
  const main = (await gemini.getSession(written.id)) as Session;
  const subs: Session[] = [];
  for (const info of await gemini.listSessions({ parentId: written.id }))
    subs.push((await gemini.getSession(info.id)) as Session);
  return { main, subs };
}

/** A main conversation with a Task call, and the sub-agent's messages as the Agent SDK stores them. */
function sdkSession(): Session {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const task = { type: 'tool_call' as const, id: 'task1', name: 'Task', input: { prompt: 'count the files' } };
  const entries: Entry[] = [
    textEntry('u', null, 1, 'user', 'how many files?'),
    messageEntry('a', 'u', 2, { role: 'assistant', model: 'claude-sonnet-4-5', parts: [task] }),
    {
      ...messageEntry('s1', null, 3, textMessage('user', 'count the files', { meta: { parent_tool_use_id: 'task1' } })),
      sidechain: true,
    },
    {
      ...messageEntry(
        's2',
        's1',
        4,
        textMessage('assistant', 'there are 3', { model: 'claude-haiku-4-5', meta: { parent_tool_use_id: 'task1' } }),
      ),
      sidechain: true,
    },
    messageEntry('r', 'a', 5, { role: 'tool', parts: [{ type: 'tool_result', callId: 'task1', content: 'there are 3' }] }),
    textEntry('b', 'r', 6, 'assistant', 'Three files.'),
  ];
  return {
    id: 'sdk',
    source: 'threadbase',
    project: '/work/sdk',
    createdAt: t(1),
    updatedAt: t(6),
    messageCount: 4,
    entries,
    leafId: 'b',
  };
}

describe('gemini: sub-agent work written as sub-agent chats', () => {
  it("Claude Code's in-file side chain: a sub-agent chat beside the main one, read back as its sub-agent", async () => {
    const sources = new Sources(h.env);
    const claude = (await sources.driver('claude').getSession(OLDER_ID)) as Session;
    await sources.close();
    const written = await convertSession(claude, { to: 'gemini', env: h.env });
    const { main, subs } = await readBack(written);
    expect(subs).toHaveLength(1);
    const sub = subs[0] as Session;
    expect(sub.path).toBe(join(h.home, '.gemini', 'tmp', 'proj-a', 'chats', written.id, `${sub.id}.jsonl`));
    const first = JSON.parse((await fs.readFile(sub.path as string, 'utf8')).split('\n')[0] as string);
    expect(first).toEqual({
      sessionId: sub.id,
      projectHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      startTime: '2025-10-01T10:00:14.000Z',
      lastUpdated: '2025-10-01T10:00:15.000Z',
      kind: 'subagent',
      directories: ['/work/proj.a'],
      // a chat threadbase wrote says so (SessionInfo.writtenBy)
      threadbase: { writtenBy: 'threadbase' },
    });
    expect(sub.writtenBy).toBe('threadbase');
    expect({ parentId: sub.parentId, project: sub.project, title: sub.title }).toEqual({
      parentId: written.id,
      project: '/work/proj.a',
      title: 'old in-file side chain',
    });
    expect(texts(sub)).toEqual(['user:old in-file side chain', 'assistant:side answer']);
    expect(sub.usage).toMatchObject({ input: 1, output: 1 });
    // the main conversation is the one it was, without the side chain's turns
    expect(buildContext(main).messages.map((m) => m.role)).toEqual(buildContext(claude).messages.map((m) => m.role));
    expect(texts(main)).not.toContain('user:old in-file side chain');
    expect((await new GeminiDriver(h.env).listSessions()).filter((s) => !s.parentId).map((s) => s.id)).toEqual([written.id]);
  });

  it("the Agent SDK's sub-agent messages: linked from the call that ran them (agentId), as Gemini CLI links its own", async () => {
    const written = await convertSession(sdkSession(), { to: 'gemini', env: h.env });
    const { main, subs } = await readBack(written);
    expect(subs.map((s) => ({ parentId: s.parentId, parentToolCallId: s.parentToolCallId, texts: texts(s) }))).toEqual([
      { parentId: written.id, parentToolCallId: 'task1', texts: ['user:count the files', 'assistant:there are 3'] },
    ]);
    const call = main.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_call' && p.id === 'task1');
    expect(call?.type === 'tool_call' && call.meta?.agentId).toBe(subs[0]?.id);
    expect(texts(main)).toEqual(['user:how many files?', 'assistant:', 'tool:', 'assistant:Three files.']);
  });

  it("a side chain starting with a Task call's prompt is that call's sub-agent; one per call", async () => {
    const s = sdkSession();
    // no SDK meta: as Claude Code's in-file side chains, told by the prompt
    const plain = s.entries.map((e) =>
      e.kind === 'message' && e.sidechain ? { ...e, message: { ...e.message, meta: undefined } } : e,
    );
    const twice = [
      ...plain,
      { ...(plain[2] as Entry), id: 's3', parentId: null },
      { ...(plain[3] as Entry), id: 's4', parentId: 's3' },
    ];
    const { subs } = await readBack(await convertSession({ ...s, entries: twice }, { to: 'gemini', env: h.env }));
    expect(subs.map((x) => x.parentToolCallId ?? null).sort()).toEqual([null, 'task1']);
  });

  it("a record hanging from a sub-agent's first turn, last in the file, does not cut its chat short", async () => {
    const s = sdkSession();
    const record: Entry = {
      kind: 'metadata',
      id: 'queue@12',
      parentId: 's1',
      timestamp: s.createdAt,
      type: 'queue-operation',
      data: {},
      sidechain: true,
    };
    const { subs } = await readBack(
      await convertSession({ ...s, entries: [...s.entries, record] }, { to: 'gemini', env: h.env }),
    );
    expect(subs.map(texts)).toEqual([['user:count the files', 'assistant:there are 3']]);
  });

  it('converted at an entry of a side chain, that chain is the main chat, not a sub-agent of it as well', async () => {
    const { main, subs } = await readBack(await convertSession(sdkSession(), { to: 'gemini', env: h.env, at: 's2' }));
    expect(texts(main)).toEqual(['user:count the files', 'assistant:there are 3']);
    expect(subs).toEqual([]);
  });

  it('leaves out a side chain of an abandoned branch and one of records alone', async () => {
    const s = sdkSession();
    const entries: Entry[] = [
      ...s.entries,
      // an abandoned reply to the first prompt, with its own sub-agent
      textEntry('x', 'u', 7, 'assistant', 'abandoned'),
      { ...textEntry('xs', 'x', 8, 'user', 'abandoned sub-agent'), sidechain: true },
      // a record hanging from the main chain (Claude Code's file-level records are so marked)
      { kind: 'metadata', id: 'mode@9', parentId: 'b', timestamp: s.createdAt, type: 'mode', data: {}, sidechain: true },
    ];
    const { subs } = await readBack(await convertSession({ ...s, entries, leafId: 'b' }, { to: 'gemini', env: h.env }));
    expect(subs.map(texts)).toEqual([['user:count the files', 'assistant:there are 3']]);
  });
});
