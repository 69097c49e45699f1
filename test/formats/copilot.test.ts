/**
 * GitHub Copilot CLI sessions read from a real session (test/fixtures/copilot/real-1.0.102, made by
 * copilot 1.0.102 offline against the Anthropic stand-in: a bash call, then a resumed turn with
 * thinking and cache tokens) and from event lines built from its schema (rewind, sub-agent,
 * compaction, notification, bad lines).
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childSessionsFrom } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { CopilotDriver, copilotContext, encodeCopilotEvents, parseWorkspace } from '../../src/formats/copilot/index.js';
import { injectedLabel } from '../../src/formats/injected.js';
import { Sources } from '../../src/formats/registry.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, MessageEntry, Session } from '../../src/model/types.js';

const REAL = '44b0e2d9-5ac6-46a4-b568-ce0f72a10d33';
/** The real run of a sub-agent (the `task` tool), see the fixture's README */
const SUB = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';
const FIXTURE = resolve('test/fixtures/copilot/real-1.0.102/.copilot');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const roles = (ms: Message[]) => ms.map((m) => m.role);
const jsonl = (xs: unknown[]) => `${xs.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n')}\n`;

/** Events chained as Copilot CLI chains them (each parentId the event before). */
function chain(events: { type: string; data: Record<string, unknown> }[], t0 = Date.parse('2026-01-02T10:00:00.000Z')) {
  return events.map((e, i) => ({
    ...e,
    id: `ev-${i + 1}`,
    timestamp: new Date(t0 + i * 1000).toISOString(),
    parentId: i === 0 ? null : `ev-${i}`,
  }));
}

async function home(name: string, sessions: Record<string, { events: string; workspace?: string }>) {
  const root = join(dir, name);
  for (const [id, s] of Object.entries(sessions)) {
    const d = join(root, 'session-state', id);
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'events.jsonl'), s.events);
    if (s.workspace) await writeFile(join(d, 'workspace.yaml'), s.workspace);
  }
  return new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: root } });
}

