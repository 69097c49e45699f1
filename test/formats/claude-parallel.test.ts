/**
 * Parallel tool calls (one response with several tool_use blocks) in Claude Code transcripts, against
 * what the real Claude Code 2.1.332 sends when it resumes them:
 * - test/fixtures/claude/parallel-tools: a session it recorded, its records and results laid out in
 *   each of the three ways it writes them, and its resume request;
 * - test/fixtures/claude/tool-order: hand-written records of responses joined across tool results and
 *   replies with text after a call, and its resume request;
 * - another agent's parallel calls, written by us (test/agents/claude.test.ts resumes them live).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { conversionLosses } from '../../src/convert/losses.js';
import { ClaudeDriver, claudeContext, claudeWording, parseTranscript } from '../../src/formats/claude/index.js';
import { opencodeContext } from '../../src/formats/opencode/context.js';
import { piContext } from '../../src/formats/pi/driver.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { mergeSplitResponses, pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { type Block, conversation, installRecordedTranscript, type Msg } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { parallelCallSessions } from '../helpers/sessions.js';

/** each block as its text, thinking, or type:id */
const shown = (m: { content: Block[] }) =>
  m.content.map((b) => (b.text ?? b.thinking ?? `${b.type}:${b.id ?? b.tool_use_id}`) as string);

let home: string;
let env: DriverEnv;

