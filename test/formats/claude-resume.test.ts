/**
 * What Claude Code 2.1.332 sends when it resumes transcripts it wrote itself after an API error, a
 * process killed mid-tool, an empty reply and a thinking-only reply (fixtures in
 * test/fixtures/claude/resume/, requests as the real binary sent them: test/agents/claude.test.ts
 * re-checks them live). threadbase's context of each must be that request.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, claudeContext, claudeWording, encodeClaudeTranscript } from '../../src/formats/claude/index.js';
import { opencodeContext } from '../../src/formats/opencode/context.js';
import { piContext } from '../../src/formats/pi/driver.js';
import { encodePiSessionFile } from '../../src/formats/pi/encode.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { mergeSplitResponses } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { type Block, conversation, installRecordedTranscript, type Msg } from '../helpers/claude-requests.js';
import { emptyReplySession, messageEntry, secondInto2026, textMessage } from '../helpers/sessions.js';

const FIXTURES = resolve('test/fixtures/claude/resume');
const API_ERROR = 'afe3ee95-bd60-4e20-b090-72ddee96297d';
const KILLED = '7b20828b-5501-4a49-923a-c82426866c3f';
const EMPTY = '97b77f9e-83ad-43e3-bff0-f682bdf6afd4';
const THINK_ONLY = '99140091-784a-46f3-a50b-fb3882f0fb1c';

let home: string;
let env: DriverEnv;

beforeEach(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-claude-resume-'));
  await fs.cp(FIXTURES, join(home, '.claude'), { recursive: true });
  env = { home, env: {} };
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const text = (t: string) => ({ type: 'text', text: t });
const NUDGE =
  '<system-reminder>\n[Your previous response had no visible output. Please continue and produce a user-visible response.]\n</system-reminder>';

async function sent(id: string) {
  return contextToAnthropic(await new ClaudeDriver(env).getContext(id)).messages;
}

describe('Claude Code resume: what it leaves out and adds', () => {
  it('an API error record is an error, not a reply: left out of the context, the models and the usage', async () => {
    expect(await sent(API_ERROR)).toEqual([
      { role: 'user', content: [text('hello first')] },
      { role: 'assistant', content: [text('ok: hello first')] },
      // no "No response requested.": the next prompt joins this turn
      { role: 'user', content: [text('FAILME please')] },
    ]);
    const d = new ClaudeDriver(env);
    const s = (await d.getSession(API_ERROR)) as Session;
    expect(s.models).toEqual(['claude-opus-5-5']);
    expect(s.usageByModel).toBeUndefined();
    expect((await d.getContext(API_ERROR)).model).toBe('claude-opus-5-5');
    const failed = s.entries.flatMap((e) => (e.kind === 'message' && e.message.stopReason === 'error' ? [e.message] : []));
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toBe('API Error: 400 boom');
    expect(failed[0]?.model).toBeUndefined();
    const u = summarizeUsage(s.entries);
    expect(Object.keys(u.byModel)).toEqual(['claude-opus-5-5']);
    expect(u.responses).toBe(1);
  });

  it('carried into pi, the failed request is an errored turn pi does not send', async () => {
    const s = (await new ClaudeDriver(env).getSession(API_ERROR)) as Session;
    const pi = encodePiSessionFile(s).records.flatMap((r) => {
      const m = (r as { message?: { role?: string; stopReason?: string; errorMessage?: string } }).message;
      return m?.role === 'assistant' ? [m] : [];
    });
    expect(pi.map((m) => m.stopReason)).toEqual(['stop', 'error']);
    expect(pi[1]?.errorMessage).toBe('API Error: 400 boom');
  });

  it('a call the killed process never answered gets the interrupted result, then "No response requested."', async () => {
    const ctx = await sent(KILLED);
    expect(ctx.slice(-2)).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_standin_0002',
            content:
              "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]",
            is_error: true,
          },
        ],
      },
      { role: 'assistant', content: [text('No response requested.')] },
    ]);
    expect(ctx[3]?.content).toEqual([
      text('running'),
      {
        type: 'tool_use',
        id: 'toolu_standin_0002',
        name: 'Bash',
        input: { command: 'python3 -c "import time; time.sleep(30)"', description: 'sleep' },
      },
    ]);
  });

  it('empty and thinking-only replies are left out; the no-output nudge is sent as a system reminder', async () => {
    for (const [id, prompt] of [
      [EMPTY, 'EMPTY please'],
      [THINK_ONLY, 'THINKONLY please'],
    ] as const) {
      expect(await sent(id)).toEqual([
        { role: 'user', content: [text('hello first')] },
        { role: 'assistant', content: [text('ok: hello first')] },
        { role: 'user', content: [text(`${prompt}\n`), text(NUDGE)] },
        { role: 'assistant', content: [text('No response requested.')] },
      ]);
    }
  });

  it('a call with no result mid-session drops its record; split thinking of a response with more is kept', async () => {
    const t = secondInto2026;
    const session: Session = {
      id: 'dangling',
      source: 'pi',
      project: '/work/p',
      createdAt: t(0),
      updatedAt: t(9),
      messageCount: 5,
      entries: [
        messageEntry('a', null, t(1), textMessage('user', 'q1')),
        messageEntry('b', 'a', t(2), {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'calling' },
            { type: 'tool_call', id: 'toolu_x', name: 'Bash', input: { command: 'ls' } },
          ],
        }),
        messageEntry('c', 'b', t(3), textMessage('user', 'q2')),
        messageEntry('d', 'c', t(4), {
          role: 'assistant',
          responseId: 'r2',
          parts: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }],
        }),
        messageEntry('e', 'd', t(5), { role: 'assistant', responseId: 'r2', parts: [{ type: 'text', text: 'a2' }] }),
      ],
    };
    {
      const file = encodeClaudeTranscript(session, { sessionId: '33333333-3333-4333-8333-333333333333' });
      const path = join(home, '.claude', file.relativePath);
      await fs.mkdir(join(path, '..'), { recursive: true });
      await fs.writeFile(path, file.jsonl);
      expect(await sent(file.sessionId)).toEqual([
        { role: 'user', content: [text('q1\n'), text('q2')] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, text('a2')] },
      ]);
    }
  });

  it('an assistant message with no content is not written; the turns around it join, in Claude Code and in our context', async () => {
    const session = emptyReplySession('/work/p', ['a', 'b', 'c', 'd']);
    const file = encodeClaudeTranscript(session, { sessionId: '44444444-4444-4444-8444-444444444444' });
    expect(file.records.filter((r) => r.type === 'assistant')).toHaveLength(1);
    expect(file.records.find((r) => r.uuid === 'c')?.parentUuid).toBe('a');
    expect(file.warnings.join()).toContain('no content');
    const path = join(home, '.claude', file.relativePath);
    await fs.mkdir(join(path, '..'), { recursive: true });
    await fs.writeFile(path, file.jsonl);
    expect(await sent(file.sessionId)).toEqual([
      { role: 'user', content: [text('q1\n'), text('q2')] },
      { role: 'assistant', content: [text('a2')] },
    ]);
  });

  it('a record with no content at all is sent as Claude Code reads it, "(no content)"', async () => {
    // the four records an earlier threadbase wrote for a pi turn that failed with no content; the
    // request the real Claude Code 2.1.332 sent when resuming them had the reply "(no content)"
    const records = [
      {
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/work/proj',
        sessionId: '44444444-4444-4444-8444-444444444444',
        version: '2.1.330',
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-01-01T00:00:01.000Z',
        message: { role: 'user', content: 'q1' },
      },
      {
        parentUuid: 'u1',
        isSidechain: false,
        userType: 'external',
        cwd: '/work/proj',
        sessionId: '44444444-4444-4444-8444-444444444444',
        version: '2.1.330',
        type: 'assistant',
        uuid: 'a1',
        timestamp: '2026-01-01T00:00:02.000Z',
        message: {
          id: 'msg_tb_a1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: 'error',
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      {
        parentUuid: 'a1',
        isSidechain: false,
        userType: 'external',
        cwd: '/work/proj',
        sessionId: '44444444-4444-4444-8444-444444444444',
        version: '2.1.330',
        type: 'user',
        uuid: 'u2',
        timestamp: '2026-01-01T00:00:03.000Z',
        message: { role: 'user', content: 'q2' },
      },
      {
        parentUuid: 'u2',
        isSidechain: false,
        userType: 'external',
        cwd: '/work/proj',
        sessionId: '44444444-4444-4444-8444-444444444444',
        version: '2.1.330',
        type: 'assistant',
        uuid: 'a2',
        timestamp: '2026-01-01T00:00:04.000Z',
        message: {
          id: 'msg_tb_a2',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'a2' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
    ];
    const dir = join(home, '.claude', 'projects', '-work-proj');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      join(dir, '44444444-4444-4444-8444-444444444444.jsonl'),
      records.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    expect(await sent('44444444-4444-4444-8444-444444444444')).toEqual([
      { role: 'user', content: [text('q1')] },
      { role: 'assistant', content: [{ ...text('(no content)'), citations: [] }] },
      { role: 'user', content: [text('q2')] },
      { role: 'assistant', content: [text('a2')] },
    ]);
  });
});

describe("another agent's failed turn, written for Claude Code", () => {
  const t = secondInto2026;
  const usage = { input: 12, output: 5, cacheRead: 3, cacheWrite: 4, reasoning: 0 };
  const prompt = (id: string, parentId: string | null, words: string): Entry =>
    messageEntry(id, parentId, id.charCodeAt(1), textMessage('user', words));
  const reply = (id: string, parentId: string, message: Partial<Message>): Entry =>
    messageEntry(id, parentId, id.charCodeAt(1), {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      parts: [],
      ...message,
    });
  const session = (source: string, entries: Entry[]): Session => ({
    id: `failed-${source}`,
    source,
    project: '/work/p',
    createdAt: t(0),
    updatedAt: t(99),
    messageCount: entries.length,
    entries,
  });
  async function write(s: Session) {
    const info = await new ClaudeDriver(env).writeSession(s);
    return { info, back: (await new ClaudeDriver(env).getSession(info.id)) as Session };
  }
  const messageOf = (s: Session, id: string) => {
    const e = s.entries.find((x) => x.id === id);
    if (e?.kind !== 'message') throw new Error(`no message ${id}`);
    return e.message;
  };

  it('a pi turn that ended in an error is an API-error record: Claude Code leaves it out, as pi does; read back whole', async () => {
    const failed: Partial<Message> = {
      responseId: 'msg_failed_1',
      usage,
      stopReason: 'error',
      error: 'overloaded_error: Overloaded',
      parts: [
        { type: 'thinking', thinking: 'Let me see.', signature: 'c2ln' },
        { type: 'text', text: 'The answer is' },
      ],
    };
    const s = session('pi', [
      prompt('u1', null, 'q1'),
      reply('a1', 'u1', failed),
      prompt('u2', 'a1', 'q2'),
      reply('a2', 'u2', { responseId: 'msg_ok_2', usage, stopReason: 'stop', parts: [{ type: 'text', text: 'a2' }] }),
    ]);
    const { info, back } = await write(s);
    const records = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.find((r) => r.uuid === 'a1')).toMatchObject({
      isApiErrorMessage: true,
      errorDetails: 'overloaded_error: Overloaded',
      failedResponseHadNoToolCall: true,
      message: { model: '<synthetic>', content: [{ type: 'thinking' }, { type: 'text', text: 'The answer is' }] },
    });
    // what Claude Code 2.1.332 sent for it (test/agents/claude.test.ts): the prompts around it as one turn
    expect(await sent(info.id)).toEqual([
      { role: 'user', content: [text('q1\n'), text('q2')] },
      { role: 'assistant', content: [text('a2')] },
    ]);
    // and pi's own context of the session leaves it out too
    const pi = contextToAnthropic(piContext(s)).messages;
    expect(JSON.stringify(pi)).not.toContain('The answer is');
    // nothing of it is lost on the way back
    const { meta: _m, ...read } = messageOf(back, 'a1');
    const { api: _a, ...expected } = read;
    expect(expected).toEqual({ role: 'assistant', model: 'claude-sonnet-4-5', provider: 'anthropic', ...failed });
    expect(messageOf(back, 'a1').meta).toEqual({ claude: { isApiErrorMessage: true } });
    expect(back.models).toEqual(['claude-sonnet-4-5']);
    expect(summarizeUsage(back.entries).responses).toBe(2);
    // and carried on into pi it is the errored turn it was
    const piRecords = encodePiSessionFile(back).records.flatMap((r) => {
      const m = (r as { message?: { role?: string; stopReason?: string; errorMessage?: string; content?: unknown[] } }).message;
      return m?.role === 'assistant' ? [m] : [];
    });
    expect(piRecords[0]).toMatchObject({ stopReason: 'error', errorMessage: 'overloaded_error: Overloaded' });
    expect(piRecords[0]?.content).toHaveLength(2);
  });

  it('a failed turn with a call, last: its call is interrupted, so the chain gets "No response requested."', async () => {
    // what Claude Code 2.1.332 sent on resuming such a transcript (q1, a1, q2, then its reply)
    const s = session('pi', [
      prompt('u1', null, 'q1'),
      reply('a1', 'u1', { parts: [text('a1') as { type: 'text'; text: string }] }),
      prompt('u2', 'a1', 'q2'),
      reply('a2', 'u2', {
        stopReason: 'error',
        error: 'terminated',
        parts: [{ type: 'tool_call', id: 'toolu_last', name: 'Bash', input: { command: 'ls' } }],
      }),
    ]);
    const { info } = await write(s);
    expect(await sent(info.id)).toEqual([
      { role: 'user', content: [text('q1')] },
      { role: 'assistant', content: [text('a1')] },
      { role: 'user', content: [text('q2')] },
      { role: 'assistant', content: [text('No response requested.')] },
    ]);
  });

  it('an OpenCode turn it skipped, with a call and its result: both left out, as OpenCode leaves them out', async () => {
    const call = { type: 'tool_call' as const, id: 'toolu_failed', name: 'Bash', input: { command: 'ls' } };
    const s = session('opencode', [
      prompt('u1', null, 'q1'),
      reply('a1', 'u1', {
        error: 'APIError: connection reset',
        parts: [{ type: 'text', text: 'running it' }, call],
        meta: { excludedFromContext: true },
      }),
      messageEntry('t1', 'a1', t(50), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_failed', content: 'out.txt' }],
        meta: { excludedFromContext: true },
      }),
      prompt('u2', 't1', 'q2'),
      reply('a2', 'u2', { parts: [{ type: 'text', text: 'a2' }] }),
    ]);
    const { info, back } = await write(s);
    expect(await sent(info.id)).toEqual([
      { role: 'user', content: [text('q1\n'), text('q2')] },
      { role: 'assistant', content: [text('a2')] },
    ]);
    expect(await sent(info.id)).toEqual(contextToAnthropic({ messages: claudeWording(opencodeContext(s).messages) }).messages);
    expect(messageOf(back, 'a1')).toMatchObject({
      stopReason: 'error',
      error: 'APIError: connection reset',
      parts: [text('running it'), call],
    });
    expect(messageOf(back, 't1').parts).toEqual([{ type: 'tool_result', callId: 'toolu_failed', content: 'out.txt' }]);
  });
});

describe('one response split over records, some with no blocks (real 2.1.332 request)', () => {
  it('our context is the request Claude Code sent: no-block records merged away, "(no content)" once for a response of none', async () => {
    const { id, theirs } = await installRecordedTranscript(home, 'split-empty');
    const ours = conversation((await sent(id)) as Msg[]);
    expect(ours).toEqual(theirs);
    // what each case came to
    const replies = ours.filter((m) => m.role === 'assistant').map((m) => m.content.map((b) => b.text ?? b.type));
    expect(replies).toEqual([
      ['hello'], // no blocks, then text
      ['hi'], // text, then no blocks
      ['thinking', 'tool_use'], // thinking, no blocks, call
      ['done'],
      ['(no content)'], // no blocks twice: once
      ['yo'], // text, blank text, no blocks
      // thinking + blank text, and "(no content)" text alone: no reply, the prompts join
      ['hey', '(no content)'], // its text placeholder is sent beside a reply
      // thinking + "(no content)" text: no reply
      ['(no content)'], // thinking, then no blocks
      ['end'],
    ]);
  });

  it("the writer keeps a record with no blocks in a response that has some (its usage is the response's), and leaves out a response of none", async () => {
    const t = secondInto2026;
    const usage = (output: number) => ({ input: 10, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    const said = (words: string) => [{ type: 'text' as const, text: words }];
    const m = (id: string, parentId: string | null, message: Message): Entry =>
      messageEntry(id, parentId, Number(id.slice(1)), message);
    const asst = (responseId: string, parts: Message['parts'], output: number): Message => ({
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      responseId,
      usage: usage(output),
      parts,
    });
    const session: Session = {
      id: 'split-empty',
      source: 'codex',
      project: '/work/p',
      createdAt: t(0),
      updatedAt: t(9),
      messageCount: 7,
      entries: [
        m('e1', null, { role: 'user', parts: said('q1') }),
        m('e2', 'e1', asst('resp_1', said('hello'), 2)),
        // the response's last record, with its final usage, and no blocks (an encrypted reasoning item, say)
        m('e3', 'e2', asst('resp_1', [{ type: 'thinking', thinking: '' }], 7)),
        m('e4', 'e3', { role: 'user', parts: said('q2') }),
        m('e5', 'e4', asst('resp_2', [], 1)),
        m('e6', 'e5', asst('resp_2', [], 1)),
        m('e7', 'e6', { role: 'user', parts: said('q3') }),
      ],
    };
    const file = encodeClaudeTranscript(session, { sessionId: '55555555-5555-4555-8555-555555555555' });
    const written = file.records.filter((r) => r.type === 'assistant');
    expect(written.map((r) => [r.uuid, (r.message as { content: unknown[] }).content.length])).toEqual([
      ['e2', 1],
      ['e3', 0],
    ]);
    expect(file.records.find((r) => r.uuid === 'e7')?.parentUuid).toBe('e4');
    const path = join(home, '.claude', file.relativePath);
    await fs.mkdir(join(path, '..'), { recursive: true });
    await fs.writeFile(path, file.jsonl);
    const back = (await new ClaudeDriver(env).getSession(file.sessionId)) as Session;
    expect(summarizeUsage(back.entries).usage.output).toBe(7);
    expect(await sent(file.sessionId)).toEqual([
      { role: 'user', content: [text('q1')] },
      { role: 'assistant', content: [text('hello')] },
      { role: 'user', content: [text('q2\n'), text('q3')] },
      { role: 'assistant', content: [text('No response requested.')] },
    ]);
  });
});

describe('blank text (empty or whitespace only) in replies and prompts (real 2.1.332 request)', () => {
  it('our context is the request Claude Code sent: what goes, what stays and what becomes a placeholder', async () => {
    const { id, theirs } = await installRecordedTranscript(home, 'blank-text');
    const ctx = await new ClaudeDriver(env).getContext(id);
    // the context itself, not only its rendering (which leaves out empty text of its own)
    const ours = conversation(contextToAnthropic(ctx, { unsignedThinking: 'keep', dropEmptyText: false }).messages as Msg[]);
    expect(ours).toEqual(theirs);
    expect(conversation((await sent(id)) as Msg[])).toEqual(theirs);
    const shown = (m: { content: Block[] }) =>
      m.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? 'result' : b.type));
    const T = 'thinking';
    expect(ours.map(shown)).toEqual([
      // one record: whitespace-only text stays, empty text goes ...
      ['q1'],
      ['hello', '  '],
      ['q2'],
      ['hello'],
      ['q3'],
      ['tool_use'],
      ['result'],
      ['done'],
      ['q4'],
      ['  ', 'tool_use'],
      ['result'],
      ['done'],
      ['q5'],
      ['\n', 'mid', '\t '],
      // ... but between two thinking blocks of a reply it is a placeholder
      ['q6'],
      [T, '[Empty text removed]', T, 'after'],
      ['q7'],
      [T, '  ', T, 'after'],
      // split over records: whitespace-only text goes too, unless between two thinking blocks
      ['q8'],
      ['hi'],
      ['q9'],
      ['hi'],
      ['q10'],
      ['hi'],
      ['q11'],
      ['hello', 'more'],
      ['q12'],
      [T, '[Empty text removed]', T, 'after'],
      ['q13'],
      [T, '  ', T, 'after'],
      ['q14'],
      [T, 'tool_use'],
      ['result'],
      ['done'],
      ['q15'],
      [T, '[Empty text removed]', T, 'tool_use'],
      ['result'],
      ['done'],
      ['q16'],
      [T, 'after'],
      ['q17'],
      ['x'],
      // prompts given as blocks lose their blank text ("(no content)" when that was all), a string stays
      ['q18'],
      ['a18'],
      ['q19'],
      ['a19'],
      ['(no content)'],
      ['a20'],
      ['   '],
      ['a21'],
      ['q22', 'r22'],
      ['a22'],
      ['r23'],
      ['a23'],
      ['(no content)'],
      ['a24'],
      ['q25'],
      ['tool_use'],
      ['result'],
      ['a25'],
    ]);
    // the placeholders as Claude Code sends them
    const blocks = ours.flatMap((m) => m.content);
    expect(blocks.filter((b) => b.text === '[Empty text removed]')).toEqual(
      Array(3).fill({ type: 'text', text: '[Empty text removed]', citations: [] }),
    );
    expect(blocks.filter((b) => b.text === '(no content)')).toEqual([text('(no content)'), text('(no content)')]);
    // the same without the records (as the local index keeps a session), and record by record
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    const bare = { ...s, entries: s.entries.map(({ raw: _r, ...e }) => e as Entry) };
    expect(conversation(contextToAnthropic(claudeContext(bare)).messages as Msg[])).toEqual(theirs);
    // and written back from there, a lone blank text block stays a block, a blank string a string
    const file = encodeClaudeTranscript(bare, { sessionId: '66666666-6666-4666-8666-666666666666' });
    const blank = (c: unknown) => typeof c === 'string' && c.trim() === '';
    const prompts = file.records.flatMap((r) => {
      const c = (r.message as { content?: unknown } | undefined)?.content;
      const lone = Array.isArray(c) && c.length === 1 ? (c[0] as Block) : undefined;
      return r.type === 'user' && (blank(c) || (lone?.type === 'text' && blank(lone.text))) ? [c] : [];
    });
    expect(prompts).toEqual([[text('  ')], '   ', '  ', '  ']);
    const perRecord = claudeContext(s, { mergeSplitResponses: false });
    expect(conversation(contextToAnthropic({ messages: mergeSplitResponses(perRecord.messages) }).messages as Msg[])).toEqual(
      theirs,
    );
  });
});