describe('Copilot CLI: a real session (1.0.102)', () => {
  let session: Session;
  beforeAll(async () => {
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: FIXTURE } });
    session = (await driver.getSession(REAL)) as Session;
  });

  it('lists it with its folder, name, times and counts, found through COPILOT_HOME', async () => {
    const { sessions } = await new Sources({ home: join(dir, 'nohome'), env: { COPILOT_HOME: FIXTURE } }).list({
      source: 'copilot',
    });
    // the sub-agent run in SUB's file listed as a session of its own under SUB, by its agentId
    expect(sessions.map((s) => [s.id, s.source, s.project, s.title, s.messageCount, s.parentId])).toEqual([
      [SUB, 'copilot', '/tmp/copilot/work3', 'SUBAGENT: greet me', 4, undefined],
      [RUN, 'copilot', '/tmp/copilot/work3', 'greet', 2, SUB],
      [REAL, 'copilot', '/tmp/copilot/work/proj', 'RUN: echo hello-copilot', 6, undefined],
    ]);
    expect(sessions[2]?.createdAt).toBe('2026-11-26T04:16:28.093Z');
    // its last event's time (the file's own time is when it was copied here)
    expect(sessions[2]?.updatedAt).toBe('2026-11-26T04:16:32.024Z');
    expect(session.warnings ?? []).toEqual([]);
  });

  it('reads the bash call, its result (with the tool name) and the answers, resumed turn included', () => {
    const ctx = buildContext(session);
    expect(roles(ctx.messages)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(ctx.messages[1]?.parts).toEqual([
      {
        type: 'tool_call',
        id: 'toolu_standin_0001',
        name: 'bash',
        input: { command: 'echo hello-copilot', description: 'run command' },
      },
    ]);
    expect(ctx.messages[2]?.parts).toEqual([
      {
        type: 'tool_result',
        callId: 'toolu_standin_0001',
        name: 'bash',
        content: 'hello-copilot\n<shellId: 0 completed with exit code 0>',
      },
    ]);
    // the typed text, with what Copilot CLI sent kept beside it
    expect(ctx.messages[0]?.parts).toEqual([{ type: 'text', text: 'RUN: echo hello-copilot' }]);
    expect(String(ctx.messages[0]?.meta?.copilotTransformedContent)).toMatch(/^<current_datetime>/);
  });

  it('reads thinking with its signature, the model, provider, response id and usage in the model terms', () => {
    const last = buildContext(session).messages.at(-1) as Message;
    expect(last.parts).toEqual([
      { type: 'thinking', thinking: 'pondering the echo', signature: 'sig-standin-3' },
      { type: 'text', text: 'thought about it' },
    ]);
    expect(last).toMatchObject({
      model: 'claude-sonnet-4.5',
      provider: 'anthropic',
      responseId: 'msg_standin_0003',
      stopReason: 'end_turn',
      api: 'anthropic-messages',
    });
    // Copilot CLI's inputTokens 1383 include the 1000 read from and the 200 written to the cache
    expect(last.usage).toEqual({ input: 183, output: 31, cacheRead: 1000, cacheWrite: 200, reasoning: 0 });
    expect(session.usage).toEqual({ input: 355, output: 78, cacheRead: 1000, cacheWrite: 200, reasoning: 0 });
    expect(session.models).toEqual(['claude-sonnet-4.5']);
  });

  it("keeps Copilot CLI's own events (start, system prompt, turns, shutdown) as metadata with their records", () => {
    const meta = session.entries.filter((e) => e.kind === 'metadata').map((e) => (e.kind === 'metadata' ? e.type : ''));
    expect(meta).toContain('system.message');
    expect(meta).toContain('session.resume');
    expect(meta.filter((t) => t === 'session.shutdown')).toHaveLength(2);
    expect(session.entries.every((e) => e.rawSource === 'copilot' && (e.raw as { id: string }).id === e.id)).toBe(true);
  });
});

describe('Copilot CLI: a real sub-agent (1.0.102)', () => {
  it('its events are a side chain, its prompt (written without parentToolCallId) included; the context is what copilot sent on resume', async () => {
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: FIXTURE } });
    const s = (await driver.getSession(SUB)) as Session;
    const side = s.entries.filter((e) => e.sidechain && e.kind === 'message') as MessageEntry[];
    expect(
      side.map((e) => [e.message.role, e.message.parts[0]?.type === 'text' ? e.message.parts[0].text.slice(0, 16) : '']),
    ).toEqual([
      ['user', 'say hello please'],
      ['assistant', 'ok: <current_dat'],
    ]);
    // copilot --resume of this session sent these four before its new prompt (checked against the stand-in)
    const ctx = await driver.getContext(SUB);
    expect(ctx.messages.map((m) => [m.role, m.parts.map((p) => p.type).join(',')])).toEqual([
      ['user', 'text'],
      ['assistant', 'tool_call'],
      ['tool', 'tool_result'],
      ['assistant', 'text'],
    ]);
    expect(ctx.messages[0]?.parts[0]).toEqual({
      type: 'text',
      text: '<current_datetime>2026-11-26T04:38:11.550+00:00</current_datetime>\n\nSUBAGENT: greet me',
    });
  });
});

