/**
 * The real Codex CLI (@openai/codex, its native binary) against the loopback OpenAI Responses
 * stand-in, configured as a custom model provider in a temp CODEX_HOME/config.toml:
 * - threadbase reads a rollout codex recorded (a real shell tool call, reasoning, a resume);
 * - the context threadbase builds equals the `input` codex sends on a further resume;
 * - codex resumes a rollout threadbase wrote (converted from another agent's shape) with exactly
 *   threadbase's context.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { MessageEntry, Session } from '../../src/model/types.js';
import { runCodex } from '../helpers/agents.js';
import { runCli } from '../helpers/cli.js';
import { ALL_SOURCES, type ListedThread, codexThreadList as listThreads } from '../helpers/codex-app-server.js';
import {
  codexHistory,
  itemText,
  type ResponsesRequest,
  type ResponsesStandIn,
  startResponsesStandIn,
} from '../helpers/openai-responses-standin.js';
import { messageEntry, oneExchange, PRICE_TERMS, textMessage } from '../helpers/sessions.js';

let standIn: ResponsesStandIn;
let root: string;
let codexHomeDir: string;
let project: string;
let env: DriverEnv;

/** `codex exec …` in the temp project with CODEX_HOME `home` (test/helpers/agents.ts). */
function codex(args: string[], home = codexHomeDir): Promise<string> {
  return runCodex({ cwd: project, home: root, codexHome: home }, args);
}

/** `thread/list` of codex's own app-server over CODEX_HOME `home` (test/helpers/codex-app-server.ts). */
function codexThreadList(home: string, params: Record<string, unknown>): Promise<ListedThread[]> {
  return listThreads({ cwd: project, home: root, codexHome: home }, params);
}

/** Items compared without the ids and statuses the API assigns (codex sends its own, we write none). */
function normalize(items: readonly unknown[]): unknown[] {
  return items.map((it) => {
    const { id: _id, status: _status, ...rest } = it as Record<string, unknown>;
    return rest;
  });
}

function isLineSubsequence(part: string, whole: string): boolean {
  const lines = whole.split('\n');
  let i = 0;
  for (const l of part.split('\n')) {
    while (i < lines.length && lines[i] !== l) i++;
    if (i === lines.length) return false;
    i++;
  }
  return true;
}

function lastRequest(): ResponsesRequest {
  const reqs = standIn.responseRequests();
  const last = reqs[reqs.length - 1];
  if (!last) throw new Error('codex sent no request');
  return last;
}

/**
 * A CODEX_HOME whose config.toml points codex at the stand-in as a custom Responses provider,
 * `standin` (or `other`, the same stand-in under a second provider id).
 */
async function writeConfig(home: string, extra: string[] = [], provider: 'standin' | 'other' = 'standin'): Promise<void> {
  await fs.mkdir(home, { recursive: true });
  const table = (id: string) => [
    '',
    `[model_providers.${id}]`,
    'name = "Loopback stand-in"',
    `base_url = "${standIn.baseUrl}"`,
    'wire_api = "responses"',
  ];
  await fs.writeFile(
    join(home, 'config.toml'),
    [
      'model = "standin-model"',
      `model_provider = "${provider}"`,
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'model_reasoning_summary = "auto"',
      ...extra,
      ...table('standin'),
      ...table('other'),
      '',
    ].join('\n'),
  );
}

beforeAll(async () => {
  standIn = await startResponsesStandIn({
    rules: [
      (req) => {
        const last = req.input[req.input.length - 1];
        return itemText(last).includes('THINK:')
          ? { reasoning: 'Weighing the question first.', text: 'Thought it through.' }
          : undefined;
      },
      (req) => {
        // codex offers sub-agents as the multi_agent_v1 namespace; AGENT: asks for one.
        const last = req.input[req.input.length - 1];
        const m = /AGENT: (.+)/.exec(itemText(last));
        return m && last?.type === 'message'
          ? {
              functionCall: { namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: { message: (m[1] as string).trim() } },
            }
          : undefined;
      },
    ],
  });
  root = await fs.mkdtemp(join(tmpdir(), 'tb-codex-'));
  codexHomeDir = join(root, 'codex-home');
  project = join(root, 'project');
  await fs.mkdir(codexHomeDir, { recursive: true });
  await fs.mkdir(project, { recursive: true });
  await writeConfig(codexHomeDir);
  env = { home: root, env: { CODEX_HOME: codexHomeDir } };
});

