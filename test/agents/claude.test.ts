/**
 * The real Claude Code (`claude -p`, its native binary) against the loopback Anthropic stand-in:
 * - it records real sessions: a Bash tool call that really runs, a --resume, a background
 *   sub-agent, a /compact, a --fork-session, parallel Bash calls laid out in each way it writes them
 *   (a proxy pausing the stream between blocks);
 * - threadbase lists them and links the sub-agent to its parent session and spawning tool call;
 * - threadbase's context of each equals the messages Claude Code sends when it resumes it;
 * - sessions threadbase writes (from scratch, by `convert --to claude`, by `fork`) are resumed
 *   by Claude Code with exactly threadbase's context.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, claudeWording, encodeProjectPath } from '../../src/formats/claude/index.js';
import { opencodeContext } from '../../src/formats/opencode/context.js';
import { piContext } from '../../src/formats/pi/driver.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { type AgentHome, CLAUDE_BIN, type ClaudeResult, runClaude, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest, Rule, StandIn } from '../helpers/anthropic-standin.js';
import { type Block, conversation, type Msg } from '../helpers/claude-requests.js';
import { runCli } from '../helpers/cli.js';
import {
  chainSession,
  emptyReplySession,
  messageEntry,
  parallelCallSessions,
  repeatedToolIdSession,
  secondInto2026,
  textMessage,
} from '../helpers/sessions.js';

let agentHome: AgentHome;
let standIn: StandIn;
let root: string;
let project: string;
let env: DriverEnv;
let mainId: string;
let forkId: string;

/** `claude -p …` in the temp project, offline against the stand-in (test/helpers/agents.ts). */
function claude(args: string[], prompt: string): Promise<ClaudeResult> {
  return runClaude(agentHome, args, prompt);
}

/** Runs the threadbase CLI in-process; returns exit code, stdout and stderr. */
function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCli(env, args);
}

/** threadbase's `context <id> --format anthropic`. */
async function ourContext(id: string): Promise<Msg[]> {
  const r = await cli(['context', id, '--source', 'claude', '--format', 'anthropic']);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { messages: Msg[] }).messages;
}

/** Text parts, one per text. */
const said = (...texts: string[]) => texts.map((text) => ({ type: 'text' as const, text }));

/** One record of a Claude response (`responseId`) another agent's session holds, with its usage. */
const reply = (responseId: string, parts: Message['parts']): Message => ({
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  responseId,
  usage: { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  parts,
});

/** The conversation a request carried before `probe`, the last text of its last user turn. */
function beforeProbe(req: AnthropicRequest, probe: string): Msg[] {
  const sent = conversation(req.messages as Msg[]);
  const last = sent[sent.length - 1] as Msg;
  const blocks = last.content as Block[];
  expect(last.role).toBe('user');
  expect(blocks[blocks.length - 1]).toEqual({ type: 'text', text: probe });
  if (blocks.length === 1) sent.pop();
  else last.content = blocks.slice(0, -1);
  return sent;
}

function requestWith(probe: string, from = 0): AnthropicRequest {
  const req = standIn
    .messageRequests()
    .slice(from)
    .find((r) => JSON.stringify(r.messages).includes(probe));
  if (!req) throw new Error(`no request carried the probe ${probe}`);
  return req;
}

/** Resumes `id` with a probe prompt; returns the conversation Claude Code sent before the probe. */
async function resumedConversation(
  id: string,
  probe: string,
  extra: string[] = [],
): Promise<{ sent: Msg[]; result: ClaudeResult }> {
  const before = standIn.messageRequests().length;
  const result = await claude(['--resume', id, ...extra], probe);
  return { sent: beforeProbe(requestWith(probe, before), probe), result };
}

/**
 * A fixture transcript (test/fixtures/claude/<name>, with the request Claude Code sent when it was
 * recorded) installed as a session of this project under a fresh id and resumed with `probe`: our
 * context is what Claude Code sends, and what it sends before the prompt is still the recorded
 * request's (whose own prompt, when given, was `recordedPrompt`).
 */
async function resumeFixture(name: string, probe: string, recordedPrompt?: string): Promise<void> {
  const fixture = resolve('test/fixtures/claude', name);
  const golden = JSON.parse(await fs.readFile(join(fixture, 'request.json'), 'utf8')) as { sessionId: string; messages: Msg[] };
  const id = randomUUID();
  const dir = join(root, '.claude', 'projects', encodeProjectPath(project));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    join(dir, `${id}.jsonl`),
    (await fs.readFile(join(fixture, 'transcript.jsonl'), 'utf8')).replaceAll(golden.sessionId, id),
  );
  const ours = conversation(await ourContext(id));
  const { sent } = await resumedConversation(id, probe);
  expect(ours, name).toEqual(sent);
  const recorded = conversation(golden.messages);
  if (recordedPrompt !== undefined)
    expect(recorded.at(-1), name).toEqual({ role: 'user', content: [{ type: 'text', text: recordedPrompt }] });
  expect(sent, name).toEqual(recorded.slice(0, -1));
}

