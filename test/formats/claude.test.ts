import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session, Usage } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { conversation, type Msg } from '../helpers/claude-requests.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { codexReasoningSession, messageEntry, textMessage } from '../helpers/sessions.js';

const FIXTURES = resolve('test/fixtures/claude');
const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const MAIN = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const FORK = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';
const SUB = 'ac5303661b5759184';

let home: string;
let env: DriverEnv;

/** The CLI in-process against this test's temp HOME. */
function cli(args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

async function digest(dir: string): Promise<string> {
  const h = createHash('sha256');
  const walk = async (d: string): Promise<void> => {
    for (const e of (await fs.readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else h.update(p).update(await fs.readFile(p));
    }
  };
  await walk(dir);
  return h.digest('hex');
}

/** A damaged transcript: bad JSON, an unknown type, an orphan, a 3 MB line, non-UTF-8 bytes, a torn last line. */
async function writeDamaged(dir: string): Promise<string> {
  const rec = (uuid: string, parent: string | null, s: number, type: string, extra: Record<string, unknown>) =>
    `${JSON.stringify({ parentUuid: parent, isSidechain: false, cwd: '/work/proj.a', sessionId: S2, type, uuid, timestamp: `2025-10-02T10:00:0${s}.000Z`, ...extra })}\n`;
  const parts: Buffer[] = [
    Buffer.from(rec('d1', null, 1, 'user', { message: { role: 'user', content: 'hello damaged' } })),
    Buffer.from('{not json at all\n'),
    Buffer.from(
      rec('d2', 'd1', 2, 'assistant', {
        message: { id: 'msg_d2', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }] },
      }),
    ),
    Buffer.from(rec('d3', 'd2', 3, 'brand-new-type', { whatever: true })),
    Buffer.from(rec('d4', 'missing-parent', 4, 'user', { message: { role: 'user', content: 'orphan here' } })),
    Buffer.from(rec('d5', 'd4', 5, 'user', { message: { role: 'user', content: 'x'.repeat(3 * 1024 * 1024) } })),
    Buffer.concat([
      Buffer.from('{"type":"user","uuid":"bad","message":{"content":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}\n'),
    ]),
    Buffer.from(
      rec('d6', 'd5', 6, 'assistant', {
        message: { id: 'msg_d6', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'after bad bytes' }] },
      }),
    ),
    Buffer.from('{"type":"user","uuid":"d7","parentUuid":"d6","message":{"role":"us'),
  ];
  const file = join(dir, `${S2}.jsonl`);
  await fs.writeFile(file, Buffer.concat(parts));
  return file;
}