afterAll(async () => {
  await standIn?.close();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

let firstSessionId = '';
const sessionIdForFork = () => firstSessionId;

describe('real codex and threadbase', () => {
  let sessionId = '';

  it('reads the rollout codex recorded: a real tool call, reasoning, a resume, usage', async () => {
    await codex(['RUN: echo hello-from-codex-tool']);
    const driver = new CodexDriver(env);
    const [listed] = await driver.listSessions();
    expect(listed).toBeDefined();
    sessionId = listed?.id ?? '';
    firstSessionId = sessionId;
    await codex(['resume', sessionId, 'THINK: what did the tool print?']);

    const sessions = await driver.listSessions();
    expect(sessions).toHaveLength(1);
    const s = (await driver.getSession(sessionId)) as Session;
    expect(s.project).toBe(project);
    expect(s.title).toBe('RUN: echo hello-from-codex-tool');
    expect(s.warnings).toEqual([]);
    const messages = s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const call = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ type: 'tool_call', input: { cmd: 'echo hello-from-codex-tool' } });
    const result = messages.find((m) => m.role === 'tool')?.parts[0];
    expect(result?.type === 'tool_result' && result.callId === (call?.type === 'tool_call' ? call.id : '')).toBe(true);
    expect(JSON.stringify(result)).toContain('hello-from-codex-tool');
    const thinking = messages.flatMap((m) => m.parts).find((p) => p.type === 'thinking');
    expect(thinking).toMatchObject({ thinking: 'Weighing the question first.' });
    expect(
      messages.some(
        (m) => m.role === 'user' && m.parts.some((p) => p.type === 'text' && p.text === 'THINK: what did the tool print?'),
      ),
    ).toBe(true);
    // Three responses (call, answer after the tool, the thinking answer), each counted once.
    expect(s.models).toEqual(['standin-model']);
    const assistantUsage = messages.filter((m) => m.role === 'assistant' && m.usage);
    expect(assistantUsage).toHaveLength(3);
    expect(s.usage?.input).toBe(assistantUsage.reduce((n, m) => n + (m.usage?.input ?? 0), 0));
    expect(s.usage?.input).toBeGreaterThan(0);

    // The CLI lists it like any other agent's session.
    const cliList = await runCli(env, ['sessions', '--source', 'codex', '--json']);
    expect(cliList.code).toBe(0);
    const rows = JSON.parse(cliList.out) as { id: string; source: string; messageCount: number }[];
    expect(rows.map((r) => [r.id, r.source])).toEqual([[sessionId, 'codex']]);
    expect(rows[0]?.messageCount).toBe(s.messageCount);
  });

  it("threadbase's context equals the input codex sends on a further resume", async () => {
    const driver = new CodexDriver(env);
    const ctx = await driver.getContext(sessionId);
    const ours = contextToResponses(ctx);
    const before = standIn.responseRequests().length;
    await codex(['resume', sessionId, 'and once more']);
    expect(standIn.responseRequests().length).toBe(before + 1);
    const input = lastRequest().input;
    // codex sends its base instructions first, then the recorded history, then the new prompt.
    const [instructions, ...rest] = input;
    // The recorded base instructions, less the sections codex drops for tools it does not offer
    // this turn (update_plan): every line codex sent is one of ours, in order.
    expect(isLineSubsequence(itemText(instructions), ours.instructions ?? '')).toBe(true);
    expect(itemText(instructions).length).toBeGreaterThan((ours.instructions ?? '').length / 2);
    const history = rest.slice(0, -1);
    expect(normalize(history)).toEqual(normalize(ours.input));
    expect(itemText(rest[rest.length - 1])).toBe('and once more');
    expect(ours.input.some((i) => i.type === 'reasoning')).toBe(true);
    expect(ours.input.some((i) => i.type === 'function_call_output')).toBe(true);
  });

  it('codex resumes a rollout threadbase wrote, with exactly our context', async () => {
    const t = '2026-01-02T03:04:05.000Z';
    // A session as another agent (Claude Code) would give it: Anthropic thinking, a Bash call, its result.
    const foreign: Session = {
      id: 'c0ffee00-1111-2222-3333-444455556666',
      source: 'claude',
      project,
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries: [
        messageEntry('u1', null, t, textMessage('user', 'List the files please')),
        messageEntry('a1', 'u1', t, {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          provider: 'anthropic',
          responseId: 'msg_1',
          // what codex has no field for (1-hour cache writes, fast mode, place, web searches) rides in one it ignores
          usage: PRICE_TERMS,
          parts: [
            { type: 'thinking', thinking: 'I should run ls.', signature: 'anthropic-sig' },
            { type: 'text', text: 'Running ls.' },
            { type: 'tool_call', id: 'toolu_01', name: 'Bash', input: { command: 'ls' } },
          ],
        }),
        messageEntry('t1', 'a1', t, {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'toolu_01', content: 'a.txt\nb.txt' }],
        }),
        messageEntry('a2', 't1', t, textMessage('assistant', 'Two files: a.txt and b.txt.')),
      ],
    };
    const driver = new CodexDriver(env);
    const started = new Date();
    const written = await driver.writeSession(foreign);
    expect(written.source).toBe('codex');
    // a session converted from another agent starts when it was written (as codex's own forks do), in
    // that day's folder, so that codex lists it among the newest; its records keep their times
    const day = (d: Date) => d.toISOString().slice(0, 10);
    expect([day(started), day(new Date())]).toContain(written.createdAt.slice(0, 10));
    expect(written.createdAt >= started.toISOString()).toBe(true);
    const [y, m, dd] = written.createdAt.slice(0, 10).split('-');
    expect(written.path).toMatch(new RegExp(`sessions/${y}/${m}/${dd}/rollout-${y}-${m}-${dd}T[0-9-]{8}-[0-9a-f-]{36}\\.jsonl$`));

    const back = (await driver.getSession(written.id)) as Session;
    // the session's totals: the advisor request's tokens counted with the response's own
    const { speed: _s, inferenceGeo: _g, advisors, ...counts } = PRICE_TERMS;
    const advisor = advisors[0] as (typeof advisors)[number];
    expect(back.usage).toEqual({ ...counts, input: counts.input + advisor.input, output: counts.output + advisor.output });
    const ours = contextToResponses(await driver.getContext(written.id));
    expect(ours.input.map((i) => i.type)).toEqual(['message', 'message', 'function_call', 'function_call_output', 'message']);

    await codex(['resume', written.id, 'what were the files?']);
    const input = lastRequest().input;
    const afterInstructions = input.slice(1);
    expect(normalize(afterInstructions.slice(0, ours.input.length))).toEqual(normalize(ours.input));
    expect(itemText(input[input.length - 1])).toBe('what were the files?');
    expect(standIn.responseRequests().length).toBeGreaterThan(0);
    // codex appended its turn to our file; threadbase still reads it whole.
    const after = (await driver.getSession(written.id)) as Session;
    expect(after.warnings).toEqual([]);
    const texts = after.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .map((p) => (p.type === 'text' ? p.text : ''));
    expect(texts).toContain('ok: what were the files?');
    // and left ours as it was: every token count and price term reads back
    // (on the last record of our first response, before codex's own)
    const a1 = after.entries.find((e) => e.kind === 'message' && e.message.usage !== undefined);
    expect(a1?.kind === 'message' && a1.message.parts.some((p) => p.type === 'tool_call' && p.id === 'toolu_01')).toBe(true);
    expect(a1?.kind === 'message' && a1.message.usage).toEqual(PRICE_TERMS);
    // with its response id, so that `stats` knows it for a copy of the original
    expect(a1?.kind === 'message' && a1.message.responseId).toBe('msg_1');
  });
});