describe('Copilot CLI: a real sub-agent run as a child session (1.0.102)', () => {
  it("is a session of its own by its agentId, under the session and the call that ran it; the session's context unchanged", async () => {
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: FIXTURE } });
    const run = (await driver.getSession(RUN)) as Session;
    expect(run).toMatchObject({
      id: RUN,
      source: 'copilot',
      parentId: SUB,
      parentToolCallId: 'toolu_standin_0001',
      title: 'greet',
      messageCount: 2,
      path: join(FIXTURE, 'session-state', SUB, 'events.jsonl'),
    });
    expect(run.usage).toMatchObject({ input: 45, output: 18 });
    // its events are its main chain now, the prompt Copilot CLI gave it first
    expect(run.entries.some((e) => e.sidechain)).toBe(false);
    const sent = buildContext(run).messages;
    expect(sent.map((m) => [m.role, m.parts[0]?.type === 'text' ? m.parts[0].text.slice(0, 16) : ''])).toEqual([
      ['user', 'say hello please'],
      ['assistant', 'ok: <current_dat'],
    ]);
    expect(await driver.listSessions({ parentId: SUB })).toMatchObject([{ id: RUN, parentToolCallId: 'toolu_standin_0001' }]);
    expect((await childSessionsFrom(driver)(SUB)).map((c) => c.id)).toEqual([RUN]);
    // the session keeps the run as its side chain; usage counted once over both
    const parent = (await driver.getSession(SUB)) as Session;
    expect(parent.entries.filter((e) => e.sidechain && e.kind === 'message')).toHaveLength(2);
    const both = await driver.usage({});
    const sub = (await driver.usage({ text: 'SUBAGENT' })).input;
    expect(sub).toBe(parent.usage?.input);
    expect(both.input).toBe((parent.usage?.input ?? 0) + ((await driver.getSession(REAL))?.usage?.input ?? 0));
  });
});

