/**
 * The request bodies `threadbase context --format anthropic|openai|openai-responses|ai-sdk` prints pair
 * tool calls and results as each API requires: every call answered exactly once in the place the API
 * wants the answer, no result without its call. A context that already does renders as it did.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiModelMessage, contextToAiSdk, messagesToAiSdk } from '../../src/convert/ai-sdk.js';
import {
  type AnthropicMessage,
  type AnthropicRequest,
  contextFromAnthropic,
  contextToAnthropic,
  messagesToAnthropic,
} from '../../src/convert/anthropic.js';
import { renderContext } from '../../src/convert/formats.js';
import { contextToOpenAI, messagesToOpenAI, type OpenAIMessage } from '../../src/convert/openai.js';
import { NO_RESULT_TEXT, pairToolResults } from '../../src/convert/pairing.js';
import '../../src/formats/all.js';
import { CodexDriver, contextToResponses, messageToItems } from '../../src/formats/codex/index.js';
import type { JsonObject } from '../../src/formats/codex/items.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Context } from '../../src/model/tree.js';
import type { Message, Part, TextPart, ToolCallPart, ToolResultPart } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';

// ---------------------------------------------------------------------------------------------
// contexts

const text = (t: string): TextPart => ({ type: 'text', text: t });
const call = (id: string, name = 'bash'): ToolCallPart => ({ type: 'tool_call', id, name, input: { command: `run ${id}` } });
const result = (id: string, out = `out ${id}`): ToolResultPart => ({ type: 'tool_result', callId: id, content: out });
const user = (t: string): Message => ({ role: 'user', parts: [text(t)] });
const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts });
const tool = (...parts: Part[]): Message => ({ role: 'tool', parts });
const ctxOf = (...messages: Message[]): Context => ({ system: 'be brief', messages });

/** The broken contexts of the task, each with the call ids that must get an answer put in. */
const BROKEN: { name: string; ctx: Context; missing: string[]; dropped: string[] }[] = [
  {
    name: '(a) a dangling call at the end',
    ctx: ctxOf(user('q1'), assistant(call('c1')), tool(result('c1')), assistant(text('next'), call('c2'))),
    missing: ['c2'],
    dropped: [],
  },
  {
    name: '(b) a dangling call in the middle, then a user message',
    ctx: ctxOf(user('q1'), assistant(text('let me look'), call('c1')), user('never mind, q2'), assistant(text('ok'))),
    missing: ['c1'],
    dropped: [],
  },
  {
    name: '(c) an orphan result',
    ctx: ctxOf(user('q1'), tool(result('gone'), text('and this')), assistant(text('a1')), user('q2')),
    missing: [],
    dropped: ['gone'],
  },
  {
    name: '(d) parallel calls, one result missing',
    ctx: ctxOf(
      user('q1'),
      assistant(call('p1'), call('p2'), call('p3')),
      tool(result('p1'), result('p3')),
      assistant(text('done')),
    ),
    missing: ['p2'],
    dropped: [],
  },
  {
    name: '(e) a result separated from its call by a user message',
    ctx: ctxOf(user('q1'), assistant(call('s1')), user('while it runs'), tool(result('s1')), assistant(text('done'))),
    missing: [],
    dropped: [],
  },
  {
    // not for the Responses API: codex's normalizer (which it uses) keeps these as codex would send them
    name: '(f) a result after a later turn, one before its call and a second result for one call',
    ctx: ctxOf(
      user('q1'),
      assistant(call('l1')),
      tool(result('x1', 'too early')),
      assistant(call('x1')),
      tool(result('l1'), result('x1'), result('x1', 'again')),
      assistant(text('done')),
    ),
    missing: [],
    dropped: [],
  },
];

