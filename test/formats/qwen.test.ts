/**
 * The Qwen Code driver over a real 0.24.4 chat (test/fixtures/qwen/real-0.24.4/README.md) and over
 * chats with damaged lines, fragments and a compression; and its writer read back.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import '../../src/formats/all.js';
import { injectedLabel } from '../../src/formats/injected.js';
import { QwenDriver, sanitizeCwd } from '../../src/formats/qwen/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pairToolCalls } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { chainSession, messageEntry, messageOutline, ONE_PIXEL_PNG, textMessage } from '../helpers/sessions.js';

const REAL = 'ee2a1197-112a-4879-a9f4-4ee94585ced0';
/** The real chat that ran a sub-agent, and the sub-agent's id */
const SUB_PARENT = '1865e916-c5ec-4265-a939-6e90168805d2';
const SUB_AGENT = 'general-purpose-toolu_standin_0001';
const REAL_DIR = resolve('test/fixtures/qwen/real-0.24.4');
const realEnv: DriverEnv = { home: '/nonexistent', env: { QWEN_HOME: REAL_DIR } };

let dir: string;
let env: DriverEnv;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-qwen-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('qwen: the real 0.24.4 chat', () => {
  it('lists it with its project (the records’ cwd), title, messages, model and usage', async () => {
    const list = await new QwenDriver(realEnv).listSessions();
    expect(list.map((s) => s.id).sort()).toEqual([REAL, SUB_PARENT, SUB_AGENT].sort());
    const s = list.find((x) => x.id === REAL);
    expect(s).toMatchObject({
      id: REAL,
      source: 'qwen',
      project: '/tmp/qwen-fixture/proj',
      title: 'THINK then run echo',
      messageCount: 8,
      parentId: null,
      models: ['claude-standin'],
      meta: { qwenVersion: '0.24.4' },
    });
    // four responses: prompt tokens 2449 + 2571 + 2613 + 2679, candidates 54 + 15 + 31 + 15
    expect(s?.usage).toMatchObject({ input: 10312, output: 115, cacheRead: 0, reasoning: 0 });
  });

  it('lists a sub-agent’s transcript under its agent id, with the session and the call that spawned it', async () => {
    const driver = new QwenDriver(realEnv);
    const sub = (await driver.getSession(SUB_AGENT)) as Session;
    expect(sub).toMatchObject({
      source: 'qwen',
      project: '/tmp/qwen-sub/proj',
      parentId: SUB_PARENT,
      parentToolCallId: 'toolu_standin_0001',
      title: 'count the files',
      meta: { kind: 'subagent', agentType: 'general-purpose' },
    });
    expect(messageOutline((await driver.getContext(SUB_AGENT)).messages)).toEqual([
      'user:count the files',
      'assistant:Plain answer from the stand-in.',
    ]);
    const parent = (await driver.getSession(SUB_PARENT)) as Session;
    const call = parent.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ id: 'toolu_standin_0001', name: 'agent' });
    // the sub-agent's result came back as a notification Qwen Code wrote into the conversation
    const notes = parent.entries.flatMap((e) =>
      e.kind === 'message' && injectedLabel(e.message) ? [injectedLabel(e.message)] : [],
    );
    expect(notes).toEqual(['notification, added by Qwen Code']);
  });

  it('gives the context Qwen Code resumed with: thinking with its signature, calls paired with their results', async () => {
    const driver = new QwenDriver(realEnv);
    const ctx = await driver.getContext(REAL);
    expect(messageOutline(ctx.messages)).toEqual([
      'user:THINK then run echo',
      'assistant:thinking,tool_call',
      'tool:tool_result',
      'assistant:The command printed its output.',
      'user:READ notes.txt please',
      'assistant:tool_call',
      'tool:tool_result',
      'assistant:The command printed its output.',
    ]);
    expect(ctx.messages[1]?.parts[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants a shell command run.',
      signature: 'sig-standin-1',
    });
    const pairing = pairToolCalls(ctx.messages);
    expect(pairing.unanswered).toEqual([]);
    expect(pairing.orphanResults).toEqual([]);
    expect(ctx.messages[6]?.parts[0]).toMatchObject({ callId: 'toolu_standin_0003', name: 'read_file', content: 'hello file\n' });
    // Qwen Code's own system records are metadata entries on the chain, never sent
    const s = (await driver.getSession(REAL)) as Session;
    expect(s.entries.filter((e) => e.kind === 'metadata').map((e) => (e as { type: string }).type)).toContain(
      'qwen:ui_telemetry',
    );
    expect(s.warnings).toEqual([]);
  });

  it('honours QWEN_RUNTIME_DIR over QWEN_HOME, and finds nothing where there is nothing', async () => {
    expect(
      await new QwenDriver({ home: '/nonexistent', env: { QWEN_RUNTIME_DIR: REAL_DIR, QWEN_HOME: '/nowhere' } }).listSessions(),
    ).toHaveLength(3);
    expect(await new QwenDriver({ home: '/nonexistent', env: {} }).listSessions()).toEqual([]);
  });

  it('is listed by `threadbase sessions --source qwen`', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-qwen-cli-'));
    try {
      await cp(REAL_DIR, join(home, '.qwen'), { recursive: true });
      const cliEnv = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
      const r = await runCli(cliEnv, ['sessions', '--source', 'qwen', '--json']);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.out) as { id: string }[]).map((s) => s.id).sort()).toEqual([REAL, SUB_PARENT, SUB_AGENT].sort());
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** Writes a chat of `records` for project /p under the temp home; returns its id. */
async function chat(id: string, lines: string[]): Promise<string> {
  const chats = join(dir, '.qwen', 'projects', sanitizeCwd('/p'), 'chats');
  await mkdir(chats, { recursive: true });
  await writeFile(join(chats, `${id}.jsonl`), lines.join('\n'));
  return id;
}

