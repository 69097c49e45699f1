/** Small building blocks the tests' hand-made sessions share. */
import type { BranchSummaryEntry, Entry, Message, MessageEntry, Session, ToolResultPart, Usage } from '../../src/model/types.js';

/** A 1×1 PNG, base64: a real image every agent and encoder accepts, small enough to inline. */
export const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The ISO time `second` seconds into 2026 (UTC): distinct, ordered timestamps for hand-made entries. */
export function secondInto2026(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
}

/**
 * A session of one prompt and its text reply, written from threadbase (`at`: the entries' times,
 * default seconds into 2026), for tests of where an agent files or finds what we write.
 */
export function oneExchange(opts: {
  id: string;
  project: string;
  prompt: string;
  reply: string;
  assistant?: Partial<MessageEntry['message']>;
  title?: string;
  at?: (n: number) => string;
}): Session {
  const t = opts.at ?? secondInto2026;
  return {
    id: opts.id,
    source: 'threadbase',
    project: opts.project,
    ...(opts.title ? { title: opts.title } : {}),
    createdAt: t(0),
    updatedAt: t(2),
    messageCount: 2,
    entries: [
      {
        id: 'u1',
        parentId: null,
        timestamp: t(1),
        kind: 'message',
        message: { role: 'user', parts: [{ type: 'text', text: opts.prompt }] },
      },
      {
        id: 'a1',
        parentId: 'u1',
        timestamp: t(2),
        kind: 'message',
        message: { role: 'assistant', ...opts.assistant, parts: [{ type: 'text', text: opts.reply }] },
      },
    ],
  };
}

/**
 * Assistant records whose responses spread usage and cost over several records (a cost alone on a
 * later record, a response with neither, a record of its own without either), after one user message
 * `<prefix>0`, and a compaction whose summary's request was recorded (as OpenCode records it): what
 * every store must count as summarizeUsage counts (127 input, 10 output, 0.75, 4 responses).
 */
export function spreadUsageEntries(prefix = 'k'): Entry[] {
  const u = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
  const specs: [string, Partial<MessageEntry['message']>][] = [
    ['go', { role: 'user' }],
    // usage on the first record, a cost on the last alone (the last with usage gives the tokens)
    ['a', { model: 'big', responseId: 'r1', usage: u(100, 5), cost: 0.5 }],
    ['b', { model: 'big', responseId: 'r1', cost: 0.75 }],
    // a split response with neither counts as a response
    ['c', { model: 'big', responseId: 'r2' }],
    ['d', { model: 'big', responseId: 'r2' }],
    // a record of its own counts only with usage or a cost
    ['e', { model: 'small', usage: u(7, 3) }],
    ['f', { model: 'small' }],
  ];
  const messages: Entry[] = specs.map(([text, extra], i) => ({
    kind: 'message',
    id: `${prefix}${i}`,
    parentId: i ? `${prefix}${i - 1}` : null,
    timestamp: secondInto2026(i + 1),
    message: { role: 'assistant', parts: [{ type: 'text', text }], ...extra },
  }));
  const compaction: Entry = {
    kind: 'compaction',
    id: `${prefix}${specs.length}`,
    parentId: `${prefix}${specs.length - 1}`,
    timestamp: secondInto2026(specs.length + 1),
    summary: 'what we did so far',
    usage: u(20, 2),
    model: 'big',
  };
  return [...messages, compaction];
}

/** Every token count and price term Claude Code records of a request (usage the agents must keep). */
export const PRICE_TERMS = {
  input: 100,
  output: 50,
  cacheRead: 0,
  cacheWrite: 20,
  cacheWrite1h: 10,
  reasoning: 30,
  webSearches: 1,
  speed: 'fast' as const,
  inferenceGeo: 'us',
  advisors: [{ model: 'claude-opus-5', input: 400, output: 60, cacheRead: 0, cacheWrite: 0 }],
};

/**
 * Parallel tool calls as pi and OpenCode record them, for tests of writing them into Claude Code:
 * pi's one assistant message with both calls and a toolResult message per call; OpenCode's steps with
 * their calls (one with text after a call) and one message of the step's results.
 */