/** Well-formed contexts: every API takes them as they are. */
const WELL_FORMED: Context[] = [
  ctxOf(user('hi'), assistant(text('hello'))),
  ctxOf(
    user('q1'),
    assistant({ type: 'thinking', thinking: 'hm', signature: 'sig' }, text('two at once'), call('w1'), call('w2', 'read')),
    // answered in the other order, an error among them, text after the results
    tool({ ...result('w2'), isError: true }, result('w1'), text('note after the results')),
    assistant(text('both done'), call('w3')),
    tool(result('w3', '')),
    tool(text('a second tool message without results')),
    user('q2'),
    assistant(text('a2')),
  ),
  // a result carrying an image, and a system message the middle of a context may hold
  ctxOf(
    user('look'),
    assistant(call('i1', 'screenshot')),
    tool({
      type: 'tool_result',
      callId: 'i1',
      content: [text('the screen'), { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
    }),
    { role: 'system', parts: [text('a later instruction')] },
    assistant(text('I see it')),
  ),
];

// ---------------------------------------------------------------------------------------------
// the invariant, on each wire shape: problems found, none when the API takes the request

interface Checked {
  problems: string[];
  /** call id → its answer's text and error flag, as rendered */
  answers: Map<string, { text: string; isError: boolean }>;
}

const textOf = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((b) => (typeof b === 'object' && b && 'text' in b ? String(b.text) : '')).join('')
      : JSON.stringify(c);

function answerOnce(out: Checked, id: string, answer: { text: string; isError: boolean }) {
  if (out.answers.has(id)) out.problems.push(`${id} answered twice`);
  out.answers.set(id, answer);
}

/** Anthropic: the user message after an assistant's tool_use blocks starts with their tool_results, no other. */
function checkAnthropic(messages: AnthropicRequest['messages']): Checked {
  const out: Checked = { problems: [], answers: new Map() };
  messages.forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [] : m.content;
    if (i > 0 && messages[i - 1]?.role === m.role) out.problems.push(`messages ${i - 1} and ${i} are both ${m.role}`);
    if (m.role === 'assistant') {
      if (blocks.some((b) => b.type === 'tool_result')) out.problems.push(`tool_result in assistant message ${i}`);
      const calls = blocks.flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : []));
      if (calls.length === 0) return;
      const next = messages[i + 1];
      const nextBlocks = next && typeof next.content !== 'string' ? next.content : [];
      const lead: string[] = [];
      for (const b of nextBlocks) {
        if (b.type !== 'tool_result') break;
        lead.push(String(b.tool_use_id));
        answerOnce(out, String(b.tool_use_id), { text: textOf(b.content), isError: b.is_error === true });
      }
      if ([...lead].sort().join() !== [...calls].sort().join())
        out.problems.push(`message ${i}: tool_use ${calls.join()} answered by ${lead.join() || 'nothing'} right after`);
      return;
    }
    const prev = messages[i - 1];
    const prevCalls =
      prev?.role === 'assistant' && typeof prev.content !== 'string' ? prev.content.filter((b) => b.type === 'tool_use') : [];
    let leading = true;
    blocks.forEach((b) => {
      if (b.type !== 'tool_result') leading = false;
      else if (!leading || prevCalls.length === 0) out.problems.push(`message ${i}: tool_result ${b.tool_use_id} out of place`);
    });
  });
  return out;
}

/** OpenAI chat: an assistant's tool_calls are followed at once by one tool message each; no tool message elsewhere. */
function checkOpenAI(messages: readonly OpenAIMessage[]): Checked {
  const out: Checked = { problems: [], answers: new Map() };
  let open: string[] = [];
  let inToolRun = false;
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!inToolRun || !open.includes(m.tool_call_id)) out.problems.push(`message ${i}: tool ${m.tool_call_id} out of place`);
      open = open.filter((id) => id !== m.tool_call_id);
      answerOnce(out, m.tool_call_id, { text: textOf(m.content), isError: false });
      return;
    }
    if (open.length) out.problems.push(`before message ${i}: ${open.join()} not answered`);
    open = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [];
    inToolRun = open.length > 0;
  });
  if (open.length) out.problems.push(`at the end: ${open.join()} not answered`);
  return out;
}

/** AI SDK: an assistant message's tool-call parts are answered by the tool message(s) right after it, and only there. */
function checkAiSdk(messages: readonly AiModelMessage[]): Checked {
  const out: Checked = { problems: [], answers: new Map() };
  let open: string[] = [];
  let inToolRun = false;
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      for (const p of m.content) {
        if (!inToolRun || !open.includes(p.toolCallId)) out.problems.push(`message ${i}: result ${p.toolCallId} out of place`);
        if (!p.toolName) out.problems.push(`message ${i}: result ${p.toolCallId} without toolName`);
        open = open.filter((id) => id !== p.toolCallId);
        const o = p.output;
        answerOnce(out, p.toolCallId, {
          text: o.type === 'text' || o.type === 'error-text' ? o.value : JSON.stringify(o.value),
          isError: o.type === 'error-text' || o.type === 'error-json',
        });
      }
      return;
    }
    if (open.length) out.problems.push(`before message ${i}: ${open.join()} not answered`);
    open =
      m.role === 'assistant' && Array.isArray(m.content)
        ? m.content.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : []))
        : [];
    inToolRun = open.length > 0;
  });
  if (open.length) out.problems.push(`at the end: ${open.join()} not answered`);
  return out;
}

