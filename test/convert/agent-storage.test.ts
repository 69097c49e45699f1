import { describe, expect, it } from 'vitest';
import { blockKind, ClaudeAgentStorage, sdkMessageKind } from '../../src/convert/agent-storage.js';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';

const SID = 'sess-1';
const init = { type: 'system', subtype: 'init', session_id: SID, cwd: '/proj', model: 'claude-x' };

function setup(opts: { includeThinking?: boolean; sessionId?: string } = {}) {
  const store = new MemoryStore();
  const warnings: string[] = [];
  const errors: [unknown, unknown][] = [];
  const storage = new ClaudeAgentStorage({
    store,
    ...opts,
    warn: (m) => warnings.push(m),
    onError: (e, m) => errors.push([e, m]),
  });
  const messages = async (id = SID): Promise<Message[]> => {
    const s = await store.getSession(id);
    return (s?.entries ?? []).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  };
  return { store, storage, warnings, errors, messages };
}

const assistant = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'assistant',
  message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content, usage: { input_tokens: 3, output_tokens: 4 } },
  parent_tool_use_id: null,
  session_id: SID,
  ...extra,
});
const user = (content: unknown) => ({
  type: 'user',
  message: { role: 'user', content },
  parent_tool_use_id: null,
  session_id: SID,
});

// Python-SDK-like shapes: class instances with properties, no `type` fields.
class TextBlock {
  constructor(public text: string) {}
}
class ThinkingBlock {
  constructor(
    public thinking: string,
    public signature: string,
  ) {}
}
class ToolUseBlock {
  constructor(
    public id: string,
    public name: string,
    public input: unknown,
  ) {}
}
class ToolResultBlock {
  constructor(
    public tool_use_id: string,
    public content: unknown,
    public is_error: boolean | null = null,
  ) {}
}
class SystemMessage {
  constructor(
    public subtype: string,
    public data: Record<string, unknown>,
  ) {}
}
class AssistantMessage {
  constructor(
    public content: unknown[],
    public model: string,
    public parent_tool_use_id: string | null = null,
    public error: string | null = null,
  ) {}
}
class UserMessage {
  constructor(
    public content: unknown,
    public parent_tool_use_id: string | null = null,
  ) {}
}
class ResultMessage {
  constructor(
    public subtype: string,
    public duration_ms: number,
    public session_id: string,
  ) {}
}