describe('Copilot CLI: events from its schema', () => {
  it('reports a malformed line, a record that is no event and a torn last line with file and line; the rest loads', async () => {
    const events = chain([
      { type: 'session.start', data: { sessionId: 's-bad', startTime: '2026-01-02T09:59:59.000Z', context: { cwd: '/p/bad' } } },
      { type: 'user.message', data: { content: 'first question' } },
      { type: 'assistant.message', data: { content: 'first answer', toolRequests: [] } },
      { type: 'user.message', data: { content: 'second question' } },
    ]);
    const driver = await home('bad', {
      's-bad': {
        events: `${jsonl([events[0], events[1], '{"type": "user.mess', { no: 'type' }, events[2], events[3]]).trimEnd()}\n{"type":"assistant.mes`,
      },
    });
    const s = (await driver.getSession('s-bad')) as Session;
    const file = join(dir, 'bad', 'session-state', 's-bad', 'events.jsonl');
    expect(s.warnings?.map((w) => [w.file, w.line])).toEqual([
      [file, 3],
      [file, 4],
      [file, 7],
    ]);
    expect(s.warnings?.[2]?.message).toMatch(/torn/);
    expect(roles(buildContext(s).messages)).toEqual(['user', 'assistant', 'user']);
    expect(s.project).toBe('/p/bad');
    // listed too, with the warnings
    const [info] = await driver.listSessions();
    expect(info?.meta?.warnings).toHaveLength(3);
  });

  it('a snapshot rewind leaves the events it removed as an abandoned branch', async () => {
    const events = chain([
      { type: 'user.message', data: { content: 'keep me' } },
      { type: 'assistant.message', data: { content: 'kept' } },
      { type: 'user.message', data: { content: 'drop me' } },
      { type: 'assistant.message', data: { content: 'dropped' } },
      { type: 'session.snapshot_rewind', data: { upToEventId: 'ev-3', eventsRemoved: 2, eventIds: ['ev-3', 'ev-4'] } },
      { type: 'user.message', data: { content: 'instead' } },
    ]);
    const s = (await (await home('rewind', { 's-rw': { events: jsonl(events) } })).getSession('s-rw')) as Session;
    const texts = buildContext(s).messages.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''));
    expect(texts).toEqual(['keep me', 'kept', 'instead']);
    expect(s.entries.find((e) => e.id === 'ev-3')).toBeDefined();
  });

  it("a sub-agent's events are a side chain; a compaction, a model change and a notification are read as such", async () => {
    const events = chain([
      { type: 'user.message', data: { content: 'delegate' } },
      {
        type: 'assistant.message',
        data: { content: '', toolRequests: [{ toolCallId: 'call-t', name: 'task', arguments: '{"prompt":"look"}' }] },
      },
      { type: 'tool.execution_start', data: { toolCallId: 'call-t', toolName: 'task', arguments: { prompt: 'look' } } },
      { type: 'assistant.message', data: { content: 'sub work', parentToolCallId: 'call-t' } },
      { type: 'tool.execution_complete', data: { toolCallId: 'call-t', success: false, error: { message: 'sub-agent failed' } } },
      { type: 'session.model_change', data: { previousModel: 'a', newModel: 'gpt-5.2', reasoningEffort: 'high' } },
      {
        type: 'session.compaction_complete',
        data: { success: true, summaryContent: 'what happened so far', preCompactionTokens: 900 },
      },
      { type: 'system.notification', data: { content: 'Background task finished', kind: { type: 'shell_completed' } } },
      { type: 'user.message', data: { content: 'after' } },
    ]);
    const s = (await (await home('side', { 's-side': { events: jsonl(events) } })).getSession('s-side')) as Session;
    const sub = s.entries.find((e) => e.id === 'ev-4') as MessageEntry;
    expect(sub.sidechain).toBe(true);
    expect(s.messageCount).toBe(5);
    const result = (s.entries.find((e) => e.id === 'ev-5') as MessageEntry).message.parts[0];
    expect(result).toEqual({ type: 'tool_result', callId: 'call-t', name: 'task', content: 'sub-agent failed', isError: true });
    const call = (s.entries.find((e) => e.id === 'ev-2') as MessageEntry).message.parts[0];
    expect(call).toMatchObject({ type: 'tool_call', input: { prompt: 'look' } });
    expect(s.entries.find((e) => e.id === 'ev-6')).toMatchObject({
      kind: 'model_change',
      model: 'gpt-5.2',
      thinkingLevel: 'high',
    });
    const ctx = buildContext(s);
    expect(ctx.messages.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''))).toEqual([
      'what happened so far',
      'Background task finished',
      'after',
    ]);
    expect(injectedLabel(ctx.messages[1] as Message)).toBe('notification, added by Copilot CLI');
    expect(s.title).toBe('delegate');
  });

  it('takes the name and folder from workspace.yaml (a name the user gave over the first message)', async () => {
    expect(
      parseWorkspace("id: x\ncwd: /home/u/my proj\nname: 'it''s: named'\nuser_named: true\nsummary: |\n  long text\n"),
    ).toEqual({ cwd: '/home/u/my proj', name: "it's: named", userNamed: true });
    const events = chain([{ type: 'user.message', data: { content: 'typed first' } }]);
    const driver = await home('ws', {
      's-ws': { events: jsonl(events), workspace: 'id: s-ws\ncwd: /w/here\nname: "Named \\"it\\""\nuser_named: true\n' },
    });
    const [info] = await driver.listSessions();
    expect(info).toMatchObject({ id: 's-ws', project: '/w/here', title: 'Named "it"' });
  });

  it('reads an older bare session-state/<id>.jsonl too, and says how to resume', async () => {
    const root = join(dir, 'legacy');
    await mkdir(join(root, 'session-state'), { recursive: true });
    await writeFile(
      join(root, 'session-state', 's-old.jsonl'),
      jsonl(chain([{ type: 'user.message', data: { content: 'old' } }])),
    );
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: root } });
    const [info] = await driver.listSessions();
    expect(info?.id).toBe('s-old');
    expect(driver.resumeCommand({ ...(info as NonNullable<typeof info>), project: '/a b' })).toBe(
      `cd '/a b' && COPILOT_HOME=${root} copilot --resume=s-old`,
    );
  });

  it('finds ~/.copilot without COPILOT_HOME', async () => {
    const h = join(dir, 'plainhome');
    await cp(FIXTURE, join(h, '.copilot'), { recursive: true });
    const ids = (await new CopilotDriver({ home: h, env: {} }).listSessions()).map((s) => s.id);
    expect(ids.sort()).toEqual([REAL, SUB, RUN].sort());
  });
});