describe('real codex resumes a threadbase fork', () => {
  it('forks a codex session at an earlier user message; codex resumes the fork with exactly its context', async () => {
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(sessionIdForFork())) as Session;
    const at = s.entries.find(
      (e) =>
        e.kind === 'message' &&
        e.message.role === 'user' &&
        e.message.parts.some((p) => p.type === 'text' && p.text.startsWith('THINK:')),
    );
    expect(at).toBeDefined();
    const fork = await driver.forkSession(s.id, { at: at?.id });
    expect(fork.parentId).toBe(s.id);
    const ours = contextToResponses(await driver.getContext(fork.id));
    expect(itemText(ours.input.at(-1))).toBe('THINK: what did the tool print?');
    await codex(['resume', fork.id, 'fork question']);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
    expect(itemText(input.at(-1))).toBe('fork question');
  });

  it("a copy of a codex session is threadbase's (the original stays codex's), starts when it did, and codex resumes it", async () => {
    const driver = new CodexDriver(env);
    const original = (await driver.getSession(sessionIdForFork())) as Session;
    expect(original.writtenBy).toBeUndefined();
    const copy = await driver.writeSession(original);
    expect(copy.writtenBy).toBe('threadbase');
    expect(copy.createdAt).toBe(original.createdAt);
    // the session_meta names threadbase as its originator, and keeps codex's beside it
    const [meta] = (await fs.readFile(copy.path as string, 'utf8')).split('\n');
    const payload = (JSON.parse(meta as string) as { payload: Record<string, unknown> }).payload;
    const originalMeta = (original.raw as { payload: Record<string, unknown> }).payload;
    expect(payload).toMatchObject({ originator: 'threadbase', threadbase: { originator: originalMeta.originator } });
    expect(originalMeta.originator).not.toBe('threadbase');
    expect((await driver.getSession(original.id))?.writtenBy).toBeUndefined();
    expect((await driver.listSessions()).find((x) => x.id === copy.id)?.writtenBy).toBe('threadbase');
    // a fork is threadbase's too
    expect((await driver.forkSession(original.id)).writtenBy).toBe('threadbase');

    const ours = contextToResponses(await driver.getContext(copy.id));
    await codex(['resume', copy.id, 'copy question']);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
    expect(itemText(input.at(-1))).toBe('copy question');
    expect((await driver.getSession(copy.id))?.writtenBy).toBe('threadbase');
  });
});