const rec = (uuid: string, parentUuid: string | null, type: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    uuid,
    parentUuid,
    sessionId: 'x',
    timestamp: `2026-01-01T00:00:0${uuid.length % 10}.000Z`,
    type,
    cwd: '/p',
    ...extra,
  });
const user = (text: string) => ({ message: { role: 'user', parts: [{ text }] } });
const model = (text: string) => ({ message: { role: 'model', parts: [{ text }] } });

describe('qwen: damaged chats', () => {
  it('reports a malformed record, an unknown type, a missing parent and a torn last line by file and line; the rest loads', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000001', [
      rec('a', null, 'user', user('hello')),
      '{"no":"uuid"}',
      rec('b', 'a', 'assistant', model('hi')),
      rec('c', 'b', 'mystery'),
      rec('d', 'gone', 'user', user('after a gap')),
      rec('e', 'd', 'assistant', model('still here')),
      '{"uuid":"f","parentUuid":"e","ty',
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    const file = s.path as string;
    expect(s.warnings).toEqual([
      { file, line: 2, message: expect.stringMatching(/malformed record/) },
      { file, line: 4, id: 'c', message: expect.stringMatching(/unknown record type "mystery"/) },
      { file, line: 7, message: expect.stringMatching(/torn last line/) },
      { file, line: 5, id: 'd', message: expect.stringMatching(/parent gone not found/) },
    ]);
    // the leaf is the last record; its chain starts at the record whose parent is gone
    expect(messageOutline((await new QwenDriver(env).getContext(id)).messages)).toEqual([
      'user:after a gap',
      'assistant:still here',
    ]);
    expect(s.entries.map((e) => e.id)).toEqual(['a', 'b', 'd', 'e']);
  });

  it('cuts a parentUuid cycle at its member latest in the file, with a warning naming its line', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000005', [
      rec('a', 'c', 'user', user('one')),
      rec('b', 'a', 'assistant', model('two')),
      rec('c', 'b', 'user', user('three')),
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    expect(s.warnings).toEqual([{ file: s.path, line: 3, id: 'c', message: expect.stringMatching(/parentUuid cycle/) }]);
    expect(s.entries.map((e) => e.parentId)).toEqual(['c', 'a', null]);
    expect(messageOutline((await new QwenDriver(env).getContext(id)).messages)).toEqual(['user:three']);
  });

  it('reads OpenAI Responses reasoning kept in a thoughtSignature as encrypted reasoning, not as a signature', async () => {
    const sig = JSON.stringify({ id: 'rs_1', encrypted_content: 'gAAAA-opaque' });
    const id = await chat('00000000-0000-4000-8000-000000000006', [
      rec('a', null, 'user', user('think')),
      rec('b', 'a', 'assistant', {
        message: {
          role: 'model',
          parts: [
            { text: 'Summary of the reasoning.', thought: true },
            { thought: true, thoughtSignature: sig },
            { text: 'Done.' },
          ],
        },
      }),
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    const b = s.entries.find((e) => e.id === 'b');
    expect(b?.kind === 'message' && b.message.parts).toEqual([
      { type: 'thinking', thinking: 'Summary of the reasoning.' },
      { type: 'thinking', thinking: '', meta: { codexItemId: 'rs_1', encryptedContent: 'gAAAA-opaque' } },
      { type: 'text', text: 'Done.' },
    ]);
    // written as Qwen Code keeps it
    const info = await new QwenDriver(env).writeSession({
      ...s,
      id: 'again',
      // as another agent's entries (its own are written back as they were)
      entries: s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e as Entry),
    });
    const records = (await readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { parts: unknown[] } });
    expect(records.find((r) => r.type === 'assistant')?.message?.parts[1]).toEqual({
      text: '',
      thought: true,
      thoughtSignature: sig,
    });
  });

  it('joins the fragments of one record (a repeated uuid), as Qwen Code does', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000002', [
      rec('a', null, 'user', user('hello')),
      rec('b', 'a', 'assistant', model('part one')),
      rec('b', 'a', 'assistant', { ...model(' part two'), usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4 } }),
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    const b = s.entries.find((e) => e.id === 'b');
    expect(b?.kind === 'message' && b.message.parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual([
      'part one',
      ' part two',
    ]);
    expect(s.usage).toMatchObject({ input: 10, output: 4 });
  });

  it('reads a chat_compression as a compaction: the resumed context starts at its history', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000003', [
      rec('a', null, 'user', user('long story')),
      rec('b', 'a', 'assistant', model('long answer')),
      rec('cc', 'b', 'system', {
        subtype: 'chat_compression',
        systemPayload: {
          info: { originalTokenCount: 900, newTokenCount: 50, compressionStatus: 1 },
          compressedHistory: [
            { role: 'user', parts: [{ text: 'The summary.' }] },
            { role: 'model', parts: [{ text: 'Got it.' }] },
          ],
        },
      }),
      rec('d', 'cc', 'user', user('next')),
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    // the summary is the history's first (user) turn; Qwen Code sends the rest after it
    expect(s.entries.find((e) => e.id === 'cc')).toMatchObject({
      kind: 'compaction',
      summary: 'The summary.',
      tokensBefore: 900,
    });
    const ctx = await new QwenDriver(env).getContext(id);
    expect(messageOutline(ctx.messages)).toEqual(['user:The summary.', 'assistant:Got it.', 'user:next']);
  });

  it('leaves a realtime message out of the resumed context, as Qwen Code does', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000007', [
      rec('a', null, 'user', user('first')),
      rec('b', 'a', 'user', { subtype: 'realtime_message', ...user('typed while it worked') }),
      rec('c', 'b', 'assistant', model('answer')),
    ]);
    expect(messageOutline((await new QwenDriver(env).getContext(id)).messages)).toEqual(['user:first', 'assistant:answer']);
  });

  it('names a notification Qwen Code wrote into the conversation itself', async () => {
    const id = await chat('00000000-0000-4000-8000-000000000004', [
      rec('a', null, 'user', {
        subtype: 'notification',
        provenance: 'system',
        ...user('<task-notification>done</task-notification>'),
      }),
      rec('b', 'a', 'user', user('my question')),
    ]);
    const s = (await new QwenDriver(env).getSession(id)) as Session;
    const [first, second] = s.entries as [Entry, Entry];
    expect(first.kind === 'message' && injectedLabel(first.message)).toBe('notification, added by Qwen Code');
    expect(second.kind === 'message' && injectedLabel(second.message)).toBeUndefined();
    expect(s.title).toBe('my question');
  });
});

