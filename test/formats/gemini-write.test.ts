/**
 * Writing Gemini CLI chats: sessions of Claude Code, pi and codex fixtures converted into a Gemini
 * home and read back keep every turn, tool call and result, thinking (with its signature) and usage;
 * the chat is a new file written whole beside the chats that are there; the project is registered
 * as Gemini CLI registers it (projects.json, `.project_root` in tmp/ and history/). The context's
 * Gemini form is what the real Gemini CLI sent on resume in the recorded fixture.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession, sessionAlongPath } from '../../src/convert/session.js';
import { INTERRUPTED_RESPONSE_PLACEHOLDER } from '../../src/formats/gemini/context.js';
import { chatFileName } from '../../src/formats/gemini/driver.js';
import { NO_RESULT } from '../../src/formats/gemini/encode.js';
import {
  contextToGeminiContents,
  contextToGeminiRequest,
  encodeChatRecords,
  GeminiDriver,
} from '../../src/formats/gemini/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext, type Context } from '../../src/model/tree.js';
import type { Entry, Message, Part, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { runCli } from '../helpers/cli.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-write-'));
  await fs.cp(resolve('test/fixtures/claude/real/projects'), join(root, '.claude', 'projects'), { recursive: true });
  await fs.cp(resolve('test/fixtures/codex/home/sessions'), join(root, '.codex', 'sessions'), { recursive: true });
  const piDir = join(root, '.pi', 'agent', 'sessions', '--proj--');
  await fs.mkdir(piDir, { recursive: true });
  for (const f of ['real-tool-call.jsonl', 'real-compacted.jsonl', 'v3-all-types.jsonl'])
    await fs.copyFile(resolve('test/fixtures/pi', f), join(piDir, f));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function sourceSessions(): Promise<Session[]> {
  const sources = new Sources(env);
  try {
    const out: Session[] = [];
    for (const agent of ['claude', 'pi', 'codex']) {
      const d = sources.driver(agent);
      for (const info of await d.listSessions()) {
        const s = await d.getSession(info.id);
        if (s) out.push(s);
      }
    }
    return out;
  } finally {
    await sources.close();
  }
}

/** What a context holds that Gemini must keep: turns' texts, calls, results, thinking, in order. */
function essence(ctx: Context): string[] {
  const part = (m: Message, p: Part): string[] => {
    if (p.type === 'text') return p.text ? [`${m.role}:text:${p.text}`] : [];
    if (p.type === 'thinking') return [`thinking:${p.thinking}:${p.signature ?? ''}`];
    if (p.type === 'redacted_thinking') return [`redacted:${p.data}`];
    if (p.type === 'tool_call') return [`call:${p.id}:${p.name}:${JSON.stringify(p.input)}`];
    if (p.type === 'tool_result') return [`result:${p.callId}:${p.isError ? 'error:' : ''}${JSON.stringify(p.content)}`];
    if (p.type === 'image') return [`${m.role}:image:${p.mediaType}:${p.data ?? p.url}`];
    return [`${m.role}:file:${p.mediaType}`];
  };
  return ctx.messages.flatMap((m) => m.parts.flatMap((p) => part(m, p)));
}

const messagesOf = (entries: readonly Entry[]) =>
  entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));