async function treeDigest(dir: string): Promise<string> {
  const h = createHash('sha256');
  const walk = async (d: string): Promise<void> => {
    for (const e of (await fs.readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) h.update(p).update(await fs.readFile(p));
    }
  };
  await walk(dir);
  return h.digest('hex');
}

/**
 * Plain prompts get `ok: <prompt>` so ordinary answers differ from a summary (the default rules
 * answer with a summary whenever the system prompt mentions summaries and conversations, which
 * Claude Code's does); tool calls, sub-agents and real compaction requests fall through to them.
 */
const plainAnswer: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last) return undefined;
  const blocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  if (blocks.some((b) => b.type === 'tool_result')) return undefined;
  const texts = blocks.flatMap((b) =>
    b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>') ? [b.text] : [],
  );
  const text = texts[texts.length - 1] ?? '';
  // A failed request, an empty reply, a thinking-only reply (only for the prompt itself, not a later resume of it).
  if (text.startsWith('FAILME')) return { error: { status: 400, type: 'invalid_request_error', message: 'boom' } };
  if (text.startsWith('EMPTY')) return { text: '' };
  if (text.startsWith('THINKONLY')) return { thinking: 'just thinking' };
  const slow = req.tools?.find((t) => /^bash$/i.test(t.name));
  if (text.startsWith('SLOW') && slow)
    return {
      text: 'running',
      toolUse: { name: slow.name, input: { command: 'python3 -c "import time; time.sleep(30)"', description: 'sleep' } },
    };
  const parallel = /RUN2: (.+) ;; (.+)/.exec(text);
  const run = /RUN: (.+)/.exec(text);
  const bash = req.tools?.find((t) => /^bash$/i.test(t.name));
  // A tool call with signed thinking before it: Claude Code records the two blocks as two lines sharing message.id.
  // Two tool calls in one response (parallel calls).
  if (parallel && bash)
    return {
      toolUses: [1, 2].map((i) => ({
        name: bash.name,
        input: { command: (parallel[i] as string).trim(), description: `run ${i}` },
      })),
    };
  if (run && bash)
    return {
      thinking: 'I will run it.',
      toolUse: { name: bash.name, input: { command: (run[1] as string).trim(), description: 'run command' } },
    };
  if (!text || /RUN2?:|AGENT:|summary/i.test(text)) return undefined;
  return { text: `ok: ${text.slice(0, 60)}` };
};

/**
 * `PARALLEL <word>`: one response of text and three Bash calls echoing <word>-a, -b and -c (parallel
 * calls); their results get the default rules' "Tool finished: …".
 */
const parallelAnswer: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
  if (blocks.some((b) => b.type === 'tool_result')) return undefined;
  const text = blocks.flatMap((b) =>
    b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>') ? [b.text] : [],
  );
  const word = /^PARALLEL (\w+)$/.exec(text[text.length - 1] ?? '')?.[1];
  const bash = req.tools?.find((t) => /^bash$/i.test(t.name));
  if (!word || !bash) return undefined;
  return {
    text: 'Running three.',
    toolUses: ['a', 'b', 'c'].map((x) => ({
      name: bash.name,
      input: { command: `echo ${word}-${x}`, description: `echo ${x}` },
    })),
  };
};

/**
 * A loopback proxy in front of the stand-in that pauses a streamed answer for a second after the
 * content blocks `pauseAfter` picks, so Claude Code runs a call (and records its result) before the
 * next block of the response arrives, as it does with a slow stream.
 */