describe('real codex finds a thread by the name threadbase gave it', () => {
  it('a titled fork and a renamed session: `codex exec resume <name>` resumes that thread with our context', async () => {
    const driver = new CodexDriver(env);
    const fork = await driver.forkSession(sessionIdForFork(), { title: 'threadbase titled fork' });
    expect((await driver.listSessions()).find((x) => x.id === fork.id)?.title).toBe('threadbase titled fork');
    const ours = contextToResponses(await driver.getContext(fork.id));
    await codex(['resume', 'threadbase titled fork', 'by name']);
    const input = lastRequest().input;
    expect(itemText(input.at(-1))).toBe('by name');
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
    // codex appended its turn to the fork's rollout, found through the name
    const texts = ((await driver.getSession(fork.id)) as Session).entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .map((p) => (p.type === 'text' ? p.text : ''));
    expect(texts).toContain('ok: by name');

    await driver.setTitle(fork.id, 'renamed by threadbase');
    await codex(['resume', 'renamed by threadbase', 'by the new name']);
    expect(itemText(lastRequest().input.at(-1))).toBe('by the new name');
    expect(JSON.stringify(lastRequest().input)).toContain('ok: by name');
  });
});

describe('real codex lists its own thread by the name threadbase gave it', () => {
  it("setTitle on a thread codex recorded: codex's thread listing shows the new name (codex takes it from the state database)", async () => {
    const home = join(root, 'codex-home-rename');
    await writeConfig(home);
    await codex(['a thread codex records'], home);
    const driver = new CodexDriver({ home: root, env: { CODEX_HOME: home } });
    const [own] = await driver.listSessions();
    const id = own?.id ?? '';
    expect((await codexThreadList(home, { sourceKinds: ALL_SOURCES })).find((t) => t.id === id)?.name).toBeNull();
    await driver.setTitle(id, 'own thread renamed by threadbase');
    const listed = await codexThreadList(home, { sourceKinds: ALL_SOURCES });
    expect(listed.find((t) => t.id === id)?.name).toBe('own thread renamed by threadbase');
  });
});

