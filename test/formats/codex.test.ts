/** The Codex driver over rollout fixtures (see test/fixtures/codex/README.md for where each shape is from). */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { renderContext } from '../../src/convert/formats.js';
import { CodexDriver, contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import '../../src/formats/all.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pairToolCalls } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { codexTempHomes } from '../helpers/codex-homes.js';
import { CODEX_0169_THREADS } from '../helpers/codex-state-db.js';
import { chainSession, messageEntry, textMessage } from '../helpers/sessions.js';

const FIXTURE_HOME = resolve('test/fixtures/codex/home');
const REAL = '01a2049f-112d-7912-ae95-4f258b998a24';
const SHAPES = '5973b6c0-94b8-487b-a530-2aeb6098ae0e';
const LEGACY = '0a1b2c3d-0000-4000-8000-00000000abcd';
const COMPACTED = '01a204ad-60d8-7b73-9e2b-cb6ea62b6afe';
const ALL = [LEGACY, REAL, SHAPES, COMPACTED].sort();

const fixtureEnv: DriverEnv = { home: '/nonexistent', env: { CODEX_HOME: FIXTURE_HOME } };
const { tempHome, made: temps } = codexTempHomes(FIXTURE_HOME, 'tb-codex-unit-');

const messagesOf = (s: Session): Message[] => s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));