export function parallelCallSessions(project: string): { pi: Session; opencode: Session } {
  const usage = { input: 10, output: 6, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const call = (id: string, command: string) => ({
    type: 'tool_call' as const,
    id,
    name: 'Bash',
    input: { command, description: 'echo' },
  });
  const result = (id: string, content: string) => ({ type: 'tool_result' as const, callId: id, content });
  const said = (text: string) => ({ type: 'text' as const, text });
  const reply = (responseId: string, parts: Message['parts'], stopReason: string): Message => ({
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    responseId,
    usage,
    parts,
    stopReason,
  });
  const session = (source: string, messages: Message[]): Session =>
    chainSession(
      `parallel-${source}`,
      source,
      project,
      messages.map((m, i) => [`${source}-${i}`, m]),
    );
  const pi = session('pi', [
    { role: 'user', parts: [said('echo two things')] },
    reply('resp_pi_1', [said('Running both.'), call('toolu_pi_1', 'echo one'), call('toolu_pi_2', 'echo two')], 'toolUse'),
    { role: 'tool', parts: [result('toolu_pi_1', 'one')] },
    { role: 'tool', parts: [result('toolu_pi_2', 'two')] },
    reply('resp_pi_2', [said('one and two')], 'stop'),
  ]);
  const opencode = session('opencode', [
    { role: 'user', parts: [said('echo two things')] },
    reply(
      'opencode:1:2:0:10/6',
      [said('Running both.'), call('toolu_oc_1', 'echo one'), call('toolu_oc_2', 'echo two')],
      'tool-calls',
    ),
    { role: 'tool', parts: [result('toolu_oc_1', 'one'), result('toolu_oc_2', 'two')] },
    reply('opencode:3:4:0:10/6', [said('one and two')], 'stop'),
    { role: 'user', parts: [said('text after a call')] },
    reply(
      'opencode:5:6:0:10/6',
      [call('toolu_oc_3', 'echo three'), said('and some text'), call('toolu_oc_4', 'echo four')],
      'tool-calls',
    ),
    { role: 'tool', parts: [result('toolu_oc_3', 'three'), result('toolu_oc_4', 'four')] },
    reply('opencode:7:8:0:10/6', [said('done')], 'stop'),
  ]);
  return { pi, opencode };
}

/**
 * A session of these messages in one chain, each the child of the one before, timed one second
 * apart into 2026 (its entry ids given with each message).
 */
export function chainSession(id: string, source: string, project: string, messages: [string, Message][]): Session {
  const t = secondInto2026;
  return {
    id,
    source,
    project,
    createdAt: t(0),
    updatedAt: t(99),
    messageCount: messages.length,
    entries: messages.map(([eid, message], i) => ({
      kind: 'message',
      id: eid,
      parentId: i ? (messages[i - 1]?.[0] as string) : null,
      timestamp: t(i + 1),
      message,
    })),
  };
}

/** A session of one user message (entry u1) of `content` (a text or parts), for a test about pages or routes rather than a conversation. */
export function oneMessageSession(id: string, title?: string, content: string | Message['parts'] = 'hi'): Session {
  return {
    id,
    source: 'threadbase',
    ...(title !== undefined ? { title } : {}),
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    messageCount: 1,
    entries: [
      {
        id: 'u1',
        parentId: null,
        timestamp: '2026-11-20T10:00:00.000Z',
        kind: 'message',
        message: { role: 'user', parts: typeof content === 'string' ? [{ type: 'text', text: content }] : content },
      },
    ],
  };
}

/** threadbase's own session of one user message, "hello from <id>" (its entry `<id>-e1`), for pushes and stores. */
export function helloSession(id: string): Session {
  const at = '2025-01-01T00:00:00.000Z';
  return {
    id,
    source: 'threadbase',
    createdAt: at,
    updatedAt: at,
    messageCount: 0,
    entries: [messageEntry(`${id}-e1`, null, at, textMessage('user', `hello from ${id}`))],
  };
}

/** A message entry of `message` at `at`: an ISO time, or a number of seconds into 2026. */
export function messageEntry(id: string, parentId: string | null, at: string | number, message: Message): MessageEntry {
  return { kind: 'message', id, parentId, timestamp: typeof at === 'number' ? secondInto2026(at) : at, message };
}

/** A message of one text; `extra`: the rest of it (a model, usage, meta …). */
export function textMessage(role: Message['role'], text: string, extra: Partial<Message> = {}): Message {
  return { role, parts: [{ type: 'text', text }], ...extra };
}

/** A message entry of one text at second `s` into 2026 (an assistant's with a model, as writers want one). */
export function textEntry(id: string, parentId: string | null, s: number, role: Message['role'], text: string): Entry {
  return messageEntry(id, parentId, s, textMessage(role, text, role === 'assistant' ? { model: 'claude-sonnet-4-5' } : {}));
}

/**
 * A pi session whose tool ids repeat across turns (a provider that numbers each response's calls,
 * as Kimi's `functions.bash:0`) and one the Messages API refuses (OpenAI's `call_…|fc_…`): three
 * calls, each answered ("out 1" … "out 3"), then a text reply.
 */
export function repeatedToolIdSession(project: string): Session {
  const bash = (id: string, command: string): Message => ({
    role: 'assistant',
    model: 'kimi-k2',
    provider: 'moonshot',
    stopReason: 'toolUse',
    parts: [{ type: 'tool_call', id, name: 'bash', input: { command } }],
  });
  const out = (callId: string, content: string): Message => ({
    role: 'tool',
    parts: [{ type: 'tool_result', callId, name: 'bash', content }],
  });
  return chainSession('repeated-ids', 'pi', project, [
    ['u1', { role: 'user', parts: [{ type: 'text', text: 'list, then count, then date' }] }],
    ['a1', bash('functions.bash:0', 'ls')],
    ['r1', out('functions.bash:0', 'out 1')],
    ['a2', bash('functions.bash:0', 'wc -l')],
    ['r2', out('functions.bash:0', 'out 2')],
    ['a3', bash('call_7|fc_7', 'date')],
    ['r3', out('call_7|fc_7', 'out 3')],
    ['a4', { role: 'assistant', model: 'kimi-k2', provider: 'moonshot', parts: [{ type: 'text', text: 'done' }] }],
  ]);
}

/**
 * An OpenCode session with an errored turn: a prompt, an assistant message with no content, a second
 * prompt and its reply (`ids`: the four entries' ids), timed by each id's `timeAt` character.
 */
export function emptyReplySession(project: string, ids: [string, string, string, string], timeAt = 0): Session {
  const [a, b, c, d] = ids;
  const msg = (id: string, parentId: string | null, message: Message) =>
    messageEntry(id, parentId, id.charCodeAt(timeAt), message);
  return {
    id: 'errored',
    source: 'opencode',
    project,
    createdAt: secondInto2026(0),
    updatedAt: secondInto2026(9),
    messageCount: 4,
    entries: [
      msg(a, null, textMessage('user', 'q1')),
      msg(b, a, { role: 'assistant', parts: [] }),
      msg(c, b, textMessage('user', 'q2')),
      msg(d, c, textMessage('assistant', 'a2')),
    ],
  };
}

/** The image of imageDetailSession: codex's `detail` in its meta. */
export const DETAIL_IMAGE = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0K', meta: { detail: 'high' } };

/** A codex session of one prompt with an image of a given `detail` (DETAIL_IMAGE) and its answer. */
export function imageDetailSession(): Session {
  return chainSession('codex-image-1', 'codex', '/work/conv', [
    ['u1', { role: 'user', parts: [DETAIL_IMAGE, { type: 'text', text: 'what is it?' }] }],
    ['a1', { role: 'assistant', model: 'm', provider: 'p', parts: [{ type: 'text', text: 'a dot' }] }],
  ]);
}

/**
 * A codex turn with what the Anthropic side has no slot for: a prompt with an image of a `detail`
 * (`imageData`, PNG), a reply of OpenAI reasoning (`thinking` with its `reasoning` meta: item id,
 * encrypted content) and a shell call (`call_1`, `ls`), and the call's output. `assistant`: more of
 * the reply (usage, provider); `at`: the entries' times (default seconds into 2026).
 */
export function codexReasoningSession(opts: {
  id: string;
  source: string;
  project: string;
  imageData: string;
  thinking: string;
  reasoning: Record<string, unknown>;
  assistant?: Partial<Message>;
  at?: (n: number) => string;
}): Session {
  const t = opts.at ?? secondInto2026;
  return {
    id: opts.id,
    source: opts.source,
    project: opts.project,
    createdAt: t(0),
    updatedAt: t(3),
    messageCount: 3,
    entries: [
      messageEntry('c1', null, t(1), {
        role: 'user',
        parts: [
          { type: 'image', mediaType: 'image/png', data: opts.imageData, meta: { detail: 'high' } },
          { type: 'text', text: 'RUN: ls' },
        ],
      }),
      messageEntry('c2', 'c1', t(2), {
        role: 'assistant',
        model: 'gpt-5.5',
        api: 'openai-responses',
        ...opts.assistant,
        parts: [
          { type: 'thinking', thinking: opts.thinking, meta: opts.reasoning },
          { type: 'tool_call', id: 'call_1', name: 'exec_command', input: { cmd: 'ls' } },
        ],
      }),
      messageEntry('c3', 'c2', t(3), { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: 'a.txt' }] }),
    ],
  };
}