beforeEach(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-claude-parallel-'));
  env = { home, env: {} };
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

async function ours(id: string) {
  return conversation(contextToAnthropic(await new ClaudeDriver(env).getContext(id)).messages as Msg[]);
}

const calls = (n: number) => [1, 2, 3].map((i) => `toolu_standin_000${n}_${i}`);

describe('parallel tool calls as the real Claude Code 2.1.332 recorded them (parallel-tools)', () => {
  it('our context is the request it sent on resume: one reply with every call, one turn with every result', async () => {
    const { id, theirs } = await installRecordedTranscript(home, 'parallel-tools');
    const context = await ours(id);
    expect(context).toEqual(theirs);
    const [one, two, three] = [1, 3, 5].map(calls) as [string[], string[], string[]];
    const use = (ids: string[]) => ['Running three.', ...ids.map((c) => `tool_use:${c}`)];
    const results = (ids: string[], order: number[]) => order.map((i) => `tool_result:${ids[i - 1]}`);
    expect(context.map(shown)).toEqual([
      ['PARALLEL one'],
      use(one),
      results(one, [3, 2, 1]), // in the order the tools ended
      ['Tool finished: one-c'],
      ['PARALLEL two'],
      use(two),
      results(two, [1, 2, 3]),
      ['Tool finished: two-a'],
      ['PARALLEL three'],
      use(three),
      results(three, [1, 3, 2]),
      ['Tool finished: three-a'],
    ]);
    // the same record by record, joined afterwards, and without the records (as the local index keeps it)
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    const perRecord = claudeContext(s, { mergeSplitResponses: false }).messages;
    expect(conversation(contextToAnthropic({ messages: mergeSplitResponses(perRecord) }).messages as Msg[])).toEqual(theirs);
    const bare = { ...s, entries: s.entries.map(({ raw: _r, ...e }) => e as Entry) };
    expect(conversation(contextToAnthropic(claudeContext(bare)).messages as Msg[])).toEqual(theirs);
  });

  it('the tree: every call and result on one chain in file order, each result recorded under its own call', async () => {
    const { id, file } = await installRecordedTranscript(home, 'parallel-tools');
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    expect(s.warnings ?? []).toEqual([]);
    const path = pathToLeaf(s);
    const messages = s.entries.filter((e): e is Entry & { kind: 'message' } => e.kind === 'message');
    const onPath = new Set(path.map((e) => e.id));
    expect(messages.filter((e) => !onPath.has(e.id)).map((e) => e.id)).toEqual([]);
    // along the path, as Claude Code wrote the records: all calls then the results as the tools ended
    // (one), each result before the next call (two), a mix (three)
    const steps = path.flatMap((e) => {
      if (e.kind !== 'message') return [];
      return e.message.parts.flatMap((p) =>
        p.type === 'tool_call' ? [`call ${p.id.slice(-6)}`] : p.type === 'tool_result' ? [`result ${p.callId.slice(-6)}`] : [],
      );
    });
    expect(steps).toEqual([
      ...['call 0001_1', 'call 0001_2', 'call 0001_3', 'result 0001_3', 'result 0001_2', 'result 0001_1'],
      ...['call 0003_1', 'result 0003_1', 'call 0003_2', 'result 0003_2', 'call 0003_3', 'result 0003_3'],
      ...['call 0005_1', 'result 0005_1', 'call 0005_2', 'call 0005_3', 'result 0005_3', 'result 0005_2'],
    ]);
    // the chain is the file's order of records
    const lines = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const inFile = lines.flatMap((r) => (r.type === 'user' || r.type === 'assistant' ? [r.uuid as string] : []));
    expect(path.filter((e) => e.kind === 'message').map((e) => e.id)).toEqual(inFile);
    // each result still names its own call's record, as Claude Code wrote it
    for (const e of messages) {
      if (e.message.role !== 'tool') continue;
      const raw = e.raw as Record<string, unknown>;
      const call = messages.find((c) =>
        c.message.parts.some(
          (p) => p.type === 'tool_call' && e.message.parts.some((r) => r.type === 'tool_result' && r.callId === p.id),
        ),
      );
      expect(raw.parentUuid).toBe(call?.id);
      expect(raw.sourceToolAssistantUUID).toBe(call?.id);
    }
    // a read from the last prompt on (as `threadbase sync` reads an appended transcript) links the same
    const whole = await parseTranscript(file);
    const safe = whole.safe as NonNullable<typeof whole.safe>;
    const tail = await parseTranscript(file, { start: safe.offset, startLine: safe.line });
    expect(tail.entries.map((e) => [e.id, e.parentId])).toEqual(
      whole.entries.slice(safe.entryIndex).map((e) => [e.id, e.parentId]),
    );
    expect(tail.leafId).toBe(whole.leafId);
  });

  it("usage counts each response once, as Claude Code's own cost-state does", async () => {
    const { id, file } = await installRecordedTranscript(home, 'parallel-tools');
    const lines = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const costState = lines.filter((r) => r.type === 'cost-state').at(-1) as {
      modelUsage: Record<string, { inputTokens: number; outputTokens: number }>;
    };
    const theirs = costState.modelUsage['claude-opus-5-5'] as { inputTokens: number; outputTokens: number };
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    const u = summarizeUsage(s.entries);
    expect(u.responses).toBe(6);
    expect({ input: u.usage.input, output: u.usage.output }).toEqual({ input: theirs.inputTokens, output: theirs.outputTokens });
    expect(s.usage).toMatchObject({ input: theirs.inputTokens, output: theirs.outputTokens });
    const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--source', 'claude', '--json'])) as {
      key: string;
      inputTokens: number;
      outputTokens: number;
    }[];
    expect(rows.find((r) => r.key === id)).toMatchObject({ inputTokens: theirs.inputTokens, outputTokens: theirs.outputTokens });
  });
});