describe('codex: reading rollouts', () => {
  it('lists every rollout under CODEX_HOME/sessions with id, project, title and counts', async () => {
    const list = await new CodexDriver(fixtureEnv).listSessions();
    expect(list.map((s) => s.id).sort()).toEqual(ALL);
    const real = list.find((s) => s.id === REAL);
    expect(real).toMatchObject({
      source: 'codex',
      project: '/tmp/cx/proj',
      title: 'RUN: echo hello-from-tool',
      createdAt: '2026-11-22T18:57:43.216Z',
    });
    expect(list.find((s) => s.id === SHAPES)?.title).toBe('Fix the failing test');
    expect(await new CodexDriver(fixtureEnv).listSessions({ project: '/home/u/proj' })).toHaveLength(1);
  });

  it('finds ~/.codex when CODEX_HOME is unset', async () => {
    const env = await tempHome();
    expect((await new CodexDriver(env).listSessions()).length).toBe(4);
  });

  it('reads the real codex rollout: tool call paired with its output, usage once per response', async () => {
    const s = (await new CodexDriver(fixtureEnv).getSession(REAL)) as Session;
    expect(s.warnings).toEqual([]);
    const msgs = messagesOf(s);
    const pairing = pairToolCalls(msgs);
    expect([...pairing.answered]).toEqual(['call_standin_0001']);
    expect(pairing.calls.get('call_standin_0001')).toMatchObject({
      name: 'exec_command',
      input: { cmd: 'echo hello-from-tool' },
    });
    // The file's last token_count says 15,749 input + 130 output over three responses.
    expect(s.usage).toEqual({ input: 15749, output: 130, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(msgs.filter((m) => m.role === 'assistant' && m.usage).map((m) => m.responseId)).toEqual([
      'resp_standin_0001',
      'resp_standin_0002',
      'resp_standin_0003',
    ]);
    expect(msgs[0]).toMatchObject({ role: 'system', meta: { codexRole: 'developer' } });
    expect(msgs[1]?.meta?.codexInjected).toBe('environment_context');
    expect(s.entries.filter((e) => e.kind === 'model_change').map((e) => (e.kind === 'model_change' ? e.model : ''))).toEqual([
      'standin-model',
      'standin-model',
    ]);
    expect(s.entries.every((e) => e.rawSource === 'codex' && e.raw !== undefined)).toBe(true);
  });

  it('reads older shapes: reasoning, custom tools, images, token counts, and a compaction worded as codex words it', async () => {
    const driver = new CodexDriver(fixtureEnv);
    const s = (await driver.getSession(SHAPES)) as Session;
    const file = s.path as string;
    expect(s.warnings?.map((w) => [w.file, w.line])).toEqual([
      [file, 6],
      [file, 15],
      [file, 19],
    ]);
    expect(s.warnings?.[1]?.message).toMatch(/future_record/);
    expect(s.warnings?.[2]?.message).toMatch(/torn/);
    const parts = messagesOf(s).flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === 'image')).toEqual({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' });
    expect(parts.find((p) => p.type === 'thinking')).toMatchObject({
      thinking: '**Looking at tests**\n\nThen the fix.',
      meta: { encryptedContent: 'gAAAAenc' },
    });
    // OpenAI's encrypted reasoning is not a signature another provider could check.
    expect(parts.find((p) => p.type === 'thinking' && p.signature !== undefined)).toBeUndefined();
    expect(parts.find((p) => p.type === 'tool_call' && p.name === 'apply_patch')).toMatchObject({
      meta: { codexCustomTool: true },
    });
    expect(s.usage).toEqual({ input: 1000 + 600, cacheRead: 200 + 800, cacheWrite: 0, output: 90, reasoning: 30 });
    const change = s.entries.find((e) => e.kind === 'model_change');
    expect(change).toMatchObject({ model: 'gpt-5-codex', thinkingLevel: 'high' });
    expect(s.meta?.git).toEqual({ commit_hash: 'abc123', branch: 'main' });

    const ctx = await driver.getContext(SHAPES);
    const texts = ctx.messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join('|'));
    // Local compaction: the user's own messages (their text: codex leaves images out), then the summary
    // as the record has it (this older one without codex's prefix; codex sends compacted.message as is).
    expect(texts).toEqual([
      'Fix the failing test',
      'The user asked to fix a test; a.ts was patched.',
      'Now run it again',
      'All green.',
    ]);
    expect(ctx.model).toBe('gpt-5-codex');
  });

  it('reads a sub-agent rollout: its parent thread and extra workspace roots', async () => {
    const env = await tempHome();
    const id = '22222222-3333-4444-8555-666666666666';
    const file = join(env.home, '.codex/sessions/2026/01/01', `rollout-2026-01-01T00-00-00-${id}.jsonl`);
    const meta = {
      id,
      timestamp: '2026-01-01T00:00:00Z',
      cwd: '/w/app',
      runtime_workspace_roots: ['/w/app', '/w/lib'],
      originator: 'codex_exec',
      cli_version: '0.169.0',
      source: { subagent: { thread_spawn: { parent_thread_id: REAL, depth: 1 } } },
    };
    await fs.mkdir(join(file, '..'), { recursive: true });
    await fs.writeFile(file, `${JSON.stringify({ timestamp: meta.timestamp, type: 'session_meta', payload: meta })}\n`);
    const s = (await new CodexDriver(env).getSession(id)) as Session;
    expect(s).toMatchObject({ parentId: REAL, project: '/w/app', directories: ['/w/lib'] });
    expect(await new CodexDriver(env).listSessions({ parentId: REAL })).toHaveLength(1);
  });

  it('takes thread names from session_index.jsonl and from state_<n>.sqlite (read-only)', async () => {
    const env = await tempHome();
    const home = join(env.home, '.codex');
    await fs.writeFile(
      join(home, 'session_index.jsonl'),
      `${JSON.stringify({ id: SHAPES, thread_name: 'Fix tests', updated_at: 't' })}\n`,
    );
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(home, 'state_5.sqlite'));
    db.exec('CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, title TEXT NOT NULL, name TEXT)');
    db.prepare('INSERT INTO threads VALUES (?, ?, ?, ?)').run(REAL, 'x', 'RUN: echo hello-from-tool', 'Tool demo');
    db.prepare('INSERT INTO threads VALUES (?, ?, ?, ?)').run(LEGACY, 'x', 'hello legacy', null);
    db.close();
    const before = await fs.readFile(join(home, 'state_5.sqlite'));
    const titles = new Map((await new CodexDriver(env).listSessions()).map((s) => [s.id, s.title]));
    expect(titles.get(REAL)).toBe('Tool demo');
    expect(titles.get(SHAPES)).toBe('Fix tests');
    expect(titles.get(LEGACY)).toBe('hello legacy');
    expect((await fs.readFile(join(home, 'state_5.sqlite'))).equals(before)).toBe(true);
  });

  it('lists archived rollouts too, marked archived', async () => {
    const env = await tempHome();
    const from = join(env.home, '.codex/sessions/2025/05/07', `rollout-2025-05-07T17-24-21-${LEGACY}.jsonl`);
    await fs.mkdir(join(env.home, '.codex/archived_sessions'), { recursive: true });
    await fs.rename(from, join(env.home, '.codex/archived_sessions', `rollout-2025-05-07T17-24-21-${LEGACY}.jsonl`));
    const driver = new CodexDriver(env);
    const list = await driver.listSessions();
    expect(list.map((s) => s.id).sort()).toEqual(ALL);
    expect(list.find((s) => s.id === LEGACY)?.meta?.archived).toBe(true);
    expect((await driver.getSession(LEGACY))?.messageCount).toBe(2);
  });

  it('reports bad bytes and odd records by file and line, and reads the rest', async () => {
    const env = await tempHome();
    const id = '33333333-4444-4555-8666-777777777777';
    const file = join(env.home, '.codex/sessions/2026/02/02', `rollout-2026-02-02T00-00-00-${id}.jsonl`);
    await fs.mkdir(join(file, '..'), { recursive: true });
    const line = (v: unknown) => Buffer.from(`${JSON.stringify(v)}\n`);
    const t = '2026-02-02T00:00:00Z';
    await fs.writeFile(
      file,
      Buffer.concat([
        line({ timestamp: t, type: 'session_meta', payload: { id, timestamp: t, cwd: '/x' } }),
        Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
        line([1, 2, 3]),
        line({
          timestamp: t,
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'still here' }] },
        }),
        line({
          timestamp: t,
          type: 'response_item',
          payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
        }),
        line({
          timestamp: t,
          type: 'event_msg',
          payload: {
            type: 'token_count',
            input_tokens: 90,
            cached_input_tokens: 40,
            output_tokens: 7,
            reasoning_output_tokens: 0,
            total_tokens: 97,
          },
        }),
        line({ timestamp: t, type: 'response_item', payload: { no: 'type' } }),
      ]),
    );
    const s = (await new CodexDriver(env).getSession(id)) as Session;
    expect(s.warnings?.map((w) => [w.file, w.line])).toEqual([
      [file, 2],
      [file, 3],
    ]);
    expect(s.warnings?.[0]?.message).toMatch(/UTF-8/);
    expect(s.title).toBe('still here');
    // The pre-`info` token_count shape still counts.
    expect(s.usage).toEqual({ input: 50, cacheRead: 40, output: 7, cacheWrite: 0, reasoning: 0 });
    expect(s.entries.at(-1)).toMatchObject({ kind: 'metadata', type: 'response_item:unknown' });
  });

  it('links a real sub-agent rollout to its parent and to the spawn_agent call that started it', async () => {
    const env: DriverEnv = { home: '/nonexistent', env: { CODEX_HOME: resolve('test/fixtures/codex/subagent-home') } };
    const driver = new CodexDriver(env);
    const list = await driver.listSessions();
    const child = list.find((s) => s.parentId);
    const parent = list.find((s) => !s.parentId);
    expect(child).toMatchObject({
      parentId: parent?.id,
      parentToolCallId: 'call_standin_0001',
      title: 'count the files',
      meta: { agent_nickname: 'Plato' },
    });
    expect((await driver.getSession(child?.id ?? ''))?.parentToolCallId).toBe('call_standin_0001');
    const p = (await driver.getSession(parent?.id ?? '')) as Session;
    const call = messagesOf(p)
      .flatMap((m) => m.parts)
      .find((x) => x.type === 'tool_call');
    expect(call).toMatchObject({ id: 'call_standin_0001', name: 'spawn_agent', meta: { namespace: 'multi_agent_v1' } });
    // codex's notice that the sub-agent finished is its own message, not the user's.
    expect(messagesOf(p).at(-1)?.meta?.codexInjected).toBe('subagent_notification');
    // The call keeps its namespace when rendered back for the Responses API.
    const items = contextToResponses(await driver.getContext(p.id)).input;
    expect(items.find((i) => i.type === 'function_call')).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
    expect(await driver.listSessions({ parentId: parent?.id })).toHaveLength(1);
  });

  it('reads the first (2025-05) rollout layout', async () => {
    const s = (await new CodexDriver(fixtureEnv).getSession(LEGACY)) as Session;
    expect(s.warnings).toEqual([]);
    expect(s.createdAt).toBe('2025-05-07T17:24:21.123Z');
    expect(messagesOf(s).map((m) => [m.role, m.parts[0]?.type === 'text' ? m.parts[0].text : ''])).toEqual([
      ['user', 'hello legacy'],
      ['assistant', 'hi'],
    ]);
    expect((await new CodexDriver(fixtureEnv).getContext(LEGACY)).system).toBe('Be terse.');
  });

  it('renders the context as Responses API input (the openai-responses context format)', async () => {
    const driver = new CodexDriver(fixtureEnv);
    const ctx = await driver.getContext(REAL);
    const rendered = renderContext(ctx, 'openai-responses') as ReturnType<typeof contextToResponses>;
    const raw = (await fs.readFile((await driver.getSession(REAL))?.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
      .filter((l) => l.type === 'response_item')
      .map(({ payload: { id: _i, status: _s, internal_chat_message_metadata_passthrough: _m, ...rest } }) => rest);
    const ours = rendered.input.map(({ id: _i, status: _s, ...rest }) => rest);
    expect(ours).toEqual(raw);
  });
});

