/**
 * Codex, Gemini CLI and Zed through every CLI command of DESIGN.md — sessions, show, context, sync,
 * search, stats and convert (each as a source; codex also as a target) — over their fixtures copied
 * into one temp HOME, where each agent keeps its data by default (~/.codex, ~/.gemini,
 * ~/.local/share/zed). Expected values come from each agent's own driver, so the test checks that
 * the CLI and the index carry what the format reads, not numbers written down here.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { runCli, runCliOk } from '../helpers/cli.js';

interface AgentCase {
  source: 'codex' | 'gemini' | 'zed';
  /** a session of the fixture with a tool call */
  id: string;
  title: string;
  project: string;
  /** a word only that session's conversation holds */
  word: string;
  tool: string;
  /** a word in a message that calls the tool or carries its result */
  toolWord: string;
}

const CASES: AgentCase[] = [
  {
    source: 'codex',
    id: '01a2049f-112d-7912-ae95-4f258b998a24',
    title: 'RUN: echo hello-from-tool',
    project: '/tmp/cx/proj',
    word: 'exited',
    tool: 'exec_command',
    toolWord: 'exited',
  },
  {
    source: 'gemini',
    id: '8a2f0c1e-1111-4222-8333-944455556666',
    title: 'Inspect package.json',
    project: '/home/u/myproj',
    word: 'called',
    tool: 'read_file',
    toolWord: 'myproj',
  },
  {
    source: 'zed',
    id: '4b0c9d7e-zed-thread-current',
    title: 'Fix the flaky test',
    project: '/home/u/app',
    word: 'races',
    tool: 'read_file',
    toolWord: 'setTimeout',
  },
];

let root: string;
let env: DriverEnv;
let sources: Sources;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-more-agents-cli-'));
  await cp(resolve('test/fixtures/codex/home'), join(root, '.codex'), { recursive: true });
  await cp(resolve('test/fixtures/gemini/home/.gemini'), join(root, '.gemini'), { recursive: true });
  await mkdir(join(root, '.local', 'share'), { recursive: true });
  await cp(resolve('test/fixtures/zed/home/.local/share/zed'), join(root, '.local', 'share', 'zed'), { recursive: true });
  env = { home: root, env: { HOME: root } };
  sources = new Sources(env);
});

afterAll(async () => {
  await sources?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await runCliOk(env, args)) as T;

/**
 * What survives any agent's format: roles, texts, tool calls and results (no thinking or images).
 * System texts are left out: agents without system messages carry them as user text.
 */
function essence(messages: readonly Message[], systemTexts: ReadonlySet<string> = new Set()): unknown[] {
  const out: [string, unknown[]][] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const parts = m.parts.flatMap((p) => {
      if (p.type === 'text') return p.text.trim() && !systemTexts.has(p.text) ? [['text', p.text]] : [];
      if (p.type === 'tool_call') return [['call', p.id, p.name, p.input]];
      if (p.type === 'tool_result') {
        const text =
          typeof p.content === 'string'
            ? p.content
            : p.content.map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('\n');
        return [['result', p.callId, text]];
      }
      return [];
    });
    if (parts.length === 0) continue;
    // a tool message and a user message are both "user" turns to a model
    const role = m.role === 'tool' ? 'user' : m.role;
    const last = out.at(-1);
    if (last && last[0] === role) last[1].push(...parts);
    else out.push([role, parts]);
  }
  return out;
}

const systemTextsOf = (messages: readonly Message[]): Set<string> =>
  new Set(messages.flatMap((m) => (m.role === 'system' ? m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : [])));