describe('records of one response joined across tool results, calls after text (tool-order, real 2.1.332 request)', () => {
  it('our context is the request Claude Code sent', async () => {
    const { id, theirs } = await installRecordedTranscript(home, 'tool-order');
    const context = await ours(id);
    expect(context).toEqual(theirs);
    const use = (...ids: string[]) => ids.map((i) => `tool_use:toolu_par_${i}`);
    const res = (...ids: string[]) => ids.map((i) => `tool_result:toolu_par_${i}`);
    expect(context.map(shown)).toEqual([
      // one record: text after a call goes before the calls
      ['q1'],
      ['t1', 't1b', ...use('1a')],
      res('1a'),
      ['done 1'],
      // a call, then text in a record of its own (without and with apiBlockIndex)
      ['q2'],
      ['after2', ...use('2a')],
      res('2a'),
      ['done 2'],
      ['q3'],
      ['after3', ...use('3a')],
      res('3a'),
      ['done 3'],
      // each result between the calls: one reply, one turn of results
      ['q4'],
      ['t4', ...use('4a', '4b')],
      res('4a', '4b'),
      ['done 4'],
      ['q5'],
      ['after5', ...use('5a', '5b')],
      res('5a', '5b'),
      ['done 5'],
      // a call between two thinking blocks: nothing moves
      ['q6'],
      ['th6a', ...use('6a'), 'th6b', 'after6', ...use('6b')],
      res('6a', '6b'),
      ['done 6'],
      // a record of the first response after another response: joined into the first
      ['q7'],
      ['late7', ...use('7a')],
      res('7a'),
      use('7b'),
      res('7b'),
      ['done 7'],
      ['q8'],
      ['after8', ...use('8a')],
      res('8a'),
      ['done 8'],
      ['q9'],
      ['after9', ...use('9a', '9b')],
      res('9a', '9b'),
      ['done 9'],
      // a prompt joined to the results does not end the response; the results go first in the turn
      ['q10'],
      use('10a', '10b'),
      [...res('10a', '10b'), 'mid10'],
      ['done 10'],
      ['q11'],
      ['th11a', ...use('11a'), 'th11b', 'after11'],
      res('11a'),
      ['done 11'],
      ['q12'],
      ['th12', 'after12', ...use('12a')],
      res('12a'),
      ['done 12'],
      // a prompt alone ends it
      ['q13'],
      ['x13'],
      ['mid13'],
      ['y13'],
      ['q14'],
      ['a14'],
    ]);
    // record by record, joined afterwards, and without the records
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    const perRecord = claudeContext(s, { mergeSplitResponses: false }).messages;
    expect(conversation(contextToAnthropic({ messages: mergeSplitResponses(perRecord) }).messages as Msg[])).toEqual(theirs);
    const bare = { ...s, entries: s.entries.map(({ raw: _r, ...e }) => e as Entry) };
    expect(conversation(contextToAnthropic(claudeContext(bare)).messages as Msg[])).toEqual(theirs);
  });
});

describe("another agent's parallel calls, written for Claude Code", () => {
  const { pi, opencode } = parallelCallSessions('/work/p');

  it('pi: resumed as pi sends them (what Claude Code 2.1.332 sent: test/agents/claude.test.ts)', async () => {
    const info = await new ClaudeDriver(env).writeSession(pi);
    const written = await ours(info.id);
    expect(written.map(shown)).toEqual([
      ['echo two things'],
      ['Running both.', 'tool_use:toolu_pi_1', 'tool_use:toolu_pi_2'],
      ['tool_result:toolu_pi_1', 'tool_result:toolu_pi_2'],
      ['one and two'],
    ]);
    expect(written).toEqual(
      conversation(contextToAnthropic({ messages: claudeWording(piContext(pi).messages) }).messages as Msg[]),
    );
    const back = (await new ClaudeDriver(env).getSession(info.id)) as Session;
    expect(summarizeUsage(back.entries).responses).toBe(2);
    expect(conversionLosses(pi, 'claude').join('\n')).not.toContain('tool call');
  });

  it('OpenCode: resumed as OpenCode sends them, but text after a call goes before the calls (a warning says so)', async () => {
    const info = await new ClaudeDriver(env).writeSession(opencode);
    const written = await ours(info.id);
    expect(written.map(shown)).toEqual([
      ['echo two things'],
      ['Running both.', 'tool_use:toolu_oc_1', 'tool_use:toolu_oc_2'],
      ['tool_result:toolu_oc_1', 'tool_result:toolu_oc_2'],
      ['one and two'],
      ['text after a call'],
      ['and some text', 'tool_use:toolu_oc_3', 'tool_use:toolu_oc_4'],
      ['tool_result:toolu_oc_3', 'tool_result:toolu_oc_4'],
      ['done'],
    ]);
    const source = conversation(
      contextToAnthropic({ messages: claudeWording(opencodeContext(opencode).messages) }).messages as Msg[],
    );
    expect(written.slice(0, 5)).toEqual(source.slice(0, 5));
    expect(shown(source[5] as { content: Block[] })).toEqual(['tool_use:toolu_oc_3', 'and some text', 'tool_use:toolu_oc_4']);
    expect(written.slice(6)).toEqual(source.slice(6));
    expect(conversionLosses(opencode, 'claude')).toContain(
      'opencode:parallel-opencode → claude: replies with text after a tool call: Claude Code sends their calls after the text when it resumes (1)',
    );
  });
});