/** Request items compared without the ids and statuses codex and the API assign. */
function normalize(items: readonly unknown[]): unknown[] {
  return items.map((it) => {
    const { id: _id, status: _status, ...rest } = it as Record<string, unknown>;
    return rest;
  });
}

async function recordedRequest(name: string): Promise<unknown[]> {
  return JSON.parse(await fs.readFile(resolve('test/fixtures/codex', name), 'utf8')) as unknown[];
}

describe('codex: context against what the real codex sent', () => {
  it('the resumed rollout: our context is the input codex 0.169.0 sent on resume (plus the answer it got)', async () => {
    const input = await recordedRequest('request-resume-01a2049f.json');
    const ours = contextToResponses(await new CodexDriver(fixtureEnv).getContext(REAL));
    expect(normalize(ours.input.slice(0, -1))).toEqual(normalize(input.slice(1)));
    expect(ours.input.at(-1)).toMatchObject({ role: 'assistant', content: [{ text: 'ok: second question' }] });
  });

  it('after an auto-compaction: the replacement history codex recorded, then what followed', async () => {
    const driver = new CodexDriver(fixtureEnv);
    const s = (await driver.getSession(COMPACTED)) as Session;
    expect(s.entries.filter((e) => e.kind === 'compaction').map((e) => (e.kind === 'compaction' ? e.summary : ''))).toEqual([
      'Stand-in summary of the conversation so far.',
    ]);
    const input = await recordedRequest('request-after-compaction-01a204ad.json');
    const ours = contextToResponses(await driver.getContext(COMPACTED));
    expect(normalize(ours.input.slice(0, -1))).toEqual(normalize(input.slice(1)));
    // The answer before the compaction is gone from the context, its summary took its place.
    const texts = ours.input.map((i) => JSON.stringify(i));
    expect(texts.some((t) => t.includes('ok: first question'))).toBe(false);
    expect(texts.some((t) => t.includes(`${SUMMARY_PREFIX}\\nStand-in summary`))).toBe(true);
  });
});