describe('real codex lists a converted thread under the provider it was written for', () => {
  it('after the configured provider changes, codex lists it with its own threads of the old provider, not under the new one', async () => {
    const home = join(root, 'codex-home-provider');
    await writeConfig(home);
    await codex(['a thread under the standin provider'], home);
    const driver = new CodexDriver({ home: root, env: { CODEX_HOME: home } });
    const [own] = await driver.listSessions();
    const t = new Date().toISOString();
    const written = await driver.writeSession({
      ...oneExchange({ id: 'claude-provider-1', project, prompt: 'CONVERTED UNDER STANDIN', reply: 'an answer', at: () => t }),
      source: 'claude',
    });
    // `codex resume --last` and the picker list the threads of the configured provider only
    // (thread/list modelProviders); a rollout naming no provider counts as the configured one, whichever it is.
    await writeConfig(home, [], 'other');
    const ids = async (provider: string) =>
      (await codexThreadList(home, { sourceKinds: ALL_SOURCES, modelProviders: [provider] })).map((x) => x.id);
    expect(await ids('standin')).toEqual(expect.arrayContaining([own?.id, written.id]));
    expect(await ids('other')).toEqual([]);
  });
});

describe('real codex resumes after threadbase appended to its rollout', () => {
  it('appends a user question and an answer as whole lines; codex sends them on its next turn', async () => {
    const driver = new CodexDriver(env);
    const id = sessionIdForFork();
    const t = new Date().toISOString();
    await driver.appendEntries(id, [
      messageEntry('x1', null, t, textMessage('user', 'appended by threadbase')),
      messageEntry('x2', 'x1', t, textMessage('assistant', 'appended answer')),
    ]);
    const ours = contextToResponses(await driver.getContext(id));
    expect(ours.input.slice(-2).map((i) => itemText(i))).toEqual(['appended by threadbase', 'appended answer']);
    await codex(['resume', id, 'after the append']);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
    expect((await driver.getSession(id))?.warnings).toEqual([]);
  });
});

describe('real codex with an image', () => {
  it('reads the image codex attached and codex resumes with it exactly as threadbase renders it', async () => {
    // A 1×1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
      'base64',
    );
    const image = join(project, 'dot.png');
    await fs.writeFile(image, png);
    await codex(['what is in the image?', '-i', image]);
    const driver = new CodexDriver(env);
    const [newest] = await driver.listSessions();
    const s = (await driver.getSession(newest?.id ?? '')) as Session;
    const parts = s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'user' ? e.message.parts : []));
    expect(parts.find((p) => p.type === 'image')).toEqual({
      type: 'image',
      mediaType: 'image/png',
      data: png.toString('base64'),
      meta: { detail: 'high' },
    });
    const ours = contextToResponses(await driver.getContext(s.id));
    await codex(['resume', s.id, 'and the colour?']);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
  });
});

describe('real codex sub-agents', () => {
  it('links the sub-agent codex spawned to its parent and call; the parent resumes with our context', async () => {
    const home = join(root, 'codex-home-agents');
    await writeConfig(home);
    await codex(['AGENT: count the files'], home);
    const driver = new CodexDriver({ home: root, env: { CODEX_HOME: home } });
    const list = await driver.listSessions();
    expect(list).toHaveLength(2);
    const parent = list.find((s) => !s.parentId);
    const child = list.find((s) => s.parentId);
    expect(child?.parentId).toBe(parent?.id);
    const p = (await driver.getSession(parent?.id ?? '')) as Session;
    const call = p.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((x) => x.type === 'tool_call');
    expect(call).toMatchObject({ name: 'spawn_agent', meta: { namespace: 'multi_agent_v1' } });
    expect(child?.parentToolCallId).toBe(call?.type === 'tool_call' ? call.id : 'none');
    const ours = contextToResponses(await driver.getContext(p.id));
    await codex(['resume', p.id, 'how many?'], home);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
  });
});