describe('gemini: writing chats', () => {
  it('round trip of the Claude Code, pi and codex fixtures: turns, tool calls, results, thinking, usage', async () => {
    const sessions = (await sourceSessions()).filter((s) => !s.parentId);
    expect(new Set(sessions.map((s) => s.source))).toEqual(new Set(['claude', 'pi', 'codex']));
    const driver = new GeminiDriver(env);
    let calls = 0;
    let thinking = 0;
    for (const s of sessions) {
      const along = sessionAlongPath(s, undefined, 'gemini');
      const info = await driver.writeSession(along);
      const back = (await driver.getSession(info.id)) as Session;
      expect(back.warnings, s.id).toEqual([]);
      const want = essence(buildContext(along));
      expect(essence(buildContext(back)), `${s.source} ${s.id}`).toEqual(want);
      calls += want.filter((w) => w.startsWith('call:')).length;
      thinking += want.filter((w) => w.startsWith('thinking:')).length;
      // usage: every response's tokens, once, by model
      const u = (entries: readonly Entry[]) => {
        const sum = summarizeUsage(entries);
        return { usage: sum.usage, models: sum.models };
      };
      expect(u(back.entries), `${s.source} ${s.id} usage`).toEqual(u(along.entries));
      expect(messagesOf(back.entries).map((m) => [m.model, m.provider, m.cost])).toEqual(
        messagesOf(along.entries).flatMap((m, i, all) =>
          // split responses (one responseId) are one Gemini turn
          i > 0 && m.responseId && all[i - 1]?.responseId === m.responseId ? [] : [[m.model, m.provider, m.cost]],
        ),
      );
    }
    expect(calls).toBeGreaterThan(3);
    expect(thinking).toBeGreaterThan(0);
  });

  it('writes a new file, whole, beside the chats there; two writes of one session are two chats', async () => {
    const [s] = (await sourceSessions()).filter((x) => x.source === 'pi');
    const driver = new GeminiDriver(env);
    const a = await driver.writeSession(s as Session);
    const b = await driver.writeSession(s as Session);
    expect(a.id).not.toBe(b.id);
    expect(a.path).not.toBe(b.path);
    const dir = dirname(a.path as string);
    expect(dirname(dirname(dir))).toBe(join(root, '.gemini', 'tmp'));
    const names = (await fs.readdir(dir)).sort();
    expect(names).toHaveLength(2);
    for (const n of names) expect(n).toMatch(/^session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.jsonl$/);
    expect(chatFileName('1feb6904-698a-4392-9399-e06da18b836d', new Date('2026-11-22T19:21:00.111Z'))).toBe(
      'session-2026-11-22T19-21-1feb6904.jsonl',
    );
    const first = JSON.parse((await fs.readFile(a.path as string, 'utf8')).split('\n')[0] as string);
    expect(first).toMatchObject({ sessionId: a.id, kind: 'main' });
    expect(driver.resumeCommand({ ...a, project: "/w/it's" })).toBe(`cd '/w/it'\\''s' && gemini --resume ${a.id}`);
    // keepId keeps a free UUID, never one that is taken
    const kept = await driver.writeSession({ ...(s as Session), id: a.id }, { keepId: true });
    expect(kept.id).not.toBe(a.id);
  });

  it('registers the project as Gemini CLI does, and takes the next slug when another path owns one', async () => {
    const driver = new GeminiDriver(env);
    const base = (await sourceSessions()).find((x) => x.source === 'pi') as Session;
    await driver.writeSession({ ...base, project: '/work/My App' });
    await driver.writeSession({ ...base, project: '/elsewhere/my-app' });
    await driver.writeSession({ ...base, project: '/work/My App' });
    const reg = JSON.parse(await fs.readFile(join(root, '.gemini', 'projects.json'), 'utf8'));
    expect(reg).toEqual({ projects: { '/work/My App': 'my-app', '/elsewhere/my-app': 'my-app-1' } });
    for (const [slug, path] of [
      ['my-app', '/work/My App'],
      ['my-app-1', '/elsewhere/my-app'],
    ])
      for (const base of ['tmp', 'history'])
        expect(await fs.readFile(join(root, '.gemini', base, slug as string, '.project_root'), 'utf8')).toBe(path);
    expect(await fs.readdir(join(root, '.gemini', 'tmp', 'my-app', 'chats'))).toHaveLength(2);
    const listed = await driver.listSessions({ project: '/elsewhere/my-app' });
    expect(listed).toHaveLength(1);
  });

  it('a chat Gemini CLI recorded, written again, sends what it sent (the fixture request)', async () => {
    const realEnv: DriverEnv = { home: resolve('test/fixtures/gemini/real-0.61.0'), env: {} };
    const real = (await new GeminiDriver(realEnv).getSession('1feb6904-698a-4392-9399-e06da18b836d')) as Session;
    const sent = JSON.parse(await fs.readFile(resolve('test/fixtures/gemini/request-resume-1feb6904.json'), 'utf8')) as {
      role: string;
      parts: Record<string, unknown>[];
    }[];
    // the request was the resume's: up to "second question", the fresh session context first
    const leaf = real.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'second question'),
    );
    const expected = structuredClone(sent);
    expected[0]?.parts.shift();
    expect(contextToGeminiContents(buildContext(real, { leafId: leaf?.id }))).toEqual(expected);
    // and the same once threadbase wrote it into another home
    const info = await new GeminiDriver(env).writeSession(real);
    const copy = (await new GeminiDriver(env).getSession(info.id)) as Session;
    const copyLeaf = copy.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'second question'),
    );
    expect(contextToGeminiContents(buildContext(copy, { leafId: copyLeaf?.id }))).toEqual(expected);
  });

  it('keeps what Gemini has no field for in a threadbase field, and reads it back', () => {
    const t = '2026-01-01T00:00:00.000Z';
    const { records } = encodeChatRecords({
      entries: [
        {
          id: 'u',
          parentId: null,
          timestamp: t,
          kind: 'message',
          message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        },
        {
          id: 'a',
          parentId: 'u',
          timestamp: t,
          kind: 'message',
          message: {
            role: 'assistant',
            parts: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'text', text: 'hello' },
            ],
            provider: 'anthropic',
            model: 'claude-x',
            cost: 0.5,
            usage: { input: 10, output: 5, cacheRead: 3, cacheWrite: 7, reasoning: 2 },
          },
        },
      ],
      leafId: 'a',
    });
    expect(records[1]).toMatchObject({
      type: 'gemini',
      content: 'hello',
      thoughts: [{ subject: '', description: 'hmm', threadbase: { signature: 'sig' } }],
      tokens: { input: 13, output: 3, cached: 3, thoughts: 2, total: 18 },
      threadbase: { provider: 'anthropic', cost: 0.5, usage: { cacheWrite: 7 }, redactedThinking: ['opaque'] },
    });
  });

  it('a plain-text document in a user turn is sent as its text and read back as the document', async () => {
    const parts: Part[] = [
      { type: 'text', text: 'Read these' },
      { type: 'file', mediaType: 'text/plain', text: 'plain notes', name: 'notes.txt' },
      { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjQK', name: 'spec.pdf' },
    ];
    const source = chainSession('s-doc', 'claude', '/tmp/doc-proj', [
      ['u', { role: 'user', parts }],
      ['a', textMessage('assistant', 'Read.')],
    ]);
    const driver = new GeminiDriver(env);
    const written = await driver.writeSession(source);
    const back = (await driver.getSession(written.id)) as Session;
    const user = back.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
    expect(user?.kind === 'message' && user.message.parts).toEqual(parts);
    // Gemini CLI sends the document's text, as it sends the record's content
    expect(contextToGeminiContents(buildContext(back))[0]?.parts).toEqual([
      { text: 'Read these' },
      { text: 'plain notes' },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK', displayName: 'spec.pdf' } },
    ]);
  });

  it('a result with an image and a plain-text document: the document in its output, as Gemini CLI joins a tool’s texts; read back as the one result it was', async () => {
    const png = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0K' };
    const content = [
      { type: 'text' as const, text: 'listed' },
      png,
      { type: 'file' as const, mediaType: 'text/plain', text: 'doc in result', name: 'doc.txt' },
    ];
    const source = chainSession('s-result-doc', 'claude', '/tmp/doc-proj', [
      ['u', textMessage('user', 'list')],
      ['a', { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'doc.txt' } }] }],
      ['r', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content }] }],
      ['b', textMessage('assistant', 'Done.')],
    ]);
    const driver = new GeminiDriver(env);
    const back = (await driver.getSession((await driver.writeSession(source)).id)) as Session;
    const tools = back.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'tool' ? [e.message.parts] : []));
    expect(tools).toEqual([[{ type: 'tool_result', callId: 'c1', content }]]);
    const sent = contextToGeminiContents(buildContext(back)).flatMap((c) => c.parts);
    expect(sent).toContainEqual({
      functionResponse: { id: 'c1', name: 'read_file', response: { output: 'listed\ndoc in result' } },
    });
    expect(sent).toContainEqual({ inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } });
    expect(sent).not.toContainEqual({ text: 'doc in result' });
  });

  it('a call the provider ran is sent as its note and read back as the call; a call without a result gets an error result', async () => {
    const search = {
      type: 'tool_call' as const,
      id: 'ws_1',
      name: 'web_search',
      input: { type: 'search', query: 'gemini cli' },
      meta: { providerExecuted: true },
    };
    const open = { type: 'tool_call' as const, id: 'call_2', name: 'shell', input: { command: 'ls' } };
    const session = chainSession('s', 'codex', '/p', [
      ['u', textMessage('user', 'look it up')],
      ['a', { role: 'assistant', parts: [search, { type: 'text', text: 'found it' }, open] }],
    ]);
    const driver = new GeminiDriver(env);
    const info = await driver.writeSession(session);
    expect(info.meta?.warnings).toEqual([
      `1 tool calls had no result; written with an error result (${NO_RESULT}) that Gemini CLI sends`,
    ]);
    const back = (await driver.getSession(info.id)) as Session;
    const ctx = buildContext(back);
    expect(ctx.messages.map((m) => m.parts.map((p) => p.type))).toEqual([
      ['text'],
      ['tool_call', 'text', 'tool_call'],
      ['tool_result'],
    ]);
    expect(ctx.messages[1]?.parts[0]).toEqual(search);
    expect(ctx.messages[2]?.parts[0]).toMatchObject({ callId: 'call_2', isError: true, meta: { geminiSynthetic: true } });
    const contents = contextToGeminiContents(ctx);
    expect(contents[1]?.parts).toEqual([
      { text: '[web search (run by the provider; its results are not kept): "gemini cli"]' },
      { text: 'found it' },
      { functionCall: { id: 'call_2', name: 'shell', args: { command: 'ls' } } },
    ]);
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'call_2', name: 'shell', response: { error: NO_RESULT } } }],
    });
    // ending in tool results, the history is closed by Gemini CLI's placeholder reply
    expect(contents[3]).toEqual({ role: 'model', parts: [{ text: INTERRUPTED_RESPONSE_PLACEHOLDER }] });
    expect(contents).toHaveLength(4);
  });

  it("context --format gemini: the request body, with the source's system prompt as systemInstruction", async () => {
    // a codex session's context carries codex's base instructions as its system prompt
    const r = await runCli(env, ['context', '01a2049f', '--source', 'codex', '--format', 'gemini', '--json']);
    expect(r.code, r.err).toBe(0);
    const body = JSON.parse(r.out) as { systemInstruction?: unknown; contents: unknown[] };
    const sources = new Sources(env);
    const ctx = await sources.driver('codex').getContext('01a2049f-112d-7912-ae95-4f258b998a24');
    await sources.close();
    expect(ctx.system).toMatch(/^You are a coding agent running in the Codex CLI/);
    // as Gemini CLI sends its own (a string to @google/genai: one user-role Content)
    expect(body.systemInstruction).toEqual({ role: 'user', parts: [{ text: ctx.system }] });
    expect(body.contents).toEqual(contextToGeminiContents(ctx));
    // without a system prompt there is no systemInstruction
    expect(contextToGeminiRequest({ messages: ctx.messages })).toEqual({ contents: contextToGeminiContents(ctx) });
  });

  it('convert --to gemini through the CLI: the losses are said', async () => {
    const r = await runCli(env, ['convert', '0afea31a', '--source', 'claude', '--to', 'gemini', '--json']);
    expect(r.code, r.err).toBe(0);
    const written = JSON.parse(r.out) as { id: string; source: string; warnings: string[] };
    expect(written.source).toBe('gemini');
    expect(written.warnings.filter((w) => w.includes('metadata records'))).toEqual([
      expect.stringMatching(
        /^claude:0afea31a-[\w-]+ → gemini: \d+ metadata records \(\d+ attachment.*\) have no Gemini record; left out$/,
      ),
    ]);
    // `context --format gemini` prints what Gemini CLI sends for it
    const ctx = await runCli(env, ['context', written.id, '--format', 'gemini', '--json']);
    expect(ctx.code, ctx.err).toBe(0);
    const back = (await new GeminiDriver(env).getSession(written.id)) as Session;
    expect(JSON.parse(ctx.out)).toEqual({ contents: contextToGeminiContents(buildContext(back)) });
    const viaLib = await convertSession((await sourceSessions()).find((s) => s.id.startsWith('9f7f5cd3')) as Session, {
      to: 'gemini',
      env,
    });
    expect(viaLib.source).toBe('gemini');
  });
});