describe('codex: writing', () => {
  it('a codex session written again keeps its own records', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(REAL)) as Session;
    const written = await driver.writeSession(s);
    expect(written.id).not.toBe(REAL);
    const lines = (await fs.readFile(written.path as string, 'utf8')).trim().split('\n');
    const orig = (await fs.readFile(s.path as string, 'utf8')).trim().split('\n');
    expect(lines.length).toBe(orig.length);
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(orig.slice(1).map((l) => JSON.parse(l)));
    expect(JSON.parse(lines[0] as string).payload.id).toBe(written.id);
    const back = (await driver.getSession(written.id)) as Session;
    expect(back.usage).toEqual(s.usage);
    expect(messagesOf(back)).toEqual(messagesOf(s));
  });

  it('keeps the id when asked and it is free, never overwriting', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(REAL)) as Session;
    const again = await driver.writeSession(s, { keepId: true });
    expect(again.id).not.toBe(REAL);
    const fresh = { ...s, id: '11111111-2222-4333-8444-555555555555' };
    expect((await driver.writeSession(fresh, { keepId: true })).id).toBe(fresh.id);
  });

  it('appends whole lines and forks with forked_from_id', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const t = '2026-11-23T00:00:00.000Z';
    await driver.appendEntries(REAL, [messageEntry('x1', null, t, textMessage('user', 'appended question'))]);
    // codex 0.169 numbers its records and will not resume a rollout whose last record has no ordinal.
    const raw = (await fs.readFile(((await driver.getSession(REAL)) as Session).path as string, 'utf8')).trim().split('\n');
    expect(raw.map((l) => (JSON.parse(l) as { ordinal?: number }).ordinal)).toEqual(raw.map((_, i) => i));
    const s = (await driver.getSession(REAL)) as Session;
    const last = messagesOf(s).at(-1);
    expect(last?.parts).toEqual([{ type: 'text', text: 'appended question' }]);

    const userEntry = s.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'second question'),
    );
    const fork = await driver.forkSession(REAL, { at: userEntry?.id });
    const forked = (await driver.getSession(fork.id)) as Session;
    expect(forked.parentId).toBe(REAL);
    // The fork carries its history itself: with ancestors, nothing is repeated.
    expect(await driver.getMessages(fork.id, { includeAncestors: true })).toEqual(await driver.getMessages(fork.id));
    expect(messagesOf(forked).at(-1)?.parts).toEqual([{ type: 'text', text: 'second question' }]);
    expect(driver.resumeCommand({ ...fork })).toContain(`codex resume ${fork.id}`);
  });

  it('appends the records of one response as one codex response: its usage once, at its last record', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const before = (await driver.getSession(REAL)) as Session;
    const tail = messagesOf(before).length;
    const leaf = before.entries.at(-1)?.id ?? null;
    const file = before.path as string;
    const linesBefore = (await fs.readFile(file, 'utf8')).trim().split('\n').length;
    const usage = { input: 500, output: 70, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const reply = (id: string, parentId: string, timestamp: string, text: string): Entry =>
      messageEntry(id, parentId, timestamp, textMessage('assistant', text, { responseId: 'resp_split', model: 'gpt-5', usage }));
    await driver.appendEntries(REAL, [
      messageEntry('q', leaf, '2026-11-23T00:00:00.000Z', textMessage('user', 'split?')),
      reply('r1', 'q', '2026-11-23T00:00:01.000Z', 'first part'),
      reply('r2', 'r1', '2026-11-23T00:00:09.000Z', 'second part'),
    ]);
    const added = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .slice(linesBefore)
      .map((l) => JSON.parse(l) as { timestamp: string; payload?: { type?: string } });
    expect(added.filter((r) => r.payload?.type === 'token_count')).toHaveLength(1);
    const after = (await driver.getSession(REAL)) as Session;
    const answer = messagesOf(after).at(-1);
    expect(messagesOf(after).length).toBe(tail + 2);
    expect(answer?.parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual(['first part', 'second part']);
    expect(answer?.usage).toEqual(usage);
    const entry = after.entries.find((e) => e.kind === 'message' && e.message === answer);
    expect(entry?.timestamp).toBe('2026-11-23T00:00:09.000Z');
  });

  it("a foreign session's thinking is kept as an event, not sent to the model", async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const written = await driver.writeSession(
      chainSession('claude-1', 'claude', '/work/p', [
        ['u', { role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        [
          'a',
          {
            role: 'assistant',
            provider: 'anthropic',
            parts: [
              { type: 'thinking', thinking: 'hmm', signature: 's' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'text', text: 'hello' },
            ],
          },
        ],
      ]),
    );
    const text = await fs.readFile(written.path as string, 'utf8');
    expect(text).toContain('"agent_reasoning"');
    expect(text).not.toContain('"reasoning"');
    // read back with its signature, so that Claude Code, pi or OpenCode can replay it after the way back
    const back = (await driver.getSession(written.id)) as Session;
    const parts = messagesOf(back).flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === 'thinking')).toMatchObject({ type: 'thinking', thinking: 'hmm', signature: 's' });
    expect(parts.find((p) => p.type === 'redacted_thinking')).toMatchObject({ type: 'redacted_thinking', data: 'opaque' });
    const ctx = await driver.getContext(written.id);
    expect(contextToResponses(ctx).input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello', annotations: [] }] },
    ]);
  });
});