describe.each(CASES)('the CLI on $source sessions', (c) => {
  it('sessions lists what the driver lists, with the contract fields', async () => {
    const driverList = await sources.driver(c.source).listSessions();
    const rows = await json<Record<string, unknown>[]>(['sessions', '--source', c.source, '--json']);
    expect(rows.map((r) => r.id).sort()).toEqual(driverList.map((s) => s.id).sort());
    expect(rows.every((r) => r.source === c.source)).toBe(true);
    const row = rows.find((r) => r.id === c.id);
    expect(row).toMatchObject({ id: c.id, source: c.source, title: c.title, project: c.project });
    for (const key of ['createdAt', 'updatedAt', 'messageCount', 'parentId']) expect(row).toHaveProperty(key);
    const byProject = await json<{ id: string }[]>(['sessions', '--source', c.source, '--project', c.project, '--json']);
    expect(byProject.map((r) => r.id)).toContain(c.id);
  });

  it('show prints the session and its entry tree (by a unique prefix too)', async () => {
    const s = (await sources.driver(c.source).getSession(c.id)) as Session;
    const shown = await json<Session>(['show', c.id, '--json']);
    expect(shown.id).toBe(c.id);
    expect(shown.title).toBe(c.title);
    expect(shown.entries.map((e) => e.id)).toEqual(s.entries.map((e) => e.id));
    const prefix = c.id.slice(0, 10);
    expect((await json<Session>(['show', prefix, '--source', c.source, '--json'])).id).toBe(c.id);
    const tree = await runCliOk(env, ['show', c.id, '--tree']);
    expect(tree).toContain(c.tool);
  });

  it('context prints what the agent sends on resume, in the Messages API shape and as Markdown', async () => {
    const ctx = await sources.driver(c.source).getContext(c.id);
    const printed = await json<{ system?: unknown; messages: unknown[] }>(['context', c.id, '--format', 'anthropic']);
    expect(printed.messages).toEqual(contextToAnthropic(ctx).messages);
    expect(JSON.stringify(printed.messages)).toContain(c.word);
    const md = await runCliOk(env, ['context', c.id, '--format', 'markdown']);
    expect(md).toContain(c.word);
  });

  it('sync indexes it; search finds it by a word and by its tool; stats counts its usage as the session does', async () => {
    const report = await json<{ index: string }>(['sync', '--source', c.source, '--json']);
    expect(report.index).toBe(join(root, '.threadbase', 'index.db'));
    const hits = await json<{ sessionId: string; source: string; snippet: string }[]>([
      'search',
      c.word,
      '--source',
      c.source,
      '--no-sync',
      '--json',
    ]);
    expect(hits.map((h) => h.sessionId)).toContain(c.id);
    expect(hits.every((h) => h.source === c.source)).toBe(true);
    const byTool = await json<{ sessionId: string }[]>([
      'search',
      c.toolWord,
      '--source',
      c.source,
      '--tool',
      c.tool,
      '--no-sync',
      '--json',
    ]);
    expect(byTool.map((h) => h.sessionId)).toContain(c.id);

    const s = (await sources.driver(c.source).getSession(c.id)) as Session;
    const want = summarizeUsage(s.entries).usage;
    expect(want.input + want.output).toBeGreaterThan(0);
    const rows = await json<{ key: string; inputTokens: number; outputTokens: number; messages: number }[]>([
      'stats',
      '--by',
      'session',
      '--source',
      c.source,
      '--no-sync',
      '--json',
    ]);
    const row = rows.find((r) => r.key === c.id);
    expect(row).toMatchObject({ inputTokens: want.input, outputTokens: want.output });
    expect(row?.messages).toBeGreaterThan(0);
  });

  it('convert --to pi writes a pi session with the same conversation', async () => {
    const written = await json<{ id: string; source: string; path: string }>(['convert', c.id, '--to', 'pi', '--json']);
    expect(written.source).toBe('pi');
    const original = await sources.driver(c.source).getContext(c.id);
    const converted = await new Sources(env).driver('pi').getContext(written.id);
    // pi sends another model's thinking (than the last response's) as text, as pi-ai does (519ec95)
    const thinking = original.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'thinking' ? [p.thinking] : [])));
    const skipped = new Set([...systemTextsOf(original.messages), ...thinking]);
    expect(essence(converted.messages, skipped)).toEqual(essence(original.messages));
  });
});

describe('codex as a conversion target', () => {
  it.each(CASES.filter((c) => c.source !== 'codex'))(
    'convert a $source session --to codex: a rollout with the same conversation, listed by codex',
    async (c) => {
      const written = await json<{ id: string; source: string; path: string }>(['convert', c.id, '--to', 'codex', '--json']);
      expect(written.source).toBe('codex');
      expect(written.path.startsWith(join(root, '.codex', 'sessions'))).toBe(true);
      const fresh = new Sources(env);
      const original = await fresh.driver(c.source).getContext(c.id);
      const converted = await fresh.driver('codex').getContext(written.id);
      expect(essence(converted.messages)).toEqual(essence(original.messages));
      const listed = await json<{ id: string; project: string }[]>(['sessions', '--source', 'codex', '--json']);
      expect(listed.find((r) => r.id === written.id)?.project).toBe(c.project);
      // bad input names the agent: an unknown target
      const bad = await runCli(env, ['convert', c.id, '--to', 'no-such-agent', '--json']);
      expect(bad.code).not.toBe(0);
      expect(bad.err).toContain('no-such-agent');
    },
  );
});
