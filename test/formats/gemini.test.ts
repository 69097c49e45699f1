/** The Gemini CLI driver over fixtures in its real shapes (see test/fixtures/gemini/README.md). */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { branches, pairToolCalls } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { writeLinkedSubAgent } from '../helpers/gemini-orphans.js';
import { messageOutline } from '../helpers/sessions.js';

const env: DriverEnv = { home: resolve('test/fixtures/gemini/home'), env: {} };
const MAIN = '8a2f0c1e-1111-4222-8333-944455556666';
const OLD = '0ldc4a75-aaaa-4bbb-8ccc-ddddeeeeffff';
const OLD_DIR = '379e92851cc531fffa52190adfb783473f6553f5b7622ffce01e80eed6e660b0';

describe('gemini: listing', () => {
  it('lists chats, sub-agent chats and checkpoints with their projects', async () => {
    const list = await new GeminiDriver(env).listSessions();
    const byId = new Map(list.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual(
      [MAIN, OLD, 'sub-7c1d', 'checkpoint:myproj:before refactor', `checkpoint:${OLD_DIR}:v1`].sort(),
    );
    expect(byId.get(MAIN)).toMatchObject({
      source: 'gemini',
      project: '/home/u/myproj',
      title: 'Inspect package.json',
      messageCount: 6,
    });
    // A hash-named folder is matched to its path through projects.json.
    expect(byId.get(OLD)?.project).toBe('/home/u/old');
    expect(byId.get('sub-7c1d')).toMatchObject({ parentId: MAIN, directories: ['/home/u/myproj', '/home/u/lib'] });
    expect(await new GeminiDriver(env).listSessions({ project: '/home/u/old' })).toHaveLength(2);
    expect(new Sources(env).names()).toContain('gemini');
  });

  it('honours GEMINI_CLI_HOME and finds nothing where there is nothing', async () => {
    expect(await new GeminiDriver({ home: '/nonexistent', env: { GEMINI_CLI_HOME: env.home } }).listSessions()).toHaveLength(5);
    expect(await new GeminiDriver({ home: '/nonexistent', env: {} }).listSessions()).toEqual([]);
  });
});

describe('gemini: a JSONL chat', () => {
  it('applies updates and rewinds, keeping the rewound turn as an abandoned branch', async () => {
    const driver = new GeminiDriver(env);
    const s = (await driver.getSession(MAIN)) as Session;
    expect(s.warnings).toEqual([
      { file: s.path, line: 12, message: expect.stringMatching(/malformed JSON/) },
      // the fixture's sub-agent chat, which no call of this chat names or gave its prompt
      { file: s.path, id: 'sub-7c1d', message: expect.stringMatching(/sub-agent chat sub-7c1d .*no call of session/) },
    ]);
    const ctx = await driver.getContext(MAIN);
    expect(messageOutline(ctx.messages)).toEqual([
      'user:Read package.json',
      'assistant:thinking,tool_call',
      'tool:tool_result',
      'assistant:The package is called myproj.',
      'user:Actually, just show the version',
      'assistant:There is no version field.',
    ]);
    const bs = branches(s);
    expect(bs).toHaveLength(2);
    const abandoned = bs.find((b) => !b.current);
    expect(abandoned?.leaf.id).toBe('g3');
    expect(abandoned?.forkPointId).toBe('g2');
    // The info message is kept, but not as something the model saw.
    expect(s.entries.find((e) => e.id === 'i1')).toMatchObject({ kind: 'metadata', type: 'gemini:info' });
  });

  it('reads tool calls with their results, thoughts and tokens (updates: the last record wins)', async () => {
    const s = (await new GeminiDriver(env).getSession(MAIN)) as Session;
    const g1 = s.entries.find((e) => e.id === 'g1');
    if (g1?.kind !== 'message') throw new Error('g1 missing');
    expect(g1.message.parts[0]).toMatchObject({ type: 'thinking', thinking: '**Reading the file** I will use read_file.' });
    expect(g1.message.parts[1]).toMatchObject({
      type: 'tool_call',
      id: 'read_file-1730455202000-0',
      name: 'read_file',
      input: { absolute_path: '/home/u/myproj/package.json' },
      meta: { displayName: 'ReadFile', status: 'success' },
    });
    // output: Gemini's 20 and its 15 thought tokens (billed as output; the model counts reasoning in output)
    expect(g1.message.usage).toEqual({ input: 600, cacheRead: 400, output: 20 + 15, reasoning: 15, cacheWrite: 0 });
    expect(g1.message.model).toBe('gemini-2.5-pro');
    const results = s.entries.find((e) => e.id === 'g1:results');
    expect(results).toMatchObject({
      parentId: 'g1',
      message: {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'read_file-1730455202000-0', content: '{"name":"myproj"}' }],
      },
    });
    expect(s.entries.find((e) => e.id === 'g2')?.parentId).toBe('g1:results');
    // Every response counted once, the rewound one too (it was paid for).
    expect(s.usage).toEqual({
      input: 600 + 100 + 1200 + 100,
      cacheRead: 400 + 1000 + 0 + 1200,
      output: 43 + 15,
      reasoning: 15,
      cacheWrite: 0,
    });
    expect(s.models?.sort()).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro']);
  });
});