async function pausingProxy(target: string) {
  const to = new URL(target);
  let pauseAfter: (index: number) => boolean = () => false;
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const up = httpRequest(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        async (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const chunks: Buffer[] = [];
          for await (const c of answer) chunks.push(c as Buffer);
          const text = Buffer.concat(chunks).toString();
          if (!String(answer.headers['content-type']).includes('event-stream')) {
            res.end(text);
            return;
          }
          for (const event of text.split('\n\n')) {
            if (!event.trim()) continue;
            res.write(`${event}\n\n`);
            const stop = /^event: content_block_stop\ndata: (.*)$/s.exec(event);
            if (stop && pauseAfter((JSON.parse(stop[1] as string) as { index: number }).index))
              await new Promise((r) => setTimeout(r, 1000));
          }
          res.end();
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    pause(after: (index: number) => boolean) {
      pauseAfter = after;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

beforeAll(async () => {
  agentHome = await setupAgentHome({ rules: [parallelAnswer, plainAnswer] });
  ({ standIn, root, project } = agentHome);
  env = { home: root, env: { HOME: root } };
  const first = await claude(['--allowedTools', 'Bash'], 'RUN: echo hi > out.txt');
  mainId = first.session_id;
  await claude(['--allowedTools', 'Bash', '--resume', mainId], 'RUN2: echo a > a.txt ;; echo b > b.txt');
  await claude(['--allowedTools', 'Bash', '--resume', mainId], 'AGENT: say hello');
  const compacted = await claude(['--resume', mainId], '/compact');
  expect(compacted.is_error).not.toBe(true);
  await claude(['--resume', mainId], 'continue after it');
  expect(standIn.messageRequests().length).toBeGreaterThan(5);
  forkId = (await claude(['--resume', mainId, '--fork-session'], 'in the fork')).session_id;
});

afterAll(async () => {
  await agentHome?.close();
});

describe('real Claude Code sessions', () => {
  it('ran the tool call for real', async () => {
    expect((await fs.readFile(join(project, 'out.txt'), 'utf8')).trim()).toBe('hi');
    expect((await fs.readFile(join(project, 'a.txt'), 'utf8')).trim()).toBe('a');
    expect((await fs.readFile(join(project, 'b.txt'), 'utf8')).trim()).toBe('b');
  });

  it('lists every session, the sub-agent linked to its parent and tool call; listing modifies nothing', async () => {
    const before = await treeDigest(join(root, '.claude'));
    const r = await cli(['sessions', '--source', 'claude', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { id: string; parentId: string | null; project: string | null; messageCount: number }[];
    const ids = rows.map((x) => x.id);
    expect(ids).toContain(mainId);
    expect(ids).toContain(forkId);
    // the --fork-session fork names mainId as its parent too (its copied replies' requestSessionId)
    expect(rows.find((x) => x.id === forkId)?.parentId).toBe(mainId);
    const sub = rows.find((x) => x.parentId === mainId && x.id !== forkId);
    expect(sub, 'sub-agent listed as child of the main session').toBeDefined();
    expect(rows.find((x) => x.id === mainId)?.project).toBe(await fs.realpath(project).catch(() => project));

    const infos = await new ClaudeDriver(env).listSessions();
    const subInfo = infos.find((s) => s.id === sub?.id);
    const main = await new ClaudeDriver(env).getSession(mainId);
    const agentCalls = (main as Session).entries.flatMap((e) =>
      e.kind === 'message' ? e.message.parts.filter((p) => p.type === 'tool_call' && p.name === 'Agent') : [],
    );
    expect(agentCalls).toHaveLength(1);
    expect(subInfo?.parentToolCallId).toBe((agentCalls[0] as { id: string }).id);
    const shown = await cli(['show', sub?.id as string, '--json']);
    expect(shown.code, shown.err).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ parentId: mainId, parentToolCallId: (agentCalls[0] as { id: string }).id });
    // the sub-agent's own transcript reads: its prompt and its answer
    const subCtx = await ourContext(sub?.id as string);
    expect(subCtx[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'say hello' }] });
    expect(subCtx.some((m) => m.role === 'assistant')).toBe(true);
    // and equals what the sub-agent sent the model, plus the answer it got
    const subReq = standIn.messageRequests().find((q) => {
      const conv = conversation(q.messages as Msg[]);
      return (
        conv.length === 1 &&
        JSON.stringify(conv[0]) === JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'say hello' }] })
      );
    });
    expect(subReq, 'the sub-agent request').toBeDefined();
    expect(conversation(subCtx)).toEqual([
      ...conversation((subReq as AnthropicRequest).messages as Msg[]),
      { role: 'assistant', content: [{ type: 'text', text: 'ok: say hello' }] },
    ]);

    // the thinking + tool_use response was split over two records; the context has it as one message
    const split = (main as Session).entries.filter(
      (e) => e.kind === 'message' && e.message.role === 'assistant' && e.message.parts.some((p) => p.type === 'thinking'),
    );
    expect(split).toHaveLength(1);
    const thinking = split[0] as Entry & { kind: 'message' };
    const next = (main as Session).entries.find((e) => e.parentId === thinking.id);
    expect(thinking.message.parts.map((p) => p.type)).toEqual(['thinking']);
    expect(next?.kind === 'message' && next.message.responseId).toBe(thinking.message.responseId);
    expect(next?.kind === 'message' && next.message.parts.map((p) => p.type)).toEqual(['tool_call']);
    // a compaction was read as one, with Claude Code's own summary record
    expect(main?.entries.some((e) => e.kind === 'compaction' && e.summary.includes('Stand-in summary'))).toBe(true);
    expect(await treeDigest(join(root, '.claude'))).toBe(before);
  });

  it('context before the compaction (signed thinking + tool call split over records) equals the resume request', async () => {
    const s = (await new ClaudeDriver(env).getSession(mainId)) as Session;
    const prompt = s.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'AGENT: say hello'),
    );
    if (!prompt?.parentId) throw new Error('the AGENT prompt is not in the session');
    const r = await cli(['context', mainId, '--leaf', prompt.parentId, '--format', 'anthropic']);
    expect(r.code, r.err).toBe(0);
    const ours = conversation((JSON.parse(r.out) as { messages: Msg[] }).messages);
    expect(ours).toEqual(beforeProbe(requestWith('AGENT: say hello'), 'AGENT: say hello'));
    const call = ours[1]?.content as Block[];
    expect(call.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(call[0]?.signature).toBeTruthy();
    // the parallel calls: one assistant message with both tool_use blocks, one user turn with both results
    const both = ours.findIndex(
      (m) => m.role === 'assistant' && (m.content as Block[]).filter((b) => b.type === 'tool_use').length === 2,
    );
    expect(both).toBeGreaterThan(0);
    expect(((ours[both + 1]?.content ?? []) as Block[]).filter((b) => b.type === 'tool_result')).toHaveLength(2);
  });

  it('context of the compacted main session equals what Claude Code sends on resume', async () => {
    const ours = conversation(await ourContext(mainId));
    const { sent } = await resumedConversation(mainId, 'probe main');
    expect(ours).toEqual(sent);
    // compaction applied: the summary first, the earlier tool call gone, the later turn kept
    const text = JSON.stringify(ours);
    expect(JSON.stringify(ours[0])).toContain('Stand-in summary of the conversation so far');
    expect(text).not.toContain('echo hi > out.txt');
    expect(text).toContain('ok: continue after it');
  });

  it('context of the --fork-session fork equals what Claude Code sends on resume', async () => {
    const ours = conversation(await ourContext(forkId));
    const { sent } = await resumedConversation(forkId, 'probe fork');
    expect(ours).toEqual(sent);
    expect(JSON.stringify(ours)).toContain('in the fork');
  });

  it('a session written from scratch by writeSession is resumed with exactly its context', async () => {
    const session = chainSession('scratch', 'threadbase', project, [
      ['a', textMessage('user', 'list files')],
      [
        'b',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          responseId: 'msg_scratch_1',
          parts: [
            { type: 'text', text: 'Listing.' },
            { type: 'tool_call', id: 'toolu_scratch_1', name: 'Bash', input: { command: 'ls', description: 'list' } },
          ],
        },
      ],
      ['c', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_scratch_1', content: 'out.txt' }] }],
      [
        'd',
        {
          role: 'assistant',
          responseId: 'msg_scratch_2',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'text', text: 'One file: out.txt' }],
        },
      ],
    ]);
    const info = await new ClaudeDriver(env).writeSession(session);
    expect(info.path).toContain(join('projects', project.replace(/[^A-Za-z0-9]/g, '-')));
    const ours = conversation(await ourContext(info.id));
    expect(ours).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'list files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool_use', id: 'toolu_scratch_1', name: 'Bash', input: { command: 'ls', description: 'list' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_scratch_1', content: 'out.txt' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'One file: out.txt' }] },
    ]);
    const { sent } = await resumedConversation(info.id, 'probe scratch');
    expect(sent).toEqual(ours);
  });

  it('a foreign compaction with kept entries is written as a preserved segment Claude Code honours', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 2, 0, 0, s)).toISOString();
    const session: Session = {
      id: 'pi-like',
      source: 'pi',
      project,
      createdAt: t(0),
      updatedAt: t(6),
      messageCount: 4,
      entries: [
        messageEntry('p1', null, t(1), textMessage('user', 'old question')),
        messageEntry('p2', 'p1', t(2), textMessage('assistant', 'kept answer')),
        {
          kind: 'compaction',
          id: 'p3',
          parentId: 'p2',
          timestamp: t(3),
          summary: 'Summary: the user asked an old question.',
          firstKeptEntryId: 'p2',
        },
        messageEntry('p4', 'p3', t(4), textMessage('user', 'new question')),
        messageEntry('p5', 'p4', t(5), textMessage('assistant', 'new answer')),
      ],
    };
    const info = await new ClaudeDriver(env).writeSession(session);
    const ours = conversation(await ourContext(info.id));
    expect(ours).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Summary: the user asked an old question.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'kept answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'new question' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'new answer' }] },
    ]);
    expect((await resumedConversation(info.id, 'probe preserved')).sent).toEqual(ours);
  });

  it('convert --to claude and fork --at write sessions Claude Code resumes with the same context', async () => {
    const conv = await cli(['convert', mainId, '--source', 'claude', '--to', 'claude', '--json']);
    expect(conv.code, conv.err).toBe(0);
    const written = JSON.parse(conv.out) as { id: string; source: string; path: string };
    expect(written.source).toBe('claude');
    expect(written.id).not.toBe(mainId);
    await fs.access(written.path);
    const source = conversation(await ourContext(mainId));
    const convCtx = conversation(await ourContext(written.id));
    expect(convCtx).toEqual(source);
    expect((await resumedConversation(written.id, 'probe convert')).sent).toEqual(convCtx);

    // fork at the first assistant answer of the main session (before the compaction)
    const main = (await new ClaudeDriver(env).getSession(mainId)) as Session;
    const firstAnswer = main.entries.find(
      (e) => e.kind === 'message' && e.message.role === 'assistant' && e.message.parts.some((p) => p.type === 'text'),
    );
    if (!firstAnswer) throw new Error('no assistant answer in the main session');
    const prefix = firstAnswer.id.slice(0, 8);
    const forked = await cli(['fork', mainId.slice(0, 8), '--source', 'claude', '--at', firstAnswer.id, '--json']);
    expect(forked.code, forked.err).toBe(0);
    const f = JSON.parse(forked.out) as { id: string; parentId: string };
    expect(f.parentId).toBe(mainId);
    const forkCtx = conversation(await ourContext(f.id));
    expect(forkCtx.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(forkCtx)).toContain('echo hi > out.txt');
    const forkInfo = (await new ClaudeDriver(env).listSessions()).find((s) => s.id === f.id);
    expect(forkInfo?.parentId).toBe(mainId);
    expect(forkInfo?.parentEntryId?.startsWith(prefix)).toBe(true);
    expect((await resumedConversation(f.id, 'probe fork at')).sent).toEqual(forkCtx);
  });

  it('an API error, an empty reply and a thinking-only reply: Claude Code resumes with exactly our context', async () => {
    for (const prompt of ['FAILME please', 'EMPTY please', 'THINKONLY please']) {
      const id = (await claude([], `hello before ${prompt}`)).session_id;
      // the failed request makes claude exit 1; its transcript is what matters here
      await claude(['--resume', id], prompt).catch((err: Error) => expect(err.message).toContain('API Error: 400 boom'));
      const ours = await ourContext(id);
      const before = standIn.messageRequests().length;
      const { sent } = await resumedConversation(id, `probe ${prompt}`);
      const expected = conversation(ours);
      // a context that ends on the user's side: Claude Code joins the next prompt to that turn, after a newline
      const lastBlock = (expected.at(-1)?.role === 'user' ? expected.at(-1)?.content : []) as Block[];
      const tail = lastBlock.at(-1);
      if (tail?.type === 'text') lastBlock[lastBlock.length - 1] = { ...tail, text: `${tail.text}\n` };
      expect(expected, prompt).toEqual(sent);
      // the failed reply is not sent; a prompt left without reply is answered "No response requested."
      if (prompt !== 'FAILME please')
        expect(sent.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'No response requested.' }] });
      expect(JSON.stringify(sent)).not.toContain('API Error');
      if (prompt !== 'FAILME please') {
        // the no-output nudge, wrapped as Claude Code wraps it (conversation() leaves reminders out)
        const nudge = (b: unknown) => JSON.stringify(b).includes('no visible output');
        const raw = requestWith(`probe ${prompt}`, before).messages.flatMap((m) =>
          typeof m.content === 'string' ? [] : m.content,
        );
        const { cache_control: _c, ...theirs } = raw.find(nudge) as Block;
        expect(ours.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).find(nudge)).toEqual(theirs);
      }
    }
    const failed = (await cli(['sessions', '--source', 'claude', '--json'])).out;
    expect(failed).not.toContain('<synthetic>');
  });

  it('a tool call the killed process never answered: Claude Code resumes with exactly our context', async () => {
    const id = (await claude([], 'hello before SLOW')).session_id;
    const child = spawn(
      CLAUDE_BIN,
      ['-p', '--output-format', 'json', '--allowedTools', 'Bash', '--resume', id, '--', 'SLOW please'],
      {
        cwd: project,
        env: {
          PATH: process.env.PATH,
          HOME: root,
          ANTHROPIC_BASE_URL: standIn.url,
          ANTHROPIC_API_KEY: 'x',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        stdio: 'ignore',
      },
    );
    const closed = new Promise((done) => child.on('close', done));
    const file = (await new ClaudeDriver(env).listSessions()).find((x) => x.id === id)?.path as string;
    for (let i = 0; i < 300 && !(await fs.readFile(file, 'utf8')).includes('"tool_use"'); i++)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGKILL');
    await closed;
    const ours = conversation(await ourContext(id));
    const last = ours.at(-2)?.content as Block[];
    expect(last).toEqual([expect.objectContaining({ type: 'tool_result', is_error: true })]);
    expect(String(last[0]?.content)).toMatch(/^\[Tool call interrupted/);
    expect((await resumedConversation(id, 'probe killed')).sent).toEqual(ours);
  });

  it('an assistant message with no content (an errored turn elsewhere) is written so Claude Code resumes with our context', async () => {
    const info = await new ClaudeDriver(env).writeSession(emptyReplySession(project, ['e1', 'e2', 'e3', 'e4'], 1));
    const ours = conversation(await ourContext(info.id));
    expect(ours).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q1\n' },
          { type: 'text', text: 'q2' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'a2' }] },
    ]);
    expect((await resumedConversation(info.id, 'probe errored')).sent).toEqual(ours);
  });

  it("another agent's failed turns (an error, a skipped call with its result) are left out on resume, as that agent leaves them out", async () => {
    const t = secondInto2026;
    const entry = (id: string, parentId: string | null, message: Message): Entry =>
      messageEntry(id, parentId, id.charCodeAt(1), message);
    const session: Session = {
      id: 'failed-turns',
      source: 'pi',
      project,
      createdAt: t(0),
      updatedAt: t(99),
      messageCount: 7,
      entries: [
        entry('f1', null, { role: 'user', parts: said('q1') }),
        entry('f2', 'f1', {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          responseId: 'msg_failed_f2',
          usage: { input: 9, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          stopReason: 'error',
          error: 'overloaded_error: Overloaded',
          parts: [{ type: 'thinking', thinking: 'Let me see.', signature: 'c2ln' }, ...said('The answer is')],
        }),
        entry('f3', 'f2', { role: 'user', parts: said('q2') }),
        entry('f4', 'f3', {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          error: 'APIError: connection reset',
          parts: [...said('running it'), { type: 'tool_call', id: 'toolu_failed_f4', name: 'Bash', input: { command: 'ls' } }],
          meta: { excludedFromContext: true },
        }),
        entry('f5', 'f4', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_failed_f4', content: 'out.txt' }] }),
        entry('f6', 'f5', { role: 'user', parts: said('q3') }),
        entry('f7', 'f6', { role: 'assistant', model: 'claude-sonnet-4-5', responseId: 'msg_ok_f7', parts: said('a3') }),
      ],
    };
    const info = await new ClaudeDriver(env).writeSession(session);
    const ours = conversation(await ourContext(info.id));
    expect(ours).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q1\n' },
          { type: 'text', text: 'q2\n' },
          { type: 'text', text: 'q3' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'a3' }] },
    ]);
    expect((await resumedConversation(info.id, 'probe failed turns')).sent).toEqual(ours);
    // still all there for threadbase
    const back = (await new ClaudeDriver(env).getSession(info.id)) as Session;
    const failed = back.entries.flatMap((e) => (e.kind === 'message' && e.message.stopReason === 'error' ? [e.message] : []));
    expect(failed.map((m) => [m.model, m.error, m.parts.map((p) => p.type)])).toEqual([
      ['claude-sonnet-4-5', 'overloaded_error: Overloaded', ['thinking', 'text']],
      ['claude-sonnet-4-5', 'APIError: connection reset', ['text', 'tool_call']],
    ]);
  });
  it('one response split over records, some with no blocks: Claude Code resumes the fixture and what we write with exactly our context', async () => {
    // the fixture transcript (test/fixtures/claude/split-empty), as a session of this project; the recorded request still is what this Claude Code sends
    await resumeFixture('split-empty', 'probe split', 'probe');

    // another agent's split responses with records of no blocks, written by us
    const entries: [string, Message][] = [
      ['s1', { role: 'user', parts: said('q1') }],
      ['s2', reply('resp_s1', [{ type: 'thinking', thinking: 'Checking.', signature: 'c2ln' }])],
      ['s3', reply('resp_s1', [])],
      ['s4', reply('resp_s1', [{ type: 'tool_call', id: 'toolu_split_s4', name: 'Bash', input: { command: 'ls' } }])],
      ['s5', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_split_s4', content: 'out.txt' }] }],
      ['s6', reply('resp_s2', said('one file'))],
      ['s7', reply('resp_s2', [])],
      ['s8', { role: 'user', parts: said('q2') }],
      ['s9', reply('resp_s3', [])],
      ['s10', { role: 'user', parts: said('q3') }],
      ['s11', reply('resp_s4', said('a3'))],
    ];
    const info = await new ClaudeDriver(env).writeSession(chainSession('split-written', 'codex', project, entries));
    const written = conversation(await ourContext(info.id));
    expect(written.map((m) => (m.content as Block[]).map((b) => b.text ?? b.type))).toEqual([
      ['q1'],
      ['thinking', 'tool_use'],
      ['tool_result'],
      ['one file'],
      ['q2\n', 'q3'],
      ['a3'],
    ]);
    expect((await resumedConversation(info.id, 'probe split written')).sent).toEqual(written);
  });

  it('blank text in replies and prompts: Claude Code resumes the fixture and what we write with exactly our context', async () => {
    // the fixture transcript (test/fixtures/claude/blank-text), as a session of this project; the recorded request still is what this Claude Code sends
    await resumeFixture('blank-text', 'probe blank', 'probe');

    // another agent's blank text, written by us: a reply of one record keeps its whitespace, a
    // response split over records does not, a prompt of blocks loses its blank ones
    const entries: [string, Message][] = [
      ['b1', { role: 'user', parts: said('q1', '  ') }],
      ['b2', reply('resp_b1', said('hello', '  '))],
      ['b3', { role: 'user', parts: said('   ') }],
      ['b4', reply('resp_b2', said('one', ' '))],
      ['b5', reply('resp_b2', said('two'))],
      ['b6', { role: 'user', parts: said('q3') }],
      [
        'b7',
        reply('resp_b3', [...said(''), { type: 'tool_call', id: 'toolu_blank_b7', name: 'Bash', input: { command: 'ls' } }]),
      ],
      ['b8', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_blank_b7', content: 'out.txt' }] }],
      ['b9', reply('resp_b4', said('a3'))],
    ];
    const info = await new ClaudeDriver(env).writeSession(chainSession('blank-written', 'pi', project, entries));
    const written = conversation(await ourContext(info.id));
    expect(written.map((m) => (m.content as Block[]).map((b) => b.text ?? b.type))).toEqual([
      ['q1'],
      ['hello', '  '],
      ['   '],
      ['one', 'two'],
      ['q3'],
      ['tool_use'],
      ['tool_result'],
      ['a3'],
    ]);
    expect((await resumedConversation(info.id, 'probe blank written')).sent).toEqual(written);
  });

  it('parallel tool calls, however Claude Code lays out their records: it resumes them with exactly our context', async () => {
    const proxy = await pausingProxy(standIn.url);
    const slow = { ...agentHome, standIn: { ...standIn, url: proxy.url } };
    let id: string;
    try {
      // no pause: all calls, then the results; a pause after each block: each result before the next
      // call; a pause after the first call only: a mix
      id = (await runClaude(slow, ['--allowedTools', 'Bash'], 'PARALLEL one')).session_id;
      proxy.pause(() => true);
      await runClaude(slow, ['--allowedTools', 'Bash', '--resume', id], 'PARALLEL two');
      proxy.pause((index) => index === 1);
      await runClaude(slow, ['--allowedTools', 'Bash', '--resume', id], 'PARALLEL three');
    } finally {
      await proxy.close();
    }
    const file = (await new ClaudeDriver(env).listSessions()).find((x) => x.id === id)?.path as string;
    const records = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown } });
    // the order Claude Code wrote calls and results in, per prompt
    const layout = (word: string) =>
      records.flatMap((r) => {
        const transcript = r.type === 'user' || r.type === 'assistant'; // not the request logs
        const blocks = transcript && Array.isArray(r.message?.content) ? (r.message.content as Block[]) : [];
        return blocks.flatMap((b) => {
          if (b.type === 'tool_use' && String((b.input as { command?: string }).command).startsWith(`echo ${word}-`))
            return [`call ${String((b.input as { command: string }).command).slice(-1)}`];
          if (b.type === 'tool_result' && String(b.content).startsWith(`${word}-`))
            return [`result ${String(b.content).slice(-1)}`];
          return [];
        });
      });
    expect(layout('one').slice(0, 3)).toEqual(['call a', 'call b', 'call c']);
    expect(layout('two')).toEqual(['call a', 'result a', 'call b', 'result b', 'call c', 'result c']);
    expect(layout('three').slice(0, 3)).toEqual(['call a', 'result a', 'call b']);
    const ours = conversation(await ourContext(id));
    const { sent } = await resumedConversation(id, 'probe parallel');
    expect(ours).toEqual(sent);
    // each response one reply with its three calls, then one turn with the three results
    const replies = ours.filter((m) => m.role === 'assistant' && (m.content as Block[]).some((b) => b.type === 'tool_use'));
    expect(replies.map((m) => (m.content as Block[]).map((b) => b.type))).toEqual(
      Array(3).fill(['text', 'tool_use', 'tool_use', 'tool_use']),
    );
    // every call and result on the chain to the leaf; usage once per response, as Claude Code counts it
    const s = (await new ClaudeDriver(env).getSession(id)) as Session;
    const counted = summarizeUsage(s.entries);
    expect(counted.responses).toBe(7); // three with calls, three answers, the probe's
    // Claude Code's own count of the session so far (it writes one after each run, the probe's last)
    const costState = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string })
      .filter((r) => r.type === 'cost-state')
      .at(-1) as unknown as {
      modelUsage: Record<string, { inputTokens: number; outputTokens: number }>;
    };
    const theirs = Object.values(costState.modelUsage);
    expect({ input: counted.usage.input, output: counted.usage.output }).toEqual({
      input: theirs.reduce((n, u) => n + u.inputTokens, 0),
      output: theirs.reduce((n, u) => n + u.outputTokens, 0),
    });
  });

  it('parallel calls and calls after text (fixtures parallel-tools and tool-order): Claude Code still sends the recorded requests, which are our context', async () => {
    for (const name of ['parallel-tools', 'tool-order']) await resumeFixture(name, `probe ${name}`);
  });

  it("another agent's repeated and refused tool ids: Claude Code resumes every call with its result, as our context has them", async () => {
    const info = await new ClaudeDriver(env).writeSession(repeatedToolIdSession(project));
    const ours = conversation(await ourContext(info.id));
    const { sent } = await resumedConversation(info.id, 'probe repeated ids');
    expect(sent).toEqual(ours);
    // Claude Code drops a tool_use whose id came before (and its result): all three calls arrive
    const uses = sent.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'tool_use'));
    expect(uses.map((b) => (b.input as { command: string }).command)).toEqual(['ls', 'wc -l', 'date']);
    const results = sent.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'tool_result'));
    expect(results.map((b) => [b.tool_use_id, b.content])).toEqual(uses.map((u, i) => [u.id, `out ${i + 1}`]));
    // a --fork-session fork Claude Code makes of it keeps our threadbase field: its calls read back with the agent's ids
    const fork = (await claude(['--resume', info.id, '--fork-session'], 'probe repeated ids fork')).session_id;
    const forked = await new ClaudeDriver(env).getSession(fork);
    const ids = (forked?.entries ?? []).flatMap((e) =>
      e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])) : [],
    );
    expect(ids).toEqual(['functions.bash:0', 'functions.bash:0', 'call_7|fc_7']);
  });

  it("another agent's parallel calls written by us: Claude Code resumes them with our context, as that agent sends them (text after a call goes first)", async () => {
    const { pi, opencode } = parallelCallSessions(project);
    const source = (m: Message[]) => conversation(contextToAnthropic({ messages: claudeWording(m) }).messages as Msg[]);
    for (const [s, theirs] of [
      [pi, source(piContext(pi).messages)],
      [opencode, source(opencodeContext(opencode).messages)],
    ] as const) {
      const info = await new ClaudeDriver(env).writeSession(s);
      const ours = conversation(await ourContext(info.id));
      expect((await resumedConversation(info.id, `probe parallel ${s.source}`)).sent, s.source).toEqual(ours);
      // the source agent's own context, but for the reply with text after a call
      const moved = theirs.findIndex((m) => JSON.stringify(m).includes('and some text'));
      if (moved < 0) expect(ours, s.source).toEqual(theirs);
      else {
        expect(ours.filter((_, i) => i !== moved)).toEqual(theirs.filter((_, i) => i !== moved));
        expect(((ours[moved] as Msg).content as Block[]).map((b) => b.text ?? b.id)).toEqual([
          'and some text',
          'toolu_oc_3',
          'toolu_oc_4',
        ]);
        expect(((theirs[moved] as Msg).content as Block[]).map((b) => b.text ?? b.id)).toEqual([
          'toolu_oc_3',
          'and some text',
          'toolu_oc_4',
        ]);
      }
    }
  });
});