/** Responses: each function_call has exactly one function_call_output after it; no output without its call. */
function checkResponses(input: readonly JsonObject[]): Checked {
  const out: Checked = { problems: [], answers: new Map() };
  const seen = new Set<string>();
  input.forEach((item, i) => {
    if (item.type === 'function_call') seen.add(String(item.call_id));
    else if (item.type === 'function_call_output') {
      if (!seen.has(String(item.call_id))) out.problems.push(`item ${i}: output ${item.call_id} without its call before it`);
      answerOnce(out, String(item.call_id), { text: textOf(item.output), isError: false });
    }
  });
  for (const id of seen) if (!out.answers.has(id)) out.problems.push(`${id} has no output`);
  return out;
}

interface Format {
  name: string;
  render: (ctx: Context) => Checked;
  /** how the format words an answer put in for a missing result */
  missingAnswer: { text: string; isError: boolean };
  /** the body as the messages were rendered before pairing (for well-formed contexts) */
  unpaired: (ctx: Context) => unknown;
  paired: (ctx: Context) => unknown;
}

const FORMATS: Format[] = [
  {
    name: 'anthropic',
    render: (ctx) => checkAnthropic(contextToAnthropic(ctx).messages),
    missingAnswer: { text: NO_RESULT_TEXT, isError: true },
    unpaired: (ctx) => messagesToAnthropic(ctx.messages, { unsignedThinking: 'text', dropEmptyText: true }).messages,
    paired: (ctx) => contextToAnthropic(ctx).messages,
  },
  {
    name: 'openai',
    render: (ctx) => checkOpenAI(contextToOpenAI(ctx).messages),
    missingAnswer: { text: NO_RESULT_TEXT, isError: false },
    unpaired: (ctx) => messagesToOpenAI(ctx.messages),
    paired: (ctx) => contextToOpenAI(ctx).messages.slice(ctx.system ? 1 : 0),
  },
  {
    name: 'ai-sdk',
    render: (ctx) => checkAiSdk(contextToAiSdk(ctx).messages),
    missingAnswer: { text: NO_RESULT_TEXT, isError: true },
    unpaired: (ctx) => messagesToAiSdk(ctx.messages),
    paired: (ctx) => contextToAiSdk(ctx).messages.slice(ctx.system ? 1 : 0),
  },
  {
    name: 'openai-responses',
    render: (ctx) => checkResponses(contextToResponses(ctx).input),
    missingAnswer: { text: 'aborted', isError: false },
    unpaired: (ctx) => ctx.messages.flatMap((m) => messageToItems(m).flatMap((e) => (e.item ? [e.item] : []))),
    paired: (ctx) => contextToResponses(ctx).input,
  },
];

const allCalls = (ctx: Context) =>
  ctx.messages.flatMap((m) => (m.role === 'assistant' ? m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])) : []));

describe.each(FORMATS)('$name request bodies', (f) => {
  const broken = f.name === 'openai-responses' ? BROKEN.filter((c) => !c.name.startsWith('(f)')) : BROKEN;
  it.each(broken)('$name: every call answered once, in place; no orphan result', ({ ctx, missing, dropped }) => {
    const { problems, answers } = f.render(ctx);
    expect(problems).toEqual([]);
    expect([...answers.keys()].sort()).toEqual([...new Set(allCalls(ctx))].sort());
    for (const id of missing) expect(answers.get(id)).toEqual(f.missingAnswer);
    for (const id of dropped) expect(answers.has(id)).toBe(false);
    // a result that was there keeps its content (the first one, when a call had two)
    for (const id of allCalls(ctx).filter((c) => !missing.includes(c))) expect(answers.get(id)?.text).toBe(`out ${id}`);
  });

  it.each(WELL_FORMED.map((ctx, i) => ({ n: `#${i + 1}`, ctx })))('well-formed context $n renders as before', ({ ctx }) => {
    expect(f.render(ctx).problems).toEqual([]);
    expect(f.paired(ctx)).toEqual(f.unpaired(ctx));
  });
});

