/**
 * Parallel tool calls converted into Copilot CLI: Claude Code writes a response with several calls as
 * one record per content block, and the calls' results as each ends, between those records or after
 * them (test/fixtures/claude/parallel-tools, all three layouts). Copilot CLI records a response as one
 * assistant.message holding every call, each answered by a tool.execution_complete after it; every
 * result is kept, as it was, and read back, in the order of the calls (Copilot CLI sends them so).
 */
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { type FixtureHome, fixtureHome, homeEnv, PARALLEL_ID } from '../helpers/fixture-homes.js';

let fixture: FixtureHome;
beforeEach(async () => {
  fixture = await fixtureHome({ prefix: 'tb-copilot-parallel-', fixtures: ['claudeParallel'] });
});
afterEach(() => fs.rm(fixture.home, { recursive: true, force: true }));

/** every result of the messages: its call, text and whether it failed */
const results = (messages: readonly Message[]) =>
  messages.flatMap((m) =>
    m.parts.flatMap((p) =>
      p.type === 'tool_result'
        ? [{ callId: p.callId, content: typeof p.content === 'string' ? p.content : p.content, isError: Boolean(p.isError) }]
        : [],
    ),
  );
/** each response's calls, in order */
const calls = (messages: readonly Message[]) =>
  messages.flatMap((m) => {
    const ids = m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []));
    return ids.length ? [ids] : [];
  });
const text = (c: string | readonly { type: string; text?: string }[]) =>
  typeof c === 'string' ? c : c.map((x) => x.text ?? '').join('\n');

describe('Claude Code parallel tool calls written into Copilot CLI', () => {
  it('keeps every result, answering its call after the one message of its response, and reads them back', async () => {
    const claude = (await new ClaudeDriver(fixture.env).getSession(PARALLEL_ID)) as Session;
    const before = buildContext(claude).messages;
    const recorded = results(before).map((r) => ({ ...r, content: text(r.content) }));
    expect(recorded).toHaveLength(9);
    // written and read back in the order of the calls, as Copilot CLI sends them (recorded as each ended)
    const order = calls(before).flat();
    const expected = [...recorded].sort((a, b) => order.indexOf(a.callId) - order.indexOf(b.callId));
    expect(expected).not.toEqual(recorded);

    const encoded = encodeCopilotEvents(claude);
    expect(encoded.warnings.filter((w) => /result/.test(w))).toEqual([]);
    // each response one assistant.message with its three calls, their results after it
    const types = encoded.records.map((r) => r.type as string).filter((t) => t !== 'session.usage_record');
    const turn = ['assistant.message', ...Array(3).fill('tool.execution_start'), ...Array(3).fill('tool.execution_complete')];
    expect(types).toEqual(['session.start', ...[0, 1, 2].flatMap(() => ['user.message', ...turn, 'assistant.message'])]);
    const completes = encoded.records.filter((r) => r.type === 'tool.execution_complete');
    expect(completes.map((r) => (r.data as { success: boolean }).success)).toEqual(Array(9).fill(true));
    expect(completes.map((r) => (r.data as { toolCallId: string }).toolCallId)).toEqual(order);

    const copilot = new CopilotDriver(homeEnv(fixture.home));
    const info = await copilot.writeSession(claude);
    expect((info.meta?.warnings as string[] | undefined)?.filter((w) => /result/.test(w)) ?? []).toEqual([]);
    const back = buildContext((await copilot.getSession(info.id)) as Session).messages;
    expect(results(back).map((r) => ({ ...r, content: text(r.content) }))).toEqual(expected);
    // each response's calls in one message, as Claude Code sends them when it resumes (the fixture's requests)
    expect(calls(back)).toEqual(['0001', '0003', '0005'].map((r) => [1, 2, 3].map((k) => `toolu_standin_${r}_${k}`)));
    // and the replies' words, each once
    const said = (ms: readonly Message[]) =>
      ms.flatMap((m) => (m.role === 'assistant' ? m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []));
    expect(said(back)).toEqual(said(before));
  });
});