describe('codex: the model provider of a rollout threadbase writes', () => {
  const foreign = chainSession('claude-2', 'claude', '/work/p', [
    ['u', { role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    [
      'a',
      {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        parts: [{ type: 'text', text: 'hello' }],
      },
    ],
  ]);
  const metaOf = async (file: string) =>
    (JSON.parse((await fs.readFile(file, 'utf8')).split('\n')[0] as string) as { payload: Record<string, unknown> }).payload;

  it("names the provider codex is configured with (config.toml's model_provider, else openai), as codex records one for every thread", async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const plain = await driver.writeSession(foreign);
    expect((await metaOf(plain.path as string)).model_provider).toBe('openai');
    // the messages keep the provider that answered them, not codex's
    const back = (await driver.getSession(plain.id)) as Session;
    expect(messagesOf(back).find((m) => m.role === 'assistant')).toMatchObject({
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
    });
    await fs.writeFile(
      join(env.home, '.codex', 'config.toml'),
      'model = "m"\nmodel_provider = "standin" # the stand-in\n\n[model_providers.standin]\nname = "x"\nmodel_provider = "not this"\n',
    );
    const configured = await driver.writeSession(foreign);
    expect((await metaOf(configured.path as string)).model_provider).toBe('standin');
    // a codex rollout keeps the provider it names; one that names none (older codex) gets the configured one
    expect((await metaOf((await driver.forkSession(REAL)).path as string)).model_provider).toBe('standin');
    await fs.writeFile(join(env.home, '.codex', 'config.toml'), "model_provider = 'other'\n");
    expect((await metaOf((await driver.forkSession(REAL)).path as string)).model_provider).toBe('standin');
    expect((await metaOf((await driver.forkSession(SHAPES)).path as string)).model_provider).toBe('other');
  });
});

function cli(args: string[], env: DriverEnv): Promise<CliResult> {
  return runCli(env, args);
}

describe('codex: through the registry and CLI', () => {
  it('converts a codex session into pi and back into codex, keeping calls, results and usage', async () => {
    const env = await tempHome();
    const toPi = await cli(['convert', REAL, '--to', 'pi', '--json'], env);
    expect(toPi.code).toBe(0);
    const piRow = JSON.parse(toPi.out) as { id: string; source: string };
    expect(piRow.source).toBe('pi');
    const back = await cli(['convert', piRow.id, '--source', 'pi', '--to', 'codex', '--json'], env);
    expect(back.code).toBe(0);
    const codexRow = JSON.parse(back.out) as { id: string; source: string; path: string };
    expect(codexRow.source).toBe('codex');
    const driver = new CodexDriver(env);
    const original = contextToResponses(await driver.getContext(REAL)).input;
    const roundTrip = contextToResponses(await driver.getContext(codexRow.id)).input;
    const shape = (items: readonly Record<string, unknown>[]) =>
      items.map((i) => [
        i.type,
        i.role ?? '',
        i.call_id ?? '',
        i.name ?? '',
        i.arguments ?? '',
        typeof i.output === 'string' ? i.output : '',
      ]);
    // pi has no system role: codex's developer instructions ride in an entry pi does not send, and come back.
    expect(shape(roundTrip)).toEqual(shape(original));
    const s = (await driver.getSession(codexRow.id)) as Session;
    expect(s.usage?.output).toBe(((await driver.getSession(REAL)) as Session).usage?.output);
    // handoff prints the command that resumes the written session in codex.
    const handoff = await cli(['handoff', piRow.id, '--source', 'pi', '--to', 'codex', '--json'], env);
    const row = JSON.parse(handoff.out) as { id: string; command: string };
    expect(row.command).toBe(`cd /tmp/cx/proj && codex resume ${row.id}`);
  });

  it('prints the context by id prefix as Responses input and as Anthropic messages', async () => {
    const responses = await cli(['context', REAL.slice(0, 8), '--format', 'openai-responses'], fixtureEnv);
    expect(responses.code).toBe(0);
    const expected = contextToResponses(await new CodexDriver(fixtureEnv).getContext(REAL));
    expect(JSON.parse(responses.out)).toEqual(expected);
    const anthropic = await cli(['context', REAL, '--format', 'anthropic'], fixtureEnv);
    expect(anthropic.code).toBe(0);
    const body = JSON.parse(anthropic.out) as { system?: unknown; messages: { role: string; content: { type: string }[] }[] };
    const blocks = body.messages.flatMap((m) => m.content.map((b) => b.type));
    expect(blocks).toContain('tool_use');
    expect(blocks).toContain('tool_result');
  });

  it('is registered and lists through `threadbase sessions --source codex --json`', async () => {
    expect(new Sources(fixtureEnv).names()).toContain('codex');
    const listed = await cli(['sessions', '--source', 'codex', '--json'], fixtureEnv);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.out) as { id: string; source: string }[];
    expect(rows.map((r) => r.id).sort()).toEqual(ALL);
  });
});