describe('ClaudeAgentStorage', () => {
  it('takes the session id from the init message and stores only user and assistant messages', async () => {
    const { storage, messages, store } = setup();
    expect(storage.sessionId).toBeUndefined();
    expect(await storage.saveMessage(init)).toBe('skipped');
    expect(storage.sessionId).toBe(SID);
    await storage.saveMessage(user('hello'));
    await storage.saveMessage(assistant([{ type: 'text', text: 'hi there' }]));
    await storage.saveMessage({ type: 'result', subtype: 'success', session_id: SID, result: 'hi there' });
    await storage.saveMessage({ type: 'stream_event', session_id: SID, event: { type: 'message_start' } });
    await storage.saveMessage({ type: 'tool_progress', session_id: SID });
    const ms = await messages();
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant']);
    const s = (await store.getSession(SID)) as Session;
    expect(s.source).toBe('threadbase');
    expect(s.project).toBe('/proj');
    // entries chain: each the child of the one before
    expect(s.entries[1]?.parentId).toBe(s.entries[0]?.id);
    expect(s.entries[0]?.rawSource).toBe('anthropic');
    expect(s.entries[0]?.raw).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello' }] });
  });

  it('reads the session id of a Python-style system message from its data, and from result or stream events otherwise', async () => {
    const a = setup();
    await a.storage.saveMessage(new SystemMessage('init', { session_id: 'py-1' }));
    expect(a.storage.sessionId).toBe('py-1');

    const b = setup();
    await b.storage.saveMessage({ type: 'system', subtype: 'init' }); // no id: read safely, nothing learnt
    await b.storage.saveMessage({ type: 'system', subtype: 'init', data: null });
    expect(b.storage.sessionId).toBeUndefined();
    await b.storage.saveMessage({ type: 'stream_event', session_id: 'from-stream', event: {} });
    expect(b.storage.sessionId).toBe('from-stream');

    const c = setup();
    await c.storage.saveMessage(new ResultMessage('success', 10, 'from-result'));
    expect(c.storage.sessionId).toBe('from-result');
    // a system message that is not init does not name the session
    const d = setup();
    await d.storage.saveMessage({ type: 'system', subtype: 'compact_boundary', session_id: 'nope' });
    expect(d.storage.sessionId).toBeUndefined();
  });

  it('uses an explicit sessionId over the SDK one', async () => {
    const { storage, messages } = setup({ sessionId: 'mine' });
    await storage.saveMessage(init);
    expect(storage.sessionId).toBe('mine');
    await storage.saveMessage(user('x'));
    expect((await messages('mine')).length).toBe(1);
  });

  it('skips user and assistant messages that come before any session id, with a warning', async () => {
    const { storage, warnings, messages } = setup();
    expect(await storage.saveMessage(user('too early'))).toBe('skipped');
    expect(warnings.join('\n')).toMatch(/before any session id/);
    await storage.saveMessage(init);
    await storage.saveMessage(user('now'));
    const ms = await messages();
    expect(ms.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'now' }]]);
  });

  it('tells blocks apart by type, class, or keys: thinking, then tool use, then tool result, then text', () => {
    expect(blockKind({ type: 'text', text: 'a', thinking: 'x' })).toBe('text');
    expect(blockKind({ thinking: 'x', text: 'a' })).toBe('thinking');
    expect(blockKind({ id: '1', name: 'n', input: {}, tool_use_id: 'q', text: 't' })).toBe('tool_use');
    expect(blockKind({ tool_use_id: 'q', content: 'c', text: 't' })).toBe('tool_result');
    expect(blockKind({ text: 't' })).toBe('text');
    expect(blockKind(new ThinkingBlock('t', 's'))).toBe('thinking');
    expect(blockKind(new ToolUseBlock('1', 'n', {}))).toBe('tool_use');
    expect(blockKind(new ToolResultBlock('1', null))).toBe('tool_result');
    expect(blockKind(new TextBlock('x'))).toBe('text');
    expect(blockKind({ foo: 1 })).toBe('other');
    expect(sdkMessageKind(new AssistantMessage([], 'm'))).toBe('assistant');
    expect(sdkMessageKind(new UserMessage('x'))).toBe('user');
    expect(sdkMessageKind({ content: [], model: 'm' })).toBe('assistant');
    expect(sdkMessageKind({ content: 'x' })).toBe('user');
  });

  it('stores dataclass-like messages and blocks', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(new SystemMessage('init', { session_id: SID }));
    await storage.saveMessage(new UserMessage('list files'));
    await storage.saveMessage(
      new AssistantMessage([new TextBlock('sure'), new ToolUseBlock('t1', 'Bash', { command: 'ls' })], 'claude-py'),
    );
    await storage.saveMessage(new UserMessage([new ToolResultBlock('t1', 'a.txt', false)]));
    const ms = await messages();
    expect(ms.map((m) => [m.role, m.parts])).toEqual([
      ['user', [{ type: 'text', text: 'list files' }]],
      [
        'assistant',
        [
          { type: 'text', text: 'sure' },
          { type: 'tool_call', id: 't1', name: 'Bash', input: { command: 'ls' } },
        ],
      ],
      ['tool', [{ type: 'tool_result', callId: 't1', content: 'a.txt', isError: false }]],
    ]);
    expect(ms[1]?.meta?.model).toBe('claude-py');
    expect(ms[1]?.model).toBe('claude-py');
  });

  it('stores plain-dict blocks with no type field', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage({ content: [{ text: 'dict text' }, { id: 'u1', name: 'Read', input: { path: 'a' } }], model: 'm' });
    await storage.saveMessage({ role: 'user', content: [{ tool_use_id: 'u1', content: 'contents' }] });
    const ms = await messages();
    expect(ms.map((m) => m.parts.map((p) => p.type))).toEqual([['text', 'tool_call'], ['tool_result']]);
  });

  it('skips empty text, and a message with no blocks left', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    expect(await storage.saveMessage(assistant([{ type: 'text', text: '' }]))).toBe('skipped');
    expect(await storage.saveMessage(user(''))).toBe('skipped');
    expect(await storage.saveMessage(user([]))).toBe('skipped');
    await storage.saveMessage(
      assistant([
        { type: 'text', text: '' },
        { type: 'text', text: 'kept' },
      ]),
    );
    const ms = await messages();
    expect(ms.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'kept' }]]);
  });

  it('leaves thinking out by default', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    expect(await storage.saveMessage(assistant([{ type: 'thinking', thinking: 'secret', signature: 'sig' }]))).toBe('skipped');
    await storage.saveMessage(
      assistant([
        { type: 'thinking', thinking: 'secret', signature: 'sig' },
        { type: 'text', text: 'answer' },
      ]),
    );
    expect((await messages()).map((m) => m.parts)).toEqual([[{ type: 'text', text: 'answer' }]]);
  });

  it('stores thinking as text with meta.has_thinking when includeThinking', async () => {
    const { storage, messages } = setup({ includeThinking: true });
    await storage.saveMessage(init);
    await storage.saveMessage(
      assistant([
        { type: 'thinking', thinking: 'pondering', signature: 'sig' },
        { type: 'redacted_thinking', data: 'x' },
      ]),
    );
    await storage.saveMessage(new AssistantMessage([new ThinkingBlock('py thought', 's2')], 'm'));
    const ms = await messages();
    expect(ms[0]?.parts).toEqual([{ type: 'text', text: 'pondering', meta: { has_thinking: true, signature: 'sig' } }]);
    expect(ms[1]?.parts).toEqual([{ type: 'text', text: 'py thought', meta: { has_thinking: true, signature: 's2' } }]);
  });

  it('keeps tool_use only in assistant messages and tool_result only in user messages', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    expect(await storage.saveMessage(user([{ type: 'tool_use', id: 'x', name: 'Bash', input: {} }]))).toBe('skipped');
    expect(await storage.saveMessage(assistant([{ type: 'tool_result', tool_use_id: 'x', content: 'r' }]))).toBe('skipped');
    await storage.saveMessage(
      user([
        { type: 'tool_use', id: 'x', name: 'Bash', input: {} },
        { type: 'text', text: 'only me' },
      ]),
    );
    expect((await messages()).map((m) => m.parts)).toEqual([[{ type: 'text', text: 'only me' }]]);
  });

  it('stores null tool-result content as "", array content as text blocks, and keeps is_error', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage(
      user([
        { type: 'tool_result', tool_use_id: 'a', content: null },
        {
          type: 'tool_result',
          tool_use_id: 'b',
          content: [{ type: 'text', text: 'one' }, 'two', { type: 'image', source: { type: 'base64' } }],
        },
        { type: 'tool_result', tool_use_id: 'c', content: 'boom', is_error: true },
      ]),
    );
    const [m] = await messages();
    expect(m?.role).toBe('tool');
    expect(m?.parts).toEqual([
      { type: 'tool_result', callId: 'a', content: '' },
      {
        type: 'tool_result',
        callId: 'b',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'text', text: '{"type":"image","source":{"type":"base64"}}' },
        ],
      },
      { type: 'tool_result', callId: 'c', content: 'boom', isError: true },
    ]);
  });

  it('always stores tool_use input as an object', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage(
      assistant([
        { type: 'tool_use', id: '1', name: 'A', input: '{"k":1}' },
        { type: 'tool_use', id: '2', name: 'B', input: null },
        { type: 'tool_use', id: '3', name: 'C', input: 'raw text' },
        new ToolUseBlock('4', 'D', [1, 2]),
      ]),
    );
    const [m] = await messages();
    expect(m?.parts.map((p) => (p.type === 'tool_call' ? p.input : undefined))).toEqual([
      { k: 1 },
      {},
      { input: 'raw text' },
      { input: [1, 2] },
    ]);
  });

  it('stores an assistant message carrying an error with the error in its meta, and the model in meta', async () => {
    const { storage, messages } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage(assistant([{ type: 'text', text: 'API Error: overloaded' }], { error: 'overloaded' }));
    await storage.saveMessage(new AssistantMessage([new TextBlock('x')], 'py-model', null, 'rate_limit'));
    const ms = await messages();
    expect(ms[0]?.meta).toMatchObject({ error: 'overloaded', model: 'claude-x' });
    expect(ms[0]?.error).toBe('overloaded');
    expect(ms[0]?.usage).toMatchObject({ input: 3, output: 4 });
    expect(ms[1]?.meta).toMatchObject({ error: 'rate_limit', model: 'py-model' });
  });

  it('never throws when the store fails: onError gets the error and the message, and the loop goes on', async () => {
    const store = new MemoryStore();
    let failNext = true;
    const flaky: SessionDriver = Object.assign(Object.create(store) as MemoryStore, {
      appendEntries: async (id: string, entries: Parameters<MemoryStore['appendEntries']>[1]) => {
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        return store.appendEntries(id, entries);
      },
    });
    const errors: [unknown, unknown][] = [];
    const storage = new ClaudeAgentStorage({ store: flaky, onError: (e, m) => errors.push([e, m]) });
    await storage.saveMessage(init);
    await storage.saveMessage(user('first')); // creates the session
    const second = user('second');
    expect(await storage.saveMessage(second)).toBe('failed');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.[0]).toMatchObject({ message: 'disk full' });
    expect(errors[0]?.[1]).toBe(second);
    await storage.saveMessage(user('third'));
    const s = await store.getSession(SID);
    expect(s?.entries.map((e) => (e.kind === 'message' ? e.message.parts[0] : undefined))).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'third' },
    ]);
  });

  it('rejects instead with throwOnError, and still stores what comes next', async () => {
    const store = new MemoryStore();
    const storage = new ClaudeAgentStorage({ store, throwOnError: true });
    await storage.saveMessage(init);
    const broken = {
      type: 'user',
      message: { role: 'user', content: 'x' },
      get uuid(): string {
        throw new Error('bad getter');
      },
    };
    await storage.saveMessage(user('first'));
    const spy = Object.assign(Object.create(store) as MemoryStore, {
      appendEntries: async () => {
        throw new Error('store down');
      },
    });
    const failing = new ClaudeAgentStorage({ store: spy, throwOnError: true });
    await failing.saveMessage(init);
    await expect(failing.saveMessage(user('lost'))).rejects.toThrow('store down');
    // a throwing getter is read safely: the message is stored under a fresh id
    expect(await storage.saveMessage(broken)).toBe('stored');
    expect((await store.getSession(SID))?.entries).toHaveLength(2);
  });

  it('logs a warning when no onError is given, and survives a store with no write support', async () => {
    const warned: string[] = [];
    const readOnly: SessionDriver = {
      ...new MemoryStore(),
      name: 'ro',
      capabilities: new MemoryStore().capabilities,
      getSession: async () => undefined,
    } as unknown as SessionDriver;
    const storage = new ClaudeAgentStorage({ store: readOnly, warn: (m) => warned.push(m) });
    await storage.saveMessage(init);
    await expect(storage.saveMessage(user('x'))).resolves.toBe('failed');
    expect(warned.join('\n')).toMatch(/cannot write sessions/);
  });

  it('appends to a session the store already has, after its current leaf', async () => {
    const { store, storage, messages } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage(user('one'));
    const resumed = new ClaudeAgentStorage({ store });
    await resumed.saveMessage(init);
    await resumed.saveMessage(user('two'));
    const s = (await store.getSession(SID)) as Session;
    expect((await messages()).length).toBe(2);
    expect(s.entries[1]?.parentId).toBe(s.entries[0]?.id);
  });

  it('does not store a message twice when a resumed session replays it (same SDK uuid)', async () => {
    const { store, storage } = setup();
    await storage.saveMessage(init);
    const first = { ...user('once'), uuid: 'u-1' };
    expect(await storage.saveMessage(first)).toBe('stored');
    const resumed = new ClaudeAgentStorage({ store });
    await resumed.saveMessage(init);
    expect(await resumed.saveMessage({ ...first, isReplay: true })).toBe('skipped');
    expect(await resumed.saveMessage({ ...user('new'), uuid: 'u-2' })).toBe('stored');
    const s = (await store.getSession(SID)) as Session;
    expect(s.entries.map((e) => e.id)).toEqual(['u-1', 'u-2']);
    expect(s.entries[1]?.parentId).toBe('u-1');
  });

  it('keeps order when calls are not awaited, and counts a response split over messages once', async () => {
    const { store, storage } = setup();
    void storage.saveMessage(init);
    void storage.saveMessage(
      assistant([
        { type: 'thinking', thinking: 't' },
        { type: 'text', text: 'a' },
      ]),
    );
    void storage.saveMessage(assistant([{ type: 'tool_use', id: 'q', name: 'Bash', input: {} }]));
    await storage.saveMessage(user([{ type: 'tool_result', tool_use_id: 'q', content: 'done' }]));
    const s = (await store.getSession(SID)) as Session;
    expect(s.entries.map((e) => (e.kind === 'message' ? e.message.role : e.kind))).toEqual(['assistant', 'assistant', 'tool']);
    expect(s.usage).toMatchObject({ input: 3, output: 4 });
    const ctx = await store.getContext(SID);
    expect(ctx.messages.map((m) => m.parts.length)).toEqual([2, 1]);
  });

  it('stores sub-agent messages as a side chain', async () => {
    const { store, storage } = setup();
    await storage.saveMessage(init);
    await storage.saveMessage(assistant([{ type: 'tool_use', id: 'task1', name: 'Task', input: { prompt: 'p' } }]));
    await storage.saveMessage({ ...user('sub prompt'), parent_tool_use_id: 'task1' });
    await storage.saveMessage({ ...assistant([{ type: 'text', text: 'sub answer' }]), parent_tool_use_id: 'task1' });
    await storage.saveMessage(user([{ type: 'tool_result', tool_use_id: 'task1', content: 'sub answer' }]));
    const s = (await store.getSession(SID)) as Session;
    const side = s.entries.filter((e) => e.sidechain);
    expect(side).toHaveLength(2);
    expect(side[1]?.parentId).toBe(side[0]?.id);
    const ctx = await store.getContext(SID);
    expect(ctx.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });
});