describe('real codex compaction and threadbase', () => {
  // A tiny auto-compaction limit makes codex compact before the second turn; `-c` lifts it again
  // for the resume that checks the context, so that resume does not compact once more.
  const noCompaction = ['-c', 'model_auto_compact_token_limit=100000000'];
  let home = '';
  let compactEnv: DriverEnv;

  beforeAll(async () => {
    home = join(root, 'codex-home-compact');
    await writeConfig(home, ['model_auto_compact_token_limit = 2000']);
    compactEnv = { home: root, env: { CODEX_HOME: home } };
  });

  it('reads the compaction codex recorded and rebuilds the context codex resumes with', async () => {
    await codex(['first question'], home);
    const driver = new CodexDriver(compactEnv);
    const [listed] = await driver.listSessions();
    const id = listed?.id ?? '';
    await codex(['resume', id, 'second question'], home);
    const afterCompaction = lastRequest().input;

    const s = (await driver.getSession(id)) as Session;
    const compaction = s.entries.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({ summary: 'Stand-in summary of the conversation so far.' });
    const ours = contextToResponses(await driver.getContext(id));
    // What codex sent right after compacting is our context up to the last answer.
    expect(normalize(afterCompaction.slice(1))).toEqual(normalize(ours.input.slice(0, -1)));
    expect(ours.input.map((i) => itemText(i))).not.toContain('ok: first question');

    await codex(['resume', id, 'third question', ...noCompaction], home);
    const input = lastRequest().input;
    expect(normalize(input.slice(1, -1))).toEqual(normalize(ours.input));
    expect(itemText(input[input.length - 1])).toBe('third question');
  });

  it('codex resumes a compaction threadbase wrote from another agent, with our context', async () => {
    const t = '2026-02-03T04:05:06.000Z';
    const msg = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string): MessageEntry =>
      messageEntry(id, parentId, t, textMessage(role, text));
    const foreign: Session = {
      id: 'pi-session-1',
      source: 'pi',
      project,
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries: [
        msg('u1', null, 'user', 'Plan the release'),
        msg('a1', 'u1', 'assistant', 'Step one: tag it.'),
        {
          id: 'c1',
          parentId: 'a1',
          timestamp: t,
          kind: 'compaction',
          summary: 'The user is planning a release; tagging comes first.',
        },
        msg('u2', 'c1', 'user', 'What next?'),
        msg('a2', 'u2', 'assistant', 'Publish the notes.'),
      ],
    };
    const driver = new CodexDriver(compactEnv);
    const written = await driver.writeSession(foreign);
    const ours = contextToResponses(await driver.getContext(written.id));
    // the summary alone, as pi sends it: not the prompts before it (the compaction keeps none)
    expect(ours.input.map((i) => itemText(i))).toEqual([
      `${SUMMARY_PREFIX}\nThe user is planning a release; tagging comes first.`,
      'What next?',
      'Publish the notes.',
    ]);
    await codex(['resume', written.id, 'and then?', ...noCompaction], home);
    const input = lastRequest().input;
    const sent = codexHistory(input.slice(1));
    expect(sent).toEqual([
      ...normalize(ours.input),
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and then?' }] },
    ]);
  });

  it('once codex has built its state database, a session threadbase wrote is the one `codex exec resume --last` resumes', async () => {
    const home = join(root, 'codex-home-last');
    await writeConfig(home);
    await codex(['an own codex session first'], home);
    const dbFile = (await fs.readdir(home)).find((f) => /^state_\d+\.sqlite$/.test(f));
    expect(dbFile).toBeDefined();
    const rows = () => {
      const db = openDatabase(join(home, dbFile as string), { readonly: true });
      try {
        return db.prepare('SELECT * FROM threads ORDER BY id').all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    };
    const before = rows();
    expect(before).toHaveLength(1);
    const t = new Date().toISOString();
    const driver = new CodexDriver({ home: root, env: { CODEX_HOME: home } });
    const written = await driver.writeSession({
      ...oneExchange({ id: 'claude-last-1', project, prompt: 'THREADBASE WRITTEN', reply: 'written answer', at: () => t }),
      source: 'claude',
    });
    expect(written.meta?.warnings).toBeUndefined();
    // one new row; codex's own row untouched
    const after = rows();
    expect(after).toHaveLength(2);
    expect(after.find((r) => r.id === before[0]?.id)).toEqual(before[0]);
    expect(after.find((r) => r.id === written.id)).toMatchObject({ rollout_path: written.path, preview: 'THREADBASE WRITTEN' });
    await codex(['resume', '--last', 'which one?'], home);
    const texts = lastRequest().input.map((i) => itemText(i));
    expect(texts).toContain('THREADBASE WRITTEN');
    expect(texts).toContain('written answer');
    expect(texts).not.toContain('an own codex session first');
  });
});