/** The summary of releaseCompactionSession's compaction. */
export const RELEASE_SUMMARY = 'The user is planning a release; the tags were listed.';
/** The user's and the assistant's words before releaseCompactionSession's compaction that it does not keep. */
export const RELEASE_EARLIER = ['Plan the release', 'Step one: tag it.', 'List the tags'];

/**
 * What pi sends after releaseCompactionSession's compaction, as codex's items in itemLine's lines
 * (test/helpers/openai-responses-standin.ts), the summary worded `summary` (codex's wording).
 */
export function releaseSentAfterCompaction(summary: string): string[] {
  return [
    `user ${summary}`,
    'assistant Listing them.',
    'call bash {"command":"git tag"}',
    'output call_tags v1.0\nv1.1',
    'assistant Two tags: v1.0 and v1.1.',
    'user Tag v1.2',
    'assistant Tagged.',
  ];
}

/**
 * pi's layout of a compaction that keeps entries: it keeps from an assistant reply with a tool call
 * (firstKeptEntryId `a2`), its output and the reply after it; one more turn follows. Times on 2026-11-20.
 */
export function releaseCompactionSession(project: string): Session {
  const t = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}.000Z`;
  const msg = (id: string, parentId: string | null, s: number, role: Message['role'], parts: Message['parts']): Entry => ({
    kind: 'message',
    id,
    parentId,
    timestamp: t(s),
    message: { role, parts, ...(role === 'assistant' ? { model: 'claude-sonnet-4-5', provider: 'anthropic' } : {}) },
  });
  const text = (id: string, parentId: string | null, s: number, role: Message['role'], x: string) =>
    msg(id, parentId, s, role, [{ type: 'text', text: x }]);
  const [u1, a1, u2] = RELEASE_EARLIER as [string, string, string];
  return {
    id: 'pi-compacted',
    source: 'pi',
    project,
    createdAt: t(0),
    updatedAt: t(9),
    messageCount: 7,
    entries: [
      text('u1', null, 1, 'user', u1),
      text('a1', 'u1', 2, 'assistant', a1),
      text('u2', 'a1', 3, 'user', u2),
      msg('a2', 'u2', 4, 'assistant', [
        { type: 'text', text: 'Listing them.' },
        { type: 'tool_call', id: 'call_tags', name: 'bash', input: { command: 'git tag' } },
      ]),
      msg('t2', 'a2', 5, 'tool', [{ type: 'tool_result', callId: 'call_tags', content: 'v1.0\nv1.1' }]),
      text('a3', 't2', 6, 'assistant', 'Two tags: v1.0 and v1.1.'),
      { kind: 'compaction', id: 'c1', parentId: 'a3', timestamp: t(7), summary: RELEASE_SUMMARY, firstKeptEntryId: 'a2' },
      text('u4', 'c1', 8, 'user', 'Tag v1.2'),
      text('a4', 'u4', 9, 'assistant', 'Tagged.'),
    ],
  };
}

/**
 * `id`: a first question and answer, a branch summary going back from another branch (`summary`: its
 * text and the leaf it left), then a question and answer on the new branch.
 */
export function branchedSession(
  id: string,
  source: Session['source'],
  project: string,
  summary: Omit<BranchSummaryEntry, 'kind' | 'id' | 'parentId' | 'timestamp'>,
): Session {
  return {
    id,
    source,
    project,
    createdAt: secondInto2026(0),
    updatedAt: secondInto2026(5),
    messageCount: 4,
    entries: [
      textEntry('u1', null, 1, 'user', 'first question'),
      textEntry('a1', 'u1', 2, 'assistant', 'first answer'),
      { kind: 'branch_summary', id: 'bs', parentId: 'a1', timestamp: secondInto2026(3), ...summary },
      textEntry('u2', 'bs', 4, 'user', 'on the new branch'),
      textEntry('a2', 'u2', 5, 'assistant', 'new answer'),
    ],
  };
}

/** What Gemini CLI records for a call the user declined, and for one the user cancelled. */
export const GEMINI_REFUSED_TEXT = '[Operation Cancelled] Reason: User denied execution.';
export const GEMINI_CANCELLED_TEXT = '[Operation Cancelled] Reason: User cancelled operation';

/** Messages as `role:part,part`, a text part as its text and any other as its type, for comparing contexts. */
export function messageOutline(
  messages: readonly { role: string; parts: readonly { type: string; text?: string }[] }[],
): string[] {
  return messages.map((m) => `${m.role}:${m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(',')}`);
}

/** Every tool result of a session's messages, in order (none of a session that is not there). */
export function toolResultsOf(s: Session | undefined): ToolResultPart[] {
  return toolResultsIn((s?.entries ?? []).flatMap((e) => (e.kind === 'message' ? [e.message] : [])));
}

/** Every tool result of these messages (a context's), in order. */
export function toolResultsIn(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) => m.parts.filter((p): p is ToolResultPart => p.type === 'tool_result'));
}

/** A tool's result for a call that did not run, marked as the readers mark one (`refused`, `cancelled`): an error in `content`'s words. */
export function declinedResult(callId: string, name: string, content: string, mark: 'refused' | 'cancelled'): ToolResultPart {
  return { type: 'tool_result', callId, name, content, isError: true, meta: { [mark]: true } };
}

/**
 * A Claude Code session (`declined`, of `model`) whose bash calls (`touch <call id>`, one a result)
 * did not run: "make files", an assistant message of the calls, a message of `results`, "Nothing was made.".
 */
export function declinedCallsSession(project: string, results: ToolResultPart[], model: string): Session {
  const calls = results.map((r) => ({
    type: 'tool_call' as const,
    id: r.callId,
    name: 'bash',
    input: { command: `touch ${r.callId}` },
  }));
  return chainSession('declined', 'claude', project, [
    ['c1', textMessage('user', 'make files')],
    ['c2', { role: 'assistant', model, parts: calls }],
    ['c3', { role: 'tool', parts: results }],
    ['c4', textMessage('assistant', 'Nothing was made.', { model })],
  ]);
}

/**
 * A Gemini CLI session whose calls the user declined, as the Gemini reader marks them (`refused`,
 * `cancelled`): with `cancelledToo`, a refused `touch call_a` and a cancelled `touch call_b` ("make two
 * files"); else one refused `touch x` ("make the file x"). Every agent's writer turns the marks into
 * its own words.
 */
export function geminiDeclinedSession(opts: { project: string; model: string; tool: string; cancelledToo: boolean }): Session {
  const { project, model, tool, cancelledToo } = opts;
  const call = (id: string, command: string) => ({ type: 'tool_call' as const, id, name: tool, input: { command } });
  const result = (callId: string, content: string, mark: 'refused' | 'cancelled') => declinedResult(callId, tool, content, mark);
  return {
    id: 'gemini-declined',
    source: 'gemini',
    project,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: cancelledToo ? '2026-01-01T00:00:04.000Z' : '2026-01-01T00:00:03.000Z',
    messageCount: 4,
    entries: cancelledToo
      ? [
          messageEntry('g1', null, 0, textMessage('user', 'make two files')),
          messageEntry('g2', 'g1', 1, {
            role: 'assistant',
            model,
            parts: [call('call_a', 'touch call_a'), call('call_b', 'touch call_b')],
          }),
          messageEntry('g3', 'g2', 2, {
            role: 'tool',
            parts: [result('call_a', GEMINI_REFUSED_TEXT, 'refused'), result('call_b', GEMINI_CANCELLED_TEXT, 'cancelled')],
          }),
          messageEntry('g4', 'g3', 3, textMessage('assistant', 'Neither was made.', { model })),
        ]
      : [
          messageEntry('g1', null, 0, textMessage('user', 'make the file x')),
          messageEntry('g2', 'g1', 1, { role: 'assistant', model, parts: [call('call_declined', 'touch x')] }),
          messageEntry('g3', 'g2', 2, { role: 'tool', parts: [result('call_declined', GEMINI_REFUSED_TEXT, 'refused')] }),
          messageEntry('g4', 'g3', 3, textMessage('assistant', 'I will not make it.', { model })),
        ],
  };
}

/**
 * A Claude Code session (`claude-session`, of `claude-x`): a prompt (`firstPrompt`, default "list
 * files"), a reply of thinking, text and a Bash call codex has no tool for (`ls`), its result
 * ("a.txt"), a text reply, then "thanks" and its reply: what tests of codex's turns write into codex.
 */
export function claudeListingSession(project: string, firstPrompt: Message = textMessage('user', 'list files')): Session {
  const reply = (parts: Message['parts'], extra: Partial<Message> = {}): Message => ({
    role: 'assistant',
    model: 'claude-x',
    provider: 'anthropic',
    parts,
    ...extra,
  });
  return chainSession('claude-session', 'claude', project, [
    ['u1', firstPrompt],
    [
      'a1',
      reply(
        [
          { type: 'thinking', thinking: 'Let me list.', signature: 'sig-1' },
          { type: 'text', text: 'Listing.' },
          { type: 'tool_call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
        ],
        { usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 } },
      ),
    ],
    ['r1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }],
    ['a2', reply([{ type: 'text', text: 'One file: a.txt' }])],
    ['u2', textMessage('user', 'thanks')],
    ['a3', reply([{ type: 'text', text: 'You are welcome.' }])],
  ]);
}

/** `session` as after a compaction (`summary`): the compaction `c0` first, at its first entry's time, the old first entry its child. */
export function startingWithCompaction(session: Session, summary: string): Session {
  const first = session.entries[0] as Entry;
  session.entries.unshift({ kind: 'compaction', id: 'c0', parentId: null, timestamp: first.timestamp, summary });
  first.parentId = 'c0';
  return session;
}

/** A prompt "what is this?" with a PNG image of `data` (its `meta`, e.g. codex's `detail`, when given). */
export function imagePrompt(data: string, meta?: Record<string, unknown>): Message {
  return {
    role: 'user',
    parts: [
      { type: 'text', text: 'what is this?' },
      { type: 'image', mediaType: 'image/png', data, ...(meta ? { meta } : {}) },
    ],
  };
}

/**
 * Another agent's first thinking turn, its reply made by `assistant` (the target's model): signed
 * thinking, unsigned with text, blank unsigned, signed of empty text, redacted, then a text.
 */
export function firstThinkingTurn(assistant: (parts: Message['parts']) => Message): [string, Message][] {
  return [
    ['u1', textMessage('user', 'think please')],
    [
      'a1',
      assistant([
        { type: 'thinking', thinking: 'Signed thought.', signature: 'sig-1' },
        { type: 'thinking', thinking: 'An unsigned thought.' },
        { type: 'thinking', thinking: '' },
        { type: 'thinking', thinking: '', signature: 'sig-empty' },
        { type: 'redacted_thinking', data: 'REDACTED-DATA' },
        { type: 'text', text: 'Answer one.' },
      ]),
    ],
  ];
}

/**
 * Another agent's thinking in four turns, each reply made by `assistant` (the target's model):
 * firstThinkingTurn; a reply of unsigned thinking and text; a reply of unsigned thinking alone; then
 * the fourth prompt, for the caller's fourth reply (test/agents/unsigned-thinking-*).
 */
export function thinkingTurns(assistant: (parts: Message['parts']) => Message): [string, Message][] {
  const user = (text: string): Message => textMessage('user', text);
  return [
    ...firstThinkingTurn(assistant),
    ['u2', user('again')],
    [
      'a2',
      assistant([
        { type: 'thinking', thinking: 'Only unsigned.' },
        { type: 'text', text: 'Answer two.' },
      ]),
    ],
    ['u3', user('third')],
    ['a3', assistant([{ type: 'thinking', thinking: 'Lone unsigned.' }])],
    ['u4', user('fourth')],
  ];
}

/** thinkingTurns and a fourth reply of blank signed thinking and text (what pi and Qwen Code leave out or keep). */
export function thinkingTurnsToFourth(assistant: (parts: Message['parts']) => Message): [string, Message][] {
  return [
    ...thinkingTurns(assistant),
    [
      'a4',
      assistant([
        { type: 'thinking', thinking: ' ', signature: 'sig-blank' },
        { type: 'text', text: 'Answer four.' },
      ]),
    ],
  ];
}

/** A session of `n` responses with usage (each its own response id), `copyOf`'s first ones again as a fork copies them. */
export function respondedSession(id: string, createdAt: string, n: number, copyOf?: Session): Session {
  const entries: Entry[] = [];
  const copied = copyOf ? copyOf.entries.slice(0, 4) : [];
  entries.push(...copied);
  for (let i = 0; i < n; i++) {
    const parentId = entries.at(-1)?.id ?? null;
    const t = new Date(Date.parse(createdAt) + (i + 1) * 60_000).toISOString();
    entries.push({
      id: `${id}-u${i}`,
      parentId,
      timestamp: t,
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: `ask ${i}` }] },
    });
    entries.push({
      id: `${id}-a${i}`,
      parentId: `${id}-u${i}`,
      timestamp: t,
      kind: 'message',
      message: {
        role: 'assistant',
        parts: [{ type: 'text', text: `answer ${i}` }],
        model: 'claude-sonnet-4-5',
        responseId: `msg_${id}_${i}`,
        usage: { input: 10 + i, output: 100, cacheRead: 1000, cacheWrite: 50, reasoning: 0 },
      },
    });
  }
  return {
    id,
    source: 'claude',
    project: '/w/app',
    createdAt,
    updatedAt: entries.at(-1)?.timestamp ?? createdAt,
    messageCount: entries.length,
    entries,
    leafId: entries.at(-1)?.id ?? null,
    ...(copyOf ? { parentId: copyOf.id } : {}),
  };
}

/** A prompt and its priced answer at `iso` (UTC), its usage `input` tokens in (for the per-day charts' tests). */
export function answeredAt(id: string, iso: string, opts: { input?: number; model?: string } = {}): Session {
  const { input = 100, model = 'claude-sonnet-4-5' } = opts;
  const usage = { input, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  return {
    id,
    source: 'threadbase',
    project: '/w/days',
    createdAt: iso,
    updatedAt: iso,
    messageCount: 2,
    entries: [
      { id: `${id}-u`, parentId: null, timestamp: iso, kind: 'message', message: textMessage('user', 'go') },
      {
        id: `${id}-a`,
        parentId: `${id}-u`,
        timestamp: iso,
        kind: 'message',
        message: textMessage('assistant', 'done', { model, usage, cost: 0.01 }),
      },
    ],
  };
}

/** A session of a prompt and its priced answer (`usage`, cost 0.01) at 10:00 UTC on each of `days` (YYYY-MM-DD), in `project`. */
export function answeredOnDays(id: string, project: string, days: string[], usage: Usage): Session {
  const entries = days.flatMap((day, i): Entry[] => [
    messageEntry(`${id}-u${i}`, i ? `${id}-a${i - 1}` : null, `${day}T10:00:00.000Z`, textMessage('user', 'go')),
    messageEntry(
      `${id}-a${i}`,
      `${id}-u${i}`,
      `${day}T10:00:05.000Z`,
      textMessage('assistant', 'done', { model: 'claude-sonnet-4-5', usage, cost: 0.01 }),
    ),
  ]);
  return {
    id,
    source: 'threadbase',
    project,
    createdAt: entries[0]?.timestamp as string,
    updatedAt: entries.at(-1)?.timestamp as string,
    messageCount: entries.length,
    entries,
  };
}

/**
 * A session of a prompt, one tool call (made by `model`, if given) and its `result`, a second apart
 * from 2026-11-20T10:00:00Z: entries u1, a1 and t1.
 */
export function oneCallSession(opts: {
  id: string;
  title: string;
  project?: string;
  prompt: string;
  call: { id: string; name: string; input: Record<string, unknown> };
  model?: string;
  result: string;
}): Session {
  const t = (s: number) => `2026-11-20T10:00:0${s}.000Z`;
  return {
    id: opts.id,
    source: 'threadbase',
    title: opts.title,
    ...(opts.project !== undefined ? { project: opts.project } : {}),
    createdAt: t(0),
    updatedAt: t(2),
    messageCount: 3,
    entries: [
      messageEntry('u1', null, t(0), textMessage('user', opts.prompt)),
      messageEntry('a1', 'u1', t(1), {
        role: 'assistant',
        ...(opts.model !== undefined ? { model: opts.model } : {}),
        parts: [{ type: 'tool_call', ...opts.call }],
      }),
      messageEntry('t1', 'a1', t(2), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: opts.call.id, content: opts.result }],
      }),
    ],
  };
}