beforeEach(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-claude-unit-'));
  const claude = join(home, '.claude');
  await fs.cp(join(FIXTURES, 'real'), claude, { recursive: true });
  await fs.cp(join(FIXTURES, 'older'), claude, { recursive: true });
  env = { home, env: {} };
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('paths', () => {
  it('encodes project paths as Claude Code does', () => {
    expect(encodeProjectPath('/tmp/a.b')).toBe('-tmp-a-b');
    expect(encodeProjectPath('/home/me/my_proj-1')).toBe('-home-me-my-proj-1');
  });

  it('honours CLAUDE_CONFIG_DIR', async () => {
    const other = await fs.mkdtemp(join(tmpdir(), 'tb-claude-cfg-'));
    await fs.cp(join(FIXTURES, 'older'), other, { recursive: true });
    const d = new ClaudeDriver({ home: '/nonexistent', env: { CLAUDE_CONFIG_DIR: other } });
    expect((await d.listSessions()).map((s) => s.id).sort()).toEqual([S1, 'abcd1234']);
    await fs.rm(other, { recursive: true, force: true });
  });
});

describe('real Claude Code 2.1.330 transcripts', () => {
  it('lists the session, its fork copy and the sub-agent linked to the spawning tool call', async () => {
    const list = await new ClaudeDriver(env).listSessions();
    const main = list.find((s) => s.id === MAIN);
    expect(main?.project).toBe('/tmp/cc/proj');
    expect(main?.title).toBe('RUN: echo hi > out.txt');
    const sub = list.find((s) => s.id === SUB);
    expect(sub?.parentId).toBe(MAIN);
    expect(sub?.parentToolCallId).toBe('toolu_standin_0003');
    expect(list.some((s) => s.id === FORK)).toBe(true);
  });

  it('reads the compaction: the summary, the preserved message, then what followed', async () => {
    const d = new ClaudeDriver(env);
    const s = (await d.getSession(MAIN)) as Session;
    const c = s.entries.find((e) => e.kind === 'compaction');
    expect(c?.kind === 'compaction' && c.tokensBefore).toBe(3440);
    expect(c?.parentId).toBe('2452761c-8a16-4f7b-83c4-9306217406aa');
    const ctx = await d.getContext(MAIN);
    const req = contextToAnthropic(ctx);
    expect(req.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(req.messages[0])).toContain('This session is being continued');
    // the /compact command records are one user turn, each earlier record's text ending in a newline
    const turn = req.messages[2]?.content as { text: string }[];
    expect(turn.map((b) => b.text.slice(0, 20))).toEqual([
      '<local-command-cavea',
      '<command-name>/compa',
      '<local-command-stdou',
      'after compact',
    ]);
    expect(turn[0]?.text.endsWith('</local-command-caveat>\n')).toBe(true);
    // the context before the compaction still has the tool call, and the task notification worded as Claude Code sends it
    const before = contextToAnthropic(await d.getContext(MAIN, { leafId: '2452761c-8a16-4f7b-83c4-9306217406aa' }));
    const text = JSON.stringify(before);
    expect(text).toContain('"tool_use_id":"toolu_standin_0001"');
    expect(text).toContain('"is_error":false');
    expect(text).toContain('[SYSTEM NOTIFICATION - NOT USER INPUT]');
  });

  it('keeps every record: attachments and file-level records as metadata, none on the path as a leaf', async () => {
    const s = (await new ClaudeDriver(env).getSession(MAIN)) as Session;
    const types = new Set(s.entries.filter((e) => e.kind === 'metadata').map((e) => (e as { type: string }).type));
    for (const t of ['attachment', 'queue-operation', 'last-prompt', 'mode', 'api-request', 'cost-state', 'compact-summary'])
      expect(types, t).toContain(t);
    const lines = (await fs.readFile(s.path as string, 'utf8')).trim().split('\n').length;
    expect(s.entries).toHaveLength(lines);
    expect(s.leafId).toBe('dda688a3-8a0b-4b44-bd2b-0467e327eea9');
  });

  it('finds an entry straight from the session file', async () => {
    const d = new ClaudeDriver(env);
    const e = await d.getEntry(MAIN, '349039be-c105-4670-8348-100b0719b3a2');
    expect(e?.kind === 'message' && e.message.parts[0]?.type).toBe('tool_call');
    expect(await d.getEntry(MAIN, 'nope')).toBeUndefined();
    expect(await d.getEntry('no-such-session', 'x')).toBeUndefined();
  });
});

describe('parallel tool calls (real 2.1.330 transcript and the request it sent on resume)', () => {
  it('context equals the recorded resume request: one response, then both results in one turn', async () => {
    const golden = JSON.parse(await fs.readFile(join(FIXTURES, 'parallel-resume-request.json'), 'utf8')) as {
      sessionId: string;
      messages: Msg[];
    };
    const sent = conversation(golden.messages);
    expect(sent.pop()).toEqual({ role: 'user', content: [{ type: 'text', text: 'probe' }] });
    const d = new ClaudeDriver(env);
    const s = (await d.getSession(golden.sessionId)) as Session;
    const probe = s.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'probe'),
    );
    const ours = conversation(
      contextToAnthropic(await d.getContext(golden.sessionId, { leafId: probe?.parentId as string })).messages as Msg[],
    );
    expect(ours).toEqual(sent);
    expect(ours[1]?.content.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(ours[2]?.content.map((b) => b.tool_use_id)).toEqual(['toolu_standin_0001_1', 'toolu_standin_0001_2']);
    // usage of the three records of that response counts once
    expect(summarizeUsage(s.entries).responses).toBe(3);
  });
});

