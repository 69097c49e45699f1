/**
 * Another agent's tool ids in a Claude Code transcript we write. Some providers number the calls of
 * each response (Kimi's `functions.bash:0`), so ids repeat across turns; OpenAI's come as
 * `call_…|fc_…`. Claude Code 2.1.332 removes a tool_use whose id an earlier one has, with its
 * result, when it resumes (ensureToolResultPairing), and the Messages API refuses ids outside
 * [a-zA-Z0-9_-]. The transcript gets valid, unique ids; reading it back gives the agent's own.
 * test/agents/claude.test.ts resumes such a session with the real Claude Code.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeDriver, claudeContext } from '../../src/formats/claude/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, ToolCallPart } from '../../src/model/types.js';
import { messageEntry, repeatedToolIdSession } from '../helpers/sessions.js';

let home: string;
let env: DriverEnv;

beforeEach(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-claude-tool-ids-'));
  env = { home, env: {} };
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

type Rec = { type: string; message?: { content: unknown } };
type Block = { type: string; id?: string; tool_use_id?: string; content?: unknown };

async function recordsOf(path: string): Promise<Rec[]> {
  return (await fs.readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
}

const blocksOf = (records: Rec[]) =>
  records.flatMap((r) => (Array.isArray(r.message?.content) ? (r.message.content as Block[]) : []));

const calls = (messages: readonly Message[]) =>
  messages.flatMap((m) => m.parts.filter((p): p is ToolCallPart => p.type === 'tool_call'));

describe('tool ids in a Claude Code transcript written from another agent', () => {
  it('are valid and unique in the file, each result follows its own call, and read back as the agent recorded them', async () => {
    const source = repeatedToolIdSession('/tmp/project');
    const driver = new ClaudeDriver(env);
    const info = await driver.writeSession(source);
    const blocks = blocksOf(await recordsOf(info.path as string));
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    expect(uses).toHaveLength(3);
    expect(new Set(uses).size).toBe(3);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    // Claude Code loses the result of a call whose id is an earlier one's plus `_2` (AnthropicToolIds)
    expect(uses[1]?.startsWith(`${uses[0]}_`)).toBe(false);
    const results = blocks.filter((b) => b.type === 'tool_result');
    expect(results.map((b) => [b.tool_use_id, b.content])).toEqual([
      [uses[0], 'out 1'],
      [uses[1], 'out 2'],
      [uses[2], 'out 3'],
    ]);

    // read back: the agent's own ids, every call and result where it was
    const back = await driver.getSession(info.id);
    const messages = (back?.entries ?? []).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(calls(messages).map((c) => c.id)).toEqual(
      calls(source.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []))).map((c) => c.id),
    );
    expect(messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : [])))).toEqual([
      'functions.bash:0',
      'functions.bash:0',
      'call_7|fc_7',
    ]);

    // what Claude Code sends: the ids of the file, all three calls answered
    const sent = claudeContext(back as NonNullable<typeof back>).messages;
    expect(calls(sent).map((c) => c.id)).toEqual(uses);
  });

  it('an appended call whose id the transcript already holds gets one of its own, and its result follows it', async () => {
    const driver = new ClaudeDriver(env);
    const info = await driver.writeSession(repeatedToolIdSession('/tmp/project'));
    const before = blocksOf(await recordsOf(info.path as string)).filter((b) => b.type === 'tool_use').length;
    await driver.appendEntries(info.id, [
      messageEntry('a-4', null, '2026-03-01T00:01:00.000Z', {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'functions.bash:0', name: 'bash', input: { command: 'four' } }],
      }),
      messageEntry('r-4', 'a-4', '2026-03-01T00:01:01.000Z', {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'functions.bash:0', content: 'out 4' }],
      }),
    ]);
    const blocks = blocksOf(await recordsOf(info.path as string));
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    expect(uses).toHaveLength(before + 1);
    expect(new Set(uses).size).toBe(uses.length);
    expect(blocks.filter((b) => b.type === 'tool_result').at(-1)?.tool_use_id).toBe(uses.at(-1));
  });
});