describe('qwen: writing', () => {
  const t = '2026-01-02T00:00:00.000Z';
  const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
  const session: Session = {
    id: 'written',
    source: 'claude',
    project: '/p',
    title: 'A written chat',
    createdAt: t,
    updatedAt: t,
    messageCount: 6,
    entries: [
      messageEntry('s', null, t, textMessage('system', 'Be brief.')),
      messageEntry('u', 's', t, { role: 'user', parts: [{ type: 'text', text: 'what is this?' }, png] }),
      // one response split over two entries (Claude Code), with a redacted block and a cost
      messageEntry('a1', 'u', t, {
        role: 'assistant',
        responseId: 'msg_1',
        provider: 'anthropic',
        model: 'claude-x',
        parts: [
          { type: 'thinking', thinking: 'Look closer.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
        ],
      }),
      messageEntry('a2', 'a1', t, {
        role: 'assistant',
        responseId: 'msg_1',
        provider: 'anthropic',
        model: 'claude-x',
        cost: 0.25,
        stopReason: 'tool_use',
        usage: { input: 10, output: 5, cacheRead: 3, cacheWrite: 7, reasoning: 0 },
        parts: [
          { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a.png' } },
          { type: 'tool_call', id: 'c2', name: 'read_file', input: { path: 'missing.png' } },
        ],
      }),
      messageEntry('r', 'a2', t, {
        role: 'tool',
        parts: [
          { type: 'tool_result', callId: 'c1', name: 'read_file', content: [{ type: 'text', text: 'the image:' }, png] },
          { type: 'tool_result', callId: 'c2', name: 'read_file', content: 'no such file', isError: true },
        ],
      }),
      messageEntry('b', 'r', t, {
        role: 'assistant',
        model: 'claude-x',
        provider: 'anthropic',
        parts: [{ type: 'text', text: 'A pixel.' }],
      }),
    ],
    leafId: 'b',
  };

  it('writes a new chat in the project’s folder that reads back as the session, nothing lost', async () => {
    const sources = new Sources(env);
    const info = await sources.driver('qwen').writeSession?.(session);
    await sources.close();
    expect(info?.path).toBe(join(dir, '.qwen', 'projects', '-p', 'chats', `${info?.id}.jsonl`));
    const back = (await new QwenDriver(env).getSession(info?.id as string)) as Session;
    expect(back.warnings).toEqual([]);
    expect(back.title).toBe('A written chat');
    const messages = (es: Entry[]) => es.flatMap((e) => (e.kind === 'message' ? [{ id: e.id, message: e.message }] : []));
    expect(messages(back.entries)).toEqual(messages(session.entries));
    // every record is on one chain, each with the project as cwd (Qwen Code resumes only that project's chats)
    const records = (await readFile(info?.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            uuid: string;
            parentUuid: string | null;
            cwd: string;
            sessionId: string;
            type: string;
            message?: unknown;
          },
      );
    records.forEach((r, i) => {
      expect(r.parentUuid).toBe(i ? records[i - 1]?.uuid : null);
      expect(r).toMatchObject({ cwd: '/p', sessionId: info?.id });
    });
    // the split response is one model turn; the system message is a record Qwen Code does not send; the
    // results, one ran and one failed, a record each of its status, as Qwen Code records them
    expect(records.map((r) => r.type)).toEqual([
      'system',
      'user',
      'assistant',
      'tool_result',
      'tool_result',
      'assistant',
      'system',
    ]);
    expect(records[0]?.message).toBeUndefined();
    expect(records[2]?.message).toEqual({
      role: 'model',
      parts: [
        { text: 'Look closer.', thought: true, thoughtSignature: 'sig-1' },
        { functionCall: { id: 'c1', name: 'read_file', args: { path: 'a.png' } } },
        { functionCall: { id: 'c2', name: 'read_file', args: { path: 'missing.png' } } },
      ],
    });
  });

  it('writes a Qwen Code chat copied into Qwen Code back record for record, unknown fields included', async () => {
    const real = (await new QwenDriver(realEnv).getSession(REAL)) as Session;
    const info = await new QwenDriver(env).writeSession(real);
    type Rec = Record<string, unknown> & { uuid: string; parentUuid: string | null; sessionId: string };
    const lines = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
    const original = lines(await readFile(real.path as string, 'utf8'));
    const copy = lines(await readFile(info.path as string, 'utf8'));
    // the same records (the title Qwen Code gave none of its own added last), re-chained under the new id
    const strip = ({ parentUuid: _p, sessionId: _s, ...r }: Rec) => r;
    expect(copy.slice(0, -1).map(strip)).toEqual(original.map(strip));
    expect(copy.at(-1)).toMatchObject({ type: 'system', subtype: 'custom_title' });
    expect(new Set(copy.map((r) => r.sessionId))).toEqual(new Set([info.id]));
    const back = (await new QwenDriver(env).getSession(info.id)) as Session;
    expect((await new QwenDriver(env).getContext(info.id)).messages).toEqual(
      (await new QwenDriver(realEnv).getContext(REAL)).messages,
    );
    expect(back.warnings).toEqual([]);
  });

  it('prints the resume command in the project, with the home override it was found under', () => {
    const driver = new QwenDriver({ home: dir, env: { QWEN_HOME: "/q's home" } });
    expect(driver.resumeCommand({ id: 'abc', project: '/my proj' } as Session)).toBe(
      `cd '/my proj' && QWEN_HOME='/q'\\''s home' qwen --resume abc`,
    );
  });

  it('keeps a free UUID with keepId, and a compaction as Qwen Code’s own chat_compression', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const s = chainSession(id, 'pi', '/p', [
      ['u1', textMessage('user', 'first')],
      ['a1', textMessage('assistant', 'first answer')],
    ]);
    s.entries.push({
      kind: 'compaction',
      id: 'k',
      parentId: 'a1',
      timestamp: t,
      summary: 'We talked.',
      firstKeptEntryId: 'a1',
      tokensBefore: 40,
    });
    s.entries.push(messageEntry('u2', 'k', t, textMessage('user', 'second')));
    const info = await new QwenDriver(env).writeSession(s, { keepId: true });
    expect(info.id).toBe(id);
    const records = (await readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { subtype?: string; systemPayload?: { compressedHistory?: unknown } });
    expect(records.find((r) => r.subtype === 'chat_compression')?.systemPayload?.compressedHistory).toEqual([
      { role: 'user', parts: [{ text: 'We talked.' }] },
      { role: 'model', parts: [{ text: 'first answer' }] },
    ]);
    const back = (await new QwenDriver(env).getSession(id)) as Session;
    expect(back.entries.find((e) => e.id === 'k')).toMatchObject({
      kind: 'compaction',
      summary: 'We talked.',
      firstKeptEntryId: 'a1',
    });
    expect(messageOutline((await new QwenDriver(env).getContext(id)).messages)).toEqual([
      'user:We talked.',
      'assistant:first answer',
      'user:second',
    ]);
  });
});

describe('qwen: what a conversion into it says it cannot keep', () => {
  it('names system messages, costs, model changes, labels, other agents’ metadata, provider-run searches and calls without a result', () => {
    const t = '2026-01-03T00:00:00.000Z';
    const s = chainSession('lossy', 'codex', '/p', [
      ['s', textMessage('system', 'Be brief.')],
      ['u', textMessage('user', 'go')],
      [
        'a',
        {
          role: 'assistant',
          cost: 0.5,
          parts: [
            {
              type: 'tool_call',
              id: 'ws',
              name: 'web_search',
              input: { type: 'search', query: 'q' },
              meta: { providerExecuted: true },
            },
            { type: 'tool_call', id: 'open', name: 'run_shell_command', input: { command: 'ls' } },
          ],
        },
      ],
    ]);
    s.entries.push(
      { kind: 'model_change', id: 'm', parentId: 'a', timestamp: t, model: 'x' },
      { kind: 'label', id: 'l', parentId: 'm', timestamp: t, targetId: 'u', label: 'here' },
      { kind: 'metadata', id: 'md', parentId: 'l', timestamp: t, type: 'codex:event' },
    );
    const said = conversionLosses(s, 'qwen').join('\n');
    for (const what of [
      /no system messages.*\(1\)/,
      /no cost per message.*\(1\)/,
      /model\/thinking-level changes.*\(1\)/,
      /labels.*\(1\)/,
      /another agent's metadata.*\(1\)/,
      /searches the provider ran.*\(1\)/,
      /without a result are answered by Qwen Code.*own error result.*\(1\)/,
    ])
      expect(said).toMatch(what);
  });
});