describe('Copilot CLI: what it sends on resume, and sessions written for it', () => {
  it('resumes a user message as the transformedContent it recorded, an image after "Attached image", a failed result unflagged', async () => {
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: FIXTURE } });
    const ctx = await driver.getContext(REAL);
    // what copilot 1.0.102 sent for this turn when the fixture's session was resumed (FORMAT.md)
    expect(ctx.messages[0]?.parts).toEqual([
      { type: 'text', text: '<current_datetime>2026-11-26T04:16:28.507+00:00</current_datetime>\n\nRUN: echo hello-copilot' },
    ]);
    const sent = copilotContext({
      id: 'x',
      source: 'copilot',
      createdAt: '',
      updatedAt: '',
      messageCount: 3,
      entries: [
        {
          kind: 'message',
          id: 'u',
          parentId: null,
          timestamp: 't',
          message: {
            role: 'user',
            parts: [
              { type: 'text', text: 'see' },
              { type: 'image', mediaType: 'image/png', data: 'AA==' },
            ],
          },
        },
        {
          kind: 'message',
          id: 'a',
          parentId: 'u',
          timestamp: 't',
          message: { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'bash', input: {} }] },
        },
        {
          kind: 'message',
          id: 'r',
          parentId: 'a',
          timestamp: 't',
          message: { role: 'tool', parts: [{ type: 'tool_result', callId: 'c', content: 'boom', isError: true }] },
        },
      ],
    });
    expect(sent.messages[0]?.parts.map((p) => p.type + (p.type === 'text' ? `:${p.text}` : ''))).toEqual([
      'text:see',
      'text:Attached image',
      'image',
    ]);
    expect(sent.messages[2]?.parts).toEqual([{ type: 'tool_result', callId: 'c', content: 'boom' }]);
  });

  it('writes events Copilot CLI loads: UUID ids chained, a session.start with copilotVersion, each call answered', () => {
    const t = '2026-03-01T10:00:00.000Z';
    const { records, warnings } = encodeCopilotEvents(
      {
        id: 'src',
        source: 'threadbase',
        project: '/p',
        createdAt: t,
        updatedAt: t,
        messageCount: 2,
        entries: [
          {
            kind: 'message',
            id: 'u',
            parentId: null,
            timestamp: t,
            message: { role: 'user', parts: [{ type: 'text', text: 'go' }] },
          },
          {
            kind: 'message',
            id: 'a',
            parentId: 'u',
            timestamp: t,
            message: {
              role: 'assistant',
              parts: [
                { type: 'thinking', thinking: 'no signature' },
                { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'ls' } },
              ],
            },
          },
        ],
      },
      { sessionId: '11111111-2222-4333-8444-555555555555' },
    );
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(records.every((r) => uuid.test(String(r.id)))).toBe(true);
    expect(records.map((r) => r.parentId)).toEqual([null, ...records.slice(0, -1).map((r) => r.id)]);
    expect(records.map((r) => r.type)).toEqual([
      'session.start',
      'user.message',
      'assistant.message',
      'tool.execution_start',
      'tool.execution_complete',
    ]);
    expect(records[0]?.data).toMatchObject({
      sessionId: '11111111-2222-4333-8444-555555555555',
      copilotVersion: '1.0.102',
      context: { cwd: '/p' },
    });
    expect(records[4]?.data).toEqual({
      toolCallId: 'c1',
      success: false,
      error: { message: 'No result was recorded for this call.' },
    });
    // thinking without a signature: Copilot CLI's reasoningText, which it keeps and does not send
    expect(records[2]?.data).toMatchObject({ reasoningText: 'no signature' });
    expect(records[2]?.data).not.toHaveProperty('reasoningBlocks');
    expect(warnings).toEqual(['tool call c1 had no result: written as an error result']);
  });
});