describe('gemini: the older JSON chat and checkpoints', () => {
  it('reads a one-document chat with an errored tool call', async () => {
    const driver = new GeminiDriver(env);
    const ctx = await driver.getContext(OLD);
    expect(messageOutline(ctx.messages)).toEqual([
      'user:hello from august',
      'assistant:Hi! What shall we build?',
      'user:run ls',
      'assistant:tool_call',
      'tool:tool_result',
    ]);
    const result = ctx.messages[4]?.parts[0];
    expect(result).toMatchObject({
      type: 'tool_result',
      callId: 'run_shell_command-1',
      content: 'Command rejected by user.',
      isError: true,
    });
  });

  it('reads a /chat save checkpoint: thought signature, calls paired without ids, inline images', async () => {
    const driver = new GeminiDriver(env);
    const s = (await driver.getSession('checkpoint:myproj:before refactor')) as Session;
    expect(s.meta).toMatchObject({ checkpoint: 'before refactor', authType: 'oauth-personal' });
    const ctx = await driver.getContext(s.id);
    expect(messageOutline(ctx.messages)).toEqual([
      'user:What is in src?',
      'assistant:thinking,tool_call',
      'tool:tool_result',
      'assistant:src has index.ts and util.ts.',
      'user:Describe this,image',
    ]);
    expect(ctx.messages[1]?.parts[0]).toEqual({
      type: 'thinking',
      thinking: 'Let me look.',
      meta: { thoughtSignature: 'c2lnbmF0dXJl' },
    });
    const pairing = pairToolCalls(ctx.messages);
    expect(pairing.unanswered).toEqual([]);
    expect(pairing.orphanResults).toEqual([]);
    expect(ctx.messages[4]?.parts[1]).toEqual({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' });
    const old = await driver.getContext(`checkpoint:${OLD_DIR}:v1`);
    expect(messageOutline(old.messages)).toEqual(['user:old style', 'assistant:yes']);
  });

  it('writes new chats only: no append or fork into a chat Gemini CLI may be writing', () => {
    const d = new GeminiDriver(env);
    expect(d.capabilities).toMatchObject({ read: true, write: true, append: false, fork: false });
    expect(typeof d.writeSession).toBe('function');
    expect('appendEntries' in d).toBe(false);
    expect('forkSession' in d).toBe(false);
  });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

describe('gemini: through the CLI', () => {
  it('lists, shows the tree with its abandoned branch, and prints a checkpoint as Anthropic messages', async () => {
    const list = await cli(['sessions', '--source', 'gemini', '--json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.out) as { id: string }[]).map((r) => r.id)).toContain(MAIN);
    const show = await cli(['show', MAIN.slice(0, 8), '--json']);
    expect(show.code).toBe(0);
    const shown = JSON.parse(show.out) as { leafId: string; branches: { current: boolean }[] };
    expect(shown.leafId).toBe('i1');
    expect(shown.branches).toHaveLength(2);
    const ctx = await cli(['context', 'checkpoint:myproj:before refactor', '--format', 'anthropic']);
    expect(ctx.code).toBe(0);
    const body = JSON.parse(ctx.out) as { messages: { role: string; content: { type: string }[] }[] };
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    // A Gemini thought carries no Anthropic signature, so the Messages API gets it as text.
    expect(body.messages[1]?.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
  });
});

describe('gemini: a chat the real Gemini CLI 0.61.0 recorded', () => {
  const realEnv: DriverEnv = { home: resolve('test/fixtures/gemini/real-0.61.0'), env: {} };
  const ID = '1feb6904-698a-4392-9399-e06da18b836d';

  it('reads it: its own session context marked, a shell call with one result, the resumed turn', async () => {
    const driver = new GeminiDriver(realEnv);
    const [info] = await driver.listSessions();
    expect(info).toMatchObject({ id: ID, project: '/tmp/gem/proj', title: 'RUN: echo hello-from-gemini' });
    const s = (await driver.getSession(ID)) as Session;
    expect(s.warnings).toEqual([]);
    expect(branches(s)).toHaveLength(1);
    const ctx = await driver.getContext(ID);
    const lines = messageOutline(ctx.messages);
    expect(lines).toHaveLength(7);
    expect(lines[0]?.startsWith('user:<session_context>')).toBe(true);
    expect(lines.slice(1, 4)).toEqual(['user:RUN: echo hello-from-gemini', 'assistant:thinking,tool_call', 'tool:tool_result']);
    expect(lines[4]?.startsWith('assistant:Tool finished: {"output":')).toBe(true);
    expect(lines.slice(5)).toEqual(['user:second question', 'assistant:ok: second question']);
    expect(ctx.messages[0]?.meta?.geminiInjected).toBe('session_context');
    // Recorded on the call, as a user message, and again on resume: one result in the context.
    expect(s.entries.filter((e) => e.kind === 'metadata' && e.type === 'gemini:repeated_tool_response')).toHaveLength(1);
    expect(pairToolCalls(ctx.messages)).toMatchObject({ unanswered: [], orphanResults: [] });
  });

  it('its context is what Gemini CLI sent on resume, turn for turn (less its thoughts and repeats)', async () => {
    type GPart = {
      text?: string;
      functionCall?: { name: string; args: unknown };
      functionResponse?: { name: string; response: unknown };
    };
    const sent = JSON.parse(await readFile(resolve('test/fixtures/gemini/request-resume-1feb6904.json'), 'utf8')) as {
      role: string;
      parts: GPart[];
    }[];
    const driver = new GeminiDriver(realEnv);
    const s = (await driver.getSession(ID)) as Session;
    const leaf = s.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'second question'),
    );
    const ctx = await driver.getContext(ID, { leafId: leaf?.id });
    // Ours as Gemini turns: tool results are user turns, consecutive turns of one role merge.
    const turns: { role: string; parts: string[] }[] = [];
    for (const m of ctx.messages) {
      const role = m.role === 'assistant' ? 'model' : 'user';
      const parts = m.parts.flatMap((p) => {
        if (p.type === 'text') return [m.meta?.geminiInjected ? '<session_context>' : `text:${p.text}`];
        if (p.type === 'tool_call') return [`call:${p.name}:${JSON.stringify(p.input)}`];
        if (p.type === 'tool_result') return [`result:${p.name}:${typeof p.content === 'string' ? p.content : ''}`];
        return [];
      });
      const last = turns.at(-1);
      if (last?.role === role) last.parts.push(...parts);
      else turns.push({ role, parts });
    }
    const theirs = sent.map((c) => ({
      role: c.role,
      parts: [
        ...new Set(
          c.parts.map((p) => {
            if (p.text?.startsWith('<session_context>')) return '<session_context>';
            if (p.text !== undefined) return `text:${p.text}`;
            if (p.functionCall) return `call:${p.functionCall.name}:${JSON.stringify(p.functionCall.args)}`;
            const r = p.functionResponse?.response as { output?: string } | undefined;
            return `result:${p.functionResponse?.name}:${r?.output ?? ''}`;
          }),
        ),
      ],
    }));
    expect(turns).toEqual(theirs);
    expect(sent[2]?.parts).toHaveLength(2);
  });
});

/** Runs `use` on a temp HOME with an empty Gemini chats folder (of project hash `p`), then removes it. */
async function withChats(use: (home: string, chats: string) => Promise<void>): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'tb-gemini-'));
  try {
    const chats = join(home, '.gemini/tmp/p/chats');
    await mkdir(chats, { recursive: true });
    await use(home, chats);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('gemini: sub-agents', () => {
  it('links a sub-agent chat to the call in its parent that carries its id', async () => {
    await withChats(async (home, chats) => {
      await writeLinkedSubAgent(chats);
      const driver = new GeminiDriver({ home, env: {} });
      const child = (await driver.listSessions()).find((s) => s.id === 'child-1');
      expect(child).toMatchObject({ parentId: 'parent-1', parentToolCallId: 'call-9' });
      expect((await driver.getSession('child-1'))?.parentToolCallId).toBe('call-9');
    });
  });
});

describe('gemini: damaged input', () => {
  it('reports lines that are not records and reads the rest; a broken .json chat is a warning', async () => {
    await withChats(async (home, chats) => {
      const file = join(chats, 'session-2026-01-01T00-00-abcd1234.jsonl');
      await writeFile(
        file,
        [
          JSON.stringify({ sessionId: 'abcd1234-x', projectHash: 'h', startTime: 't0', lastUpdated: 't1' }),
          '[1,2]',
          JSON.stringify({ what: 'ever' }),
          JSON.stringify({ id: 'u', timestamp: 't0', type: 'user', content: 'survives' }),
          '{"id":"g","type":"gem',
        ].join('\n'),
      );
      await writeFile(join(chats, 'session-2026-01-02T00-00-ffff0000.json'), '{"sessionId": "ffff0000-y", "messages": [');
      const driver = new GeminiDriver({ home, env: {} });
      const s = (await driver.getSession('abcd1234-x')) as Session;
      expect(s.warnings?.map((w) => w.line)).toEqual([2, 3, 5]);
      expect(s.title).toBe('survives');
      const list = await driver.listSessions();
      expect(list.map((x) => x.id).sort()).toEqual(['abcd1234-x', 'session-2026-01-02T00-00-ffff0000']);
      const broken = (await driver.getSession('session-2026-01-02T00-00-ffff0000')) as Session;
      expect(broken.warnings?.[0]?.message).toMatch(/malformed JSON/);
    });
  });
});