describe('pairing details', () => {
  it('anthropic: the result moves to the front of the next user message; a split response is one turn', () => {
    const moved = contextToAnthropic(
      ctxOf(user('q'), assistant(call('m1')), user('while it runs'), tool(result('m1'), text('after'))),
    ).messages;
    expect(moved[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'm1', content: 'out m1' },
      { type: 'text', text: 'while it runs' },
      { type: 'text', text: 'after' },
    ]);
    // Claude Code records each tool_use of one response in its own record: one assistant message
    const split = ctxOf(user('q'), assistant(call('s1')), assistant(call('s2')), tool(result('s1'), result('s2')));
    expect(contextToAnthropic(split).messages).toEqual(messagesToAnthropic(split.messages).messages);
    // a system message among them is lifted into `system` and does not split the turn either
    const withSystem = ctxOf(
      user('q'),
      assistant(call('s1')),
      { role: 'system', parts: [text('sys')] },
      assistant(call('s2')),
      tool(result('s1'), result('s2')),
    );
    expect(contextToAnthropic(withSystem)).toEqual({
      system: 'be brief\n\nsys',
      messages: messagesToAnthropic(split.messages).messages,
    });
  });

  it('openai: each assistant message is answered before the next; images of tool results follow all tool messages', () => {
    const split = contextToOpenAI(
      ctxOf(user('q'), assistant(call('s1')), assistant(call('s2')), tool(result('s1'), result('s2'))),
    ).messages;
    expect(split.map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.role))).toEqual([
      'system',
      'user',
      'assistant',
      'tool:s1',
      'assistant',
      'tool:s2',
    ]);
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    const withImage = contextToOpenAI(
      ctxOf(
        user('q'),
        assistant(call('i1'), call('i2')),
        tool({ ...result('i1'), content: [text('shot'), image] }),
        tool(result('i2')),
      ),
    ).messages;
    expect(checkOpenAI(withImage).problems).toEqual([]);
    expect(withImage.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
  });

  it('ai-sdk: a put-in result names its tool and is an error-text output', () => {
    const messages = contextToAiSdk(ctxOf(user('q'), assistant(call('d1', 'grep')))).messages;
    expect(messages[messages.length - 1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'd1', toolName: 'grep', output: { type: 'error-text', value: NO_RESULT_TEXT } },
      ],
    });
  });

  it('anthropic: a tool id that repeats across turns is made unique, each result following its own call', () => {
    const ctx = ctxOf(
      user('q'),
      assistant(call('functions.bash:0')),
      tool(result('functions.bash:0', 'first')),
      assistant(call('functions.bash:0')),
      tool(result('functions.bash:0', 'second')),
    );
    const messages = contextToAnthropic(ctx).messages;
    expect(checkAnthropic(messages).problems).toEqual([]);
    const blocks = messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
    const ids = blocks.flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : []));
    expect(new Set(ids).size).toBe(2);
    expect(blocks.flatMap((b) => (b.type === 'tool_result' ? [[b.tool_use_id, b.content]] : []))).toEqual([
      [ids[0], 'first'],
      [ids[1], 'second'],
    ]);
  });

  it('an assistant message with nothing in it (a turn that failed before any output) is left out of every body', () => {
    const failed: Message = { role: 'assistant', parts: [], stopReason: 'error', error: 'overloaded' };
    const ctx = ctxOf(user('q'), failed, user('again'), assistant(text('a')));
    expect(contextToOpenAI(ctx).messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant']);
    expect(contextToAiSdk(ctx).messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant']);
    expect(contextToAnthropic(ctx).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // a reply of reasoning only stays: chat's reasoning_content and the AI SDK's reasoning part carry it
    const thought = ctxOf(user('q'), assistant({ type: 'thinking', thinking: 'hmm' }), user('again'));
    expect(contextToOpenAI(thought).messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(contextToAiSdk(thought).messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('is idempotent: a paired context pairs to itself, and a rendered body read back renders the same', () => {
    for (const { ctx } of BROKEN) {
      for (const mergeAssistants of [true, false]) {
        const once = pairToolResults(ctx.messages, { mergeAssistants });
        expect(pairToolResults(once, { mergeAssistants })).toEqual(once);
      }
      const body = contextToAnthropic(ctx);
      expect(contextToAnthropic(contextFromAnthropic(body))).toEqual(body);
      const input = contextToResponses(ctx).input;
      expect(contextToResponses({ messages: ctx.messages }).input).toEqual(input);
    }
  });

  it("codex's own sessions render exactly as before (their context went through codex's normalizer)", async () => {
    let count = 0;
    for (const dir of ['home', 'audit-home', 'subagent-home']) {
      const driver = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: resolve('test/fixtures/codex', dir) } });
      for (const s of await driver.listSessions()) {
        const ctx = await driver.getContext(s.id);
        const before = ctx.messages.flatMap((m) => messageToItems(m).flatMap((e) => (e.item ? [e.item] : [])));
        expect(contextToResponses(ctx).input).toEqual(before);
        count++;
      }
    }
    expect(count).toBeGreaterThan(5);
  });
});

// ---------------------------------------------------------------------------------------------
// through the CLI, on the real OpenCode session of test/fixtures/opencode at the entry of its bash call
// (the session as it stood while the call ran: the context ends in the call)

describe('threadbase context on a session that ends in a tool call', () => {
  const SESSION = 'ses_dfb46f783ffeZ1j67MnacZPrQP';
  const AT_CALL = 'msg_204b91c64001E7HE21dQVJ0FHQ';
  const CALL = 'toolu_standin_0010';
  let root: string;
  let env: DriverEnv;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tb-request-pairing-'));
    await mkdir(join(root, '.local', 'share', 'opencode'), { recursive: true });
    await cp(resolve('test/fixtures/opencode/opencode.db'), join(root, '.local', 'share', 'opencode', 'opencode.db'));
    env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const context = async (format: string) =>
    JSON.parse(await runCliOk(env, ['context', SESSION, '--leaf', AT_CALL, '--format', format])) as unknown;

  it('prints a body every API takes, the call answered last', async () => {
    const anthropic = (await context('anthropic')) as { messages: AnthropicMessage[] };
    const a = checkAnthropic(anthropic.messages);
    expect(a.problems).toEqual([]);
    expect(a.answers.get(CALL)).toEqual({ text: NO_RESULT_TEXT, isError: true });
    expect(anthropic.messages[anthropic.messages.length - 1]?.role).toBe('user');

    const openai = (await context('openai')) as { messages: OpenAIMessage[] };
    const o = checkOpenAI(openai.messages);
    expect(o.problems).toEqual([]);
    expect(openai.messages[openai.messages.length - 1]).toEqual({ role: 'tool', tool_call_id: CALL, content: NO_RESULT_TEXT });

    const aiSdk = (await context('ai-sdk')) as { messages: AiModelMessage[] };
    expect(checkAiSdk(aiSdk.messages).problems).toEqual([]);
    expect(checkAiSdk(aiSdk.messages).answers.get(CALL)).toEqual({ text: NO_RESULT_TEXT, isError: true });

    const responses = (await context('openai-responses')) as { input: JsonObject[] };
    expect(checkResponses(responses.input).problems).toEqual([]);
    expect(responses.input[responses.input.length - 1]).toEqual({
      type: 'function_call_output',
      call_id: CALL,
      output: 'aborted',
    });

    // what the library renders from the driver's context
    const sources = new Sources(env);
    try {
      const ctx = await sources.driver('opencode').getContext(SESSION, { leafId: AT_CALL });
      expect(renderContext(ctx, 'anthropic')).toEqual(anthropic);
    } finally {
      await sources.close();
    }
  });
});

describe('real sessions whose context every API already takes', () => {
  let root: string;
  let sources: Sources;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tb-request-pairing-real-'));
    await mkdir(join(root, '.claude'), { recursive: true });
    for (const d of ['real', 'resume', 'older'])
      await cp(resolve('test/fixtures/claude', d, 'projects'), join(root, '.claude', 'projects'), { recursive: true });
    await cp(resolve('test/fixtures/pi'), join(root, '.pi', 'agent', 'sessions', '--work-x--'), { recursive: true });
    await mkdir(join(root, '.local', 'share', 'opencode'), { recursive: true });
    await cp(resolve('test/fixtures/opencode/opencode.db'), join(root, '.local', 'share', 'opencode', 'opencode.db'));
    await cp(resolve('test/fixtures/gemini/home/.gemini'), join(root, '.gemini'), { recursive: true });
    await cp(resolve('test/fixtures/zed/home/.local/share/zed'), join(root, '.local', 'share', 'zed'), { recursive: true });
    sources = new Sources({ home: root, env: { HOME: root } });
  });
  afterAll(async () => {
    await sources?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.each(['claude', 'pi', 'opencode', 'gemini', 'zed'])('%s: each body renders exactly as before', async (source) => {
    const driver = sources.driver(source);
    const sessions = await driver.listSessions();
    expect(sessions.length).toBeGreaterThan(0);
    for (const s of sessions) {
      const ctx = await driver.getContext(s.id);
      for (const f of FORMATS) {
        expect(f.render(ctx).problems, `${f.name} of ${source} ${s.id}`).toEqual([]);
        expect(f.paired(ctx), `${f.name} of ${source} ${s.id}`).toEqual(f.unpaired(ctx));
      }
    }
  });
});