describe('codex: a remote (encrypted) compaction', () => {
  /** A rollout as codex records an OpenAI-side compaction: an opaque `compaction` item, then `compacted` with it in the history. */
  async function remoteCompactionHome(): Promise<{ env: DriverEnv; id: string; file: string; lines: object[] }> {
    const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-remote-'));
    temps.push(dir);
    const id = '01a20600-0000-7000-8000-00000000c0de';
    const ts = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}.000Z`;
    const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    const encrypted = { type: 'compaction', encrypted_content: 'gAAAAABopaqueOpenAIState==' };
    const lines = [
      {
        timestamp: ts(0),
        type: 'session_meta',
        payload: {
          id,
          timestamp: ts(0),
          cwd: '/w/remote',
          originator: 'codex_exec',
          cli_version: '0.169.0',
          model_provider: 'openai',
        },
      },
      { timestamp: ts(1), type: 'response_item', payload: user('first question') },
      {
        timestamp: ts(2),
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'first answer' }] },
      },
      { timestamp: ts(3), type: 'response_item', payload: encrypted },
      { timestamp: ts(4), type: 'compacted', payload: { message: '', replacement_history: [user('first question'), encrypted] } },
      { timestamp: ts(5), type: 'response_item', payload: user('after the compaction') },
    ];
    const file = join(dir, 'sessions', '2026', '11', '20', `rollout-2026-11-20T10-00-00-${id}.jsonl`);
    await fs.mkdir(join(file, '..'), { recursive: true });
    await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return { env: { home: dir, env: { CODEX_HOME: dir } }, id, file, lines };
  }

  it('is kept raw: read without loss, its opaque item out of the portable context, written back line for line', async () => {
    const { env, id, lines } = await remoteCompactionHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(id)) as Session;
    expect(s.warnings).toEqual([]);
    // the opaque item is a metadata entry holding its record; the compaction entry holds the replacement history
    const opaque = s.entries.find((e) => e.kind === 'metadata' && e.type === 'response_item:compaction');
    expect(opaque?.raw).toEqual(lines[3]);
    const compaction = s.entries.find((e) => e.kind === 'compaction');
    expect(compaction?.raw).toEqual(lines[4]);
    // the context: the replacement history codex recorded, minus what only OpenAI can read, then what followed
    const ctx = await driver.getContext(id);
    expect(ctx.messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(''))).toEqual([
      'first question',
      'after the compaction',
    ]);
    expect(JSON.stringify(ctx)).not.toContain('gAAAAAB');
    // a fork (a new rollout) carries the encrypted records unchanged, so codex can still send them to OpenAI
    const fork = await driver.forkSession(id);
    const forked = (await fs.readFile(fork.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(forked.slice(1)).toEqual(lines.slice(1));
  });
});

describe('codex: thread names', () => {
  it('setTitle and a titled fork append to session_index.jsonl, as codex names threads; the newest name wins', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    await driver.setTitle(REAL, 'first name');
    await driver.setTitle(REAL, 'second name');
    expect((await driver.listSessions()).find((s) => s.id === REAL)?.title).toBe('second name');
    expect((await driver.getSession(REAL))?.title).toBe('second name');
    const fork = await driver.forkSession(REAL, { title: 'the fork' });
    expect(fork.title).toBe('the fork');
    expect((await driver.listSessions()).find((s) => s.id === fork.id)?.title).toBe('the fork');
    const index = (await fs.readFile(join(env.home, '.codex', 'session_index.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; thread_name: string; updated_at: string });
    expect(index.map((r) => [r.id, r.thread_name])).toEqual([
      [REAL, 'first name'],
      [REAL, 'second name'],
      [fork.id, 'the fork'],
    ]);
    expect(index.every((r) => !Number.isNaN(Date.parse(r.updated_at)))).toBe(true);
    await expect(driver.setTitle('no-such-thread', 'x')).rejects.toThrow(/no-such-thread/);
    // codex's state database is never created
    expect((await fs.readdir(join(env.home, '.codex'))).filter((f) => f.startsWith('state_'))).toEqual([]);
  });

  it("setTitle renames the thread's row in codex's state database, as codex 0.169's rename does; no other row changes", async () => {
    const env = await tempHome();
    const file = join(env.home, '.codex', 'state_5.sqlite');
    const db = openDatabase(file);
    db.exec(CODEX_0169_THREADS);
    const insert = db.prepare(
      "INSERT INTO threads (id, rollout_path, created_at, updated_at, updated_at_ms, source, model_provider, cwd, title, sandbox_policy, approval_mode, history_mode) VALUES (?, '/r', 1, 2, 2000, 'cli', 'openai', '/p', 't', '{}', 'never', 'paginated')",
    );
    insert.run(REAL);
    insert.run(SHAPES);
    const rows = () => db.prepare('SELECT * FROM threads ORDER BY id').all() as Record<string, unknown>[];
    const before = rows();
    const t0 = Date.now();
    await new CodexDriver(env).setTitle(REAL, 'renamed in the database');
    const after = rows();
    const renamed = after.find((r) => r.id === REAL) as Record<string, number | string>;
    expect(renamed.name).toBe('renamed in the database');
    expect(renamed.updated_at_ms).toBeGreaterThanOrEqual(t0);
    expect(renamed.updated_at).toBe(Math.floor(Number(renamed.updated_at_ms) / 1000));
    const { name: _n, updated_at: _u, updated_at_ms: _m, ...rest } = renamed;
    const { name: _n0, updated_at: _u0, updated_at_ms: _m0, ...restBefore } = before.find((r) => r.id === REAL) ?? {};
    expect(rest).toEqual(restBefore);
    expect(after.find((r) => r.id === SHAPES)).toEqual(before.find((r) => r.id === SHAPES));
    db.close();
    // threadbase reads the name back from there too, and from the session_index line
    expect((await new CodexDriver(env).getSession(REAL))?.title).toBe('renamed in the database');
    // a thread the database has no row for: the line only, no warning
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await new CodexDriver(env).setTitle(LEGACY, 'only in the index');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect((await new CodexDriver(env).getSession(LEGACY))?.title).toBe('only in the index');
  });

  it('setTitle leaves a state database of an unknown schema as it was, with a warning', async () => {
    const env = await tempHome();
    const file = join(env.home, '.codex', 'state_5.sqlite');
    const db = openDatabase(file);
    db.exec('CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, title TEXT NOT NULL, name TEXT)');
    db.prepare("INSERT INTO threads VALUES (?, '/r', 't', NULL)").run(REAL);
    db.close();
    const before = await fs.readFile(file);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await new CodexDriver(env).setTitle(REAL, 'a new name');
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/unexpected threads schema \(updated_at, updated_at_ms\)/);
    } finally {
      warn.mockRestore();
    }
    expect((await fs.readFile(file)).equals(before)).toBe(true);
    expect((await new CodexDriver(env).getSession(REAL))?.title).toBe('a new name');
    // a caller that gives DriverEnv.warn gets the warning there, and nothing on the console
    const got: string[] = [];
    const quiet = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await new CodexDriver({ ...env, warn: (m) => got.push(m) }).setTitle(REAL, 'another name');
      expect(quiet).not.toHaveBeenCalled();
    } finally {
      quiet.mockRestore();
    }
    expect(got).toEqual([
      `codex session ${REAL} renamed in session_index.jsonl only: unexpected threads schema (updated_at, updated_at_ms)`,
    ]);
  });
});