describe('older shapes', () => {
  it('merges one response split over records for context and counts its usage once', async () => {
    const d = new ClaudeDriver(env);
    const ctx = await d.getContext(S1, { leafId: 'a4' });
    const first = ctx.messages[1];
    expect(first?.role).toBe('assistant');
    expect(first?.parts.map((p) => p.type)).toEqual(['thinking', 'text', 'tool_call']);
    expect(ctx.messages[0]?.parts[1]).toEqual({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' });
    const s = (await d.getSession(S1)) as Session;
    const u = summarizeUsage(s.entries.filter((e) => !e.sidechain));
    expect(u.responses).toBe(4);
    // msg_1 counted once with its last record's usage (output 40), plus msg_2..msg_4
    expect(u.usage.output).toBe(40 + 7 + 4 + 1);
    expect(u.usage.input).toBe(100 + 200 + 300 + 50);
  });

  it('applies an older compaction (no preserved segment): summary, then what followed', async () => {
    const ctx = contextToAnthropic(await new ClaudeDriver(env).getContext(S1));
    expect(ctx.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe user asked about cats; there are 3.\n',
          },
          { type: 'text', text: 'next step' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('title from the summary record; the in-file side chain is not counted; todos attached', async () => {
    const d = new ClaudeDriver(env);
    const info = (await d.listSessions()).find((s) => s.id === S1);
    expect(info?.title).toBe('Counting cats in pictures');
    expect(info?.messageCount).toBe(10);
    const s = (await d.getSession(S1)) as Session;
    expect(s.entries.filter((e) => e.sidechain && e.kind === 'message').map((e) => e.id)).toEqual(['sc1', 'sc2']);
    expect(s.meta?.todos).toEqual([
      { agentId: S1, items: [{ content: 'count cats', status: 'completed', activeForm: 'Counting cats' }] },
    ]);
    const future = s.entries.find((e) => e.id === 'f1');
    expect(future?.kind === 'metadata' && future.type).toBe('future-thing');
    const doc = s.entries.find((e) => e.id === 'u2');
    expect(doc?.kind === 'message' && doc.message.parts[0]).toEqual({
      type: 'file',
      mediaType: 'application/pdf',
      data: 'JVBERi0=',
      name: 'doc.pdf',
    });
  });

  it('takes the title from a summary record in another file that names the leaf', async () => {
    const dir = join(home, '.claude', 'projects', '-work-proj-a');
    const s3 = '33333333-3333-4333-8333-333333333333';
    const rec = (uuid: string, parent: string | null, type: string, content: unknown) =>
      JSON.stringify({
        parentUuid: parent,
        uuid,
        type,
        sessionId: s3,
        cwd: '/work/proj.a',
        timestamp: '2025-10-03T00:00:00.000Z',
        message: { role: type, content },
      });
    await fs.writeFile(
      join(dir, `${s3}.jsonl`),
      `${rec('z1', null, 'user', 'first prompt')}\n${rec('z2', 'z1', 'assistant', [{ type: 'text', text: 'ok' }])}\n`,
    );
    await fs.writeFile(
      join(dir, '44444444-4444-4444-8444-444444444444.jsonl'),
      `${JSON.stringify({ type: 'summary', summary: 'Elsewhere title', leafUuid: 'z2' })}\n`,
    );
    const list = await new ClaudeDriver(env).listSessions();
    expect(list.find((s) => s.id === s3)?.title).toBe('Elsewhere title');
  });

  it('cuts a long first prompt into a title between characters, never through an emoji', async () => {
    const dir = join(home, '.claude', 'projects', '-work-proj-a');
    const s5 = '55555555-5555-4555-8555-555555555555';
    // the emoji's two UTF-16 units sit at 198 and 199, where the title is cut
    const prompt = `${'a'.repeat(198)}😀 and more`;
    await fs.writeFile(
      join(dir, `${s5}.jsonl`),
      `${JSON.stringify({ parentUuid: null, uuid: 'e1', type: 'user', sessionId: s5, cwd: '/work/proj.a', timestamp: '2025-10-03T00:00:00.000Z', message: { role: 'user', content: prompt } })}\n`,
    );
    const title = (await new ClaudeDriver(env).listSessions()).find((s) => s.id === s5)?.title ?? '';
    expect(title).toBe(`${'a'.repeat(198)}…`);
    expect(title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('takes the leaf a trailing last-prompt record names (a rewind), until something is written after it', async () => {
    const dir = join(home, '.claude', 'projects', '-work-proj-a');
    const s5 = '55555555-5555-4555-8555-555555555555';
    const rec = (uuid: string, parent: string | null, type: string, content: unknown) =>
      JSON.stringify({
        parentUuid: parent,
        uuid,
        type,
        sessionId: s5,
        cwd: '/work/proj.a',
        timestamp: '2025-10-03T00:00:00.000Z',
        message: { role: type, content },
      });
    const lines = [
      rec('k1', null, 'user', 'first'),
      rec('k2', 'k1', 'assistant', [{ type: 'text', text: 'one' }]),
      rec('k3', 'k2', 'user', 'second'),
      rec('k4', 'k3', 'assistant', [{ type: 'text', text: 'two' }]),
      JSON.stringify({ type: 'last-prompt', leafUuid: 'k2', rewound: true, explicit: true, sessionId: s5 }),
    ];
    const file = join(dir, `${s5}.jsonl`);
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    expect((await new ClaudeDriver(env).getSession(s5))?.leafId).toBe('k2');
    await fs.appendFile(file, `${rec('k5', 'k2', 'user', 'instead')}\n`);
    const s = (await new ClaudeDriver(env).getSession(s5)) as Session;
    expect(s.leafId).toBe('k5');
    expect(contextToAnthropic(await new ClaudeDriver(env).getContext(s5)).messages.map((m) => m.content)).toEqual([
      [{ type: 'text', text: 'first' }],
      [{ type: 'text', text: 'one' }],
      [{ type: 'text', text: 'instead' }],
      // the chain ends on a user record: Claude Code answers it for the model
      [{ type: 'text', text: 'No response requested.' }],
    ]);
  });

  it('links an older-layout sub-agent to its parent and the Task call', async () => {
    const d = new ClaudeDriver(env);
    const info = (await d.listSessions()).find((s) => s.id === 'abcd1234');
    expect(info?.parentId).toBe(S1);
    const s = (await d.getSession('abcd1234')) as Session;
    expect(s.parentToolCallId).toBe('toolu_1');
    expect((await d.getContext('abcd1234')).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('bad input', () => {
  it('loads the rest, lists with exit 0, warns naming file and line, and modifies nothing', async () => {
    const file = await writeDamaged(join(home, '.claude', 'projects', '-work-proj-a'));
    const before = await digest(join(home, '.claude'));
    const r = await cli(['sessions', '--source', 'claude', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { id: string; messageCount: number }[];
    expect(rows.find((x) => x.id === S2)?.messageCount).toBe(5);
    expect(rows.find((x) => x.id === S1)).toBeDefined();
    expect(r.err).toContain(`${file}:2: malformed JSON`);
    expect(r.err).toContain(`${file}:7: line is not valid UTF-8`);
    expect(r.err).toContain(`${file}:9: torn last line`);
    expect(r.err).toContain('parent missing-parent is not in this file');

    const s = (await new ClaudeDriver(env).getSession(S2)) as Session;
    expect(s.entries.find((e) => e.id === 'd3')).toMatchObject({ kind: 'metadata', type: 'brand-new-type' });
    const big = s.entries.find((e) => e.id === 'd5');
    expect(big?.kind === 'message' && (big.message.parts[0] as { text: string }).text.length).toBe(3 * 1024 * 1024);
    const shown = await cli(['show', S2, '--json']);
    expect(shown.code).toBe(0);
    const ctx = await cli(['context', S2, '--format', 'markdown']);
    expect(ctx.code).toBe(0);
    expect(ctx.out).toContain('after bad bytes');
    expect(ctx.out).toContain('orphan here');
    expect(await digest(join(home, '.claude'))).toBe(before);
  });
});

describe('CLI', () => {
  it('sessions --project, show by id prefix, context --leaf', async () => {
    const r = await cli(['sessions', '--source', 'claude', '--project', '/work/proj.a', '--json']);
    expect((JSON.parse(r.out) as { id: string }[]).map((x) => x.id).sort()).toEqual([S1, 'abcd1234']);
    const show = await cli(['show', '1111', '--json']);
    expect(show.code, show.err).toBe(0);
    expect((JSON.parse(show.out) as { id: string; title: string }).title).toBe('Counting cats in pictures');
    const ctx = await cli(['context', S1.slice(0, 6), '--leaf', 'a2', '--format', 'anthropic']);
    expect(ctx.code, ctx.err).toBe(0);
    const req = JSON.parse(ctx.out) as { messages: { role: string; content: { type: string }[] }[] };
    expect(req.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(req.messages[1]?.content.map((b) => b.type)).toEqual(['thinking', 'text']);
  });

  it('convert --to claude --json writes a copy with the same context; fork --at forks', async () => {
    const conv = await cli(['convert', S1, '--to', 'claude', '--json']);
    expect(conv.code, conv.err).toBe(0);
    const w = JSON.parse(conv.out) as { id: string; source: string; path: string };
    expect(w.source).toBe('claude');
    expect(w.path).toBe(join(home, '.claude', 'projects', '-work-proj-a', `${w.id}.jsonl`));
    const d = new ClaudeDriver(env);
    expect(contextToAnthropic(await d.getContext(w.id))).toEqual(contextToAnthropic(await d.getContext(S1)));

    const f = await cli(['fork', S1, '--at', 'a4', '--json']);
    expect(f.code, f.err).toBe(0);
    const forked = JSON.parse(f.out) as { id: string; parentId: string };
    expect(forked.parentId).toBe(S1);
    const fs2 = (await new ClaudeDriver(env).getSession(forked.id)) as Session;
    expect(fs2.parentId).toBe(S1);
    expect(fs2.parentEntryId).toBe('a4');
    // Claude Code's own fork keeps history (same uuids) in the new file
    expect(fs2.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'a2', 'a3', 'r1', 'a4']);
    expect(contextToAnthropic(await d.getContext(forked.id))).toEqual(
      contextToAnthropic(await d.getContext(S1, { leafId: 'a4' })),
    );
  });
});

describe('writing', () => {
  it('appends whole lines that continue the current leaf', async () => {
    const d = new ClaudeDriver(env);
    const file = join(home, '.claude', 'projects', '-work-proj-a', `${S1}.jsonl`);
    const before = await fs.readFile(file, 'utf8');
    const added: Entry[] = [
      messageEntry('n1', null, '2025-10-01T11:00:00.000Z', textMessage('user', 'one more')),
      messageEntry('n2', 'n1', '2025-10-01T11:00:01.000Z', {
        role: 'assistant',
        responseId: 'msg_n2',
        parts: [{ type: 'text', text: 'sure' }],
      }),
    ];
    await d.appendEntries(S1, added);
    const after = await fs.readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const lines = after
      .slice(before.length)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // under a6, the last row Claude Code's loader keeps: it reads no record of an unknown type
    // (`future-thing` f1), so a record hung under f1 would start a chain of its own there
    expect(lines.map((l) => [l.type, l.uuid, l.parentUuid, l.sessionId])).toEqual([
      ['user', 'n1', 'a6', S1],
      ['assistant', 'n2', 'n1', S1],
      // the leaf Claude Code resumes on (claude-leaf.test.ts)
      ['last-prompt', undefined, undefined, S1],
    ]);
    expect(lines[2]?.leafUuid).toBe('n2');
    const ctx = contextToAnthropic(await d.getContext(S1));
    expect(ctx.messages.slice(-2)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one more' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'sure' }] },
    ]);
  });

  it('writes the model reasoning, 1-hour cache writes, web searches, fast mode and place where Claude Code records them', async () => {
    const t = (n: number) => `2026-11-20T10:00:0${n}.000Z`;
    const usage: Usage = {
      input: 12,
      output: 800,
      cacheRead: 30,
      cacheWrite: 500,
      cacheWrite1h: 200,
      reasoning: 600,
      webSearches: 2,
      speed: 'fast',
      inferenceGeo: 'us',
    };
    const session: Session = {
      id: 'codex-think',
      source: 'codex',
      project: '/work/think',
      createdAt: t(0),
      updatedAt: t(2),
      messageCount: 2,
      entries: [
        messageEntry('c1', null, t(1), textMessage('user', 'why')),
        messageEntry('c2', 'c1', t(2), {
          role: 'assistant',
          model: 'gpt-5.5',
          usage,
          parts: [{ type: 'text', text: 'because' }],
        }),
      ],
    };
    const d = new ClaudeDriver(env);
    const info = await d.writeSession(session);
    const rec = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { usage?: Record<string, unknown> } })
      .find((r) => r.type === 'assistant');
    expect(rec?.message?.usage?.output_tokens_details).toEqual({ thinking_tokens: 600 });
    expect(rec?.message?.usage?.cache_creation).toEqual({ ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 200 });
    expect(rec?.message?.usage).toMatchObject({
      server_tool_use: { web_search_requests: 2 },
      speed: 'fast',
      inference_geo: 'us',
    });
    const back = (await d.getSession(info.id)) as Session;
    const reply = back.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(reply?.kind === 'message' && reply.message.usage).toEqual(usage);
  });

  it("writes OpenAI reasoning as the text Claude Code sends, and reads it back as that reasoning with its encrypted content and its image's detail", async () => {
    const t = (n: number) => `2026-11-20T10:00:0${n}.000Z`;
    const reasoning = { codexItemId: 'rs_1', encryptedContent: 'gAAAAB-enc', summaryParts: ['I will run it.'] };
    const session = codexReasoningSession({
      id: 'codex-reasoning',
      source: 'codex',
      project: '/work/reasoning',
      imageData: 'iVBORw0K',
      thinking: 'I will run it.',
      reasoning,
      at: t,
    });
    const d = new ClaudeDriver(env);
    const info = await d.writeSession(session);
    const records = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown }; threadbase?: unknown });
    // what Claude Code reads and sends: the reasoning as text, the image as an Anthropic block
    const reply = records.find((r) => r.type === 'assistant');
    expect(reply?.message?.content).toEqual([
      { type: 'text', text: 'I will run it.' },
      { type: 'tool_use', id: 'call_1', name: 'exec_command', input: { cmd: 'ls' } },
    ]);
    expect(reply?.threadbase).toEqual({ parts: [{ block: 0, thinking: true, meta: reasoning }] });
    const prompt = records.find((r) => r.type === 'user');
    expect(prompt?.message?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
      { type: 'text', text: 'RUN: ls' },
    ]);
    // read back: the reasoning and the image's detail as they were, for the way back to codex
    const back = (await d.getSession(info.id)) as Session;
    const parts = back.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts.find((p) => p.type === 'thinking')).toEqual({
      type: 'thinking',
      thinking: 'I will run it.',
      meta: { ...reasoning, claudeText: true },
    });
    expect(parts.find((p) => p.type === 'image')?.meta).toEqual({ detail: 'high' });
    // and the context is still what Claude Code sends: the reasoning as text, before the call
    const ctx = contextToAnthropic(await d.getContext(info.id)).messages;
    expect(ctx[1]).toEqual({ role: 'assistant', content: reply?.message?.content });
  });

  it('counts the thinking tokens Claude Code records as reasoning and its 1-hour cache writes, and writes them back', async () => {
    const file = join(home, '.claude', 'projects', '-work-think', `${S2}.jsonl`);
    await fs.mkdir(join(home, '.claude', 'projects', '-work-think'), { recursive: true });
    const base = { sessionId: S2, cwd: '/work/think', isSidechain: false, version: '2.1.330' };
    const usage = {
      input_tokens: 10,
      output_tokens: 900,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 4000,
      output_tokens_details: { thinking_tokens: 700 },
      cache_creation: { ephemeral_1h_input_tokens: 4000, ephemeral_5m_input_tokens: 0 },
      // as Claude Code records a standard request: nothing that changes its price
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: 'standard',
      speed: 'standard',
      inference_geo: '',
    };
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: 't1',
        parentUuid: null,
        timestamp: '2026-11-20T10:00:00.000Z',
        message: { role: 'user', content: 'think hard' },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 't2',
        parentUuid: 't1',
        timestamp: '2026-11-20T10:00:05.000Z',
        requestId: 'req_t',
        message: {
          id: 'msg_t',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-5-5',
          content: [{ type: 'text', text: 'done' }],
          usage,
        },
      },
    ];
    await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const d = new ClaudeDriver(env);
    const session = (await d.getSession(S2)) as Session;
    expect(summarizeUsage(session.entries).usage).toEqual({
      input: 10,
      output: 900,
      cacheRead: 0,
      cacheWrite: 4000,
      cacheWrite1h: 4000,
      reasoning: 700,
    });
    const conv = await cli(['convert', S2, '--to', 'claude', '--json']);
    expect(conv.code, conv.err).toBe(0);
    const written = (await fs.readFile((JSON.parse(conv.out) as { path: string }).path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { usage?: unknown } })
      .find((r) => r.type === 'assistant');
    expect(written?.message?.usage).toEqual(usage);
  });

  it("adds a resumed stream's paused responses to its usage, once per response, as Claude Code's stats do", async () => {
    const dirName = '-work-paused';
    const id = '7a1e0b7e-0000-4000-8000-00000000a11e';
    await fs.mkdir(join(home, '.claude', 'projects', dirName), { recursive: true });
    const base = { sessionId: id, cwd: '/work/paused', isSidechain: false, version: '2.1.331' };
    // as Claude Code writes a resumed stream: every record of the response carries the paused ones
    const message = (content: unknown[]) => ({
      id: 'msg_resumed',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-5',
      content,
      usage: { input_tokens: 30, output_tokens: 400, cache_read_input_tokens: 9000, cache_creation_input_tokens: 0 },
      pausedResponses: [
        {
          limit: 'output_tokens',
          usage: { input_tokens: 2000, output_tokens: 8000, cache_read_input_tokens: 500, cache_creation_input_tokens: 1500 },
          finishedBlocks: 1,
          requestId: 'req_first',
          resumedRequestId: 'req_second',
        },
      ],
    });
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: 'p1',
        parentUuid: null,
        timestamp: '2026-11-25T10:00:00.000Z',
        message: { role: 'user', content: 'write it all' },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'p2',
        parentUuid: 'p1',
        timestamp: '2026-11-25T10:01:00.000Z',
        message: message([{ type: 'thinking', thinking: 'long', signature: 's' }]),
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'p3',
        parentUuid: 'p2',
        timestamp: '2026-11-25T10:02:00.000Z',
        message: message([{ type: 'text', text: 'all of it' }]),
      },
    ];
    await fs.writeFile(
      join(home, '.claude', 'projects', dirName, `${id}.jsonl`),
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    const session = (await new ClaudeDriver(env).getSession(id)) as Session;
    expect(summarizeUsage(session.entries).usage).toEqual({
      input: 2030,
      output: 8400,
      cacheRead: 9500,
      cacheWrite: 1500,
      reasoning: 0,
    });
  });

  it('writes a session from another agent, carrying a compaction with kept entries as a preserved segment', async () => {
    const t = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const session: Session = {
      id: 'pi-1',
      source: 'pi',
      project: '/work/other',
      createdAt: t(0),
      updatedAt: t(6),
      messageCount: 4,
      entries: [
        messageEntry('p1', null, t(1), textMessage('user', 'old')),
        messageEntry('p2', 'p1', t(2), textMessage('assistant', 'kept answer')),
        { kind: 'compaction', id: 'p3', parentId: 'p2', timestamp: t(3), summary: 'summary of old', firstKeptEntryId: 'p2' },
        messageEntry('p4', 'p3', t(4), textMessage('user', 'new')),
        { kind: 'model_change', id: 'p5', parentId: 'p4', timestamp: t(5), model: 'x' },
        messageEntry('p6', 'p5', t(6), textMessage('assistant', 'new answer')),
      ],
    };
    const d = new ClaudeDriver(env);
    const info = await d.writeSession(session);
    expect(info.path).toBe(join(home, '.claude', 'projects', '-work-other', `${info.id}.jsonl`));
    const ctx = contextToAnthropic(await d.getContext(info.id));
    expect(ctx.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'summary of old' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'kept answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'new' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'new answer' }] },
    ]);
    await expect(d.writeSession({ ...session, id: info.id }, { keepId: true })).resolves.not.toMatchObject({ id: info.id });
  });
});
