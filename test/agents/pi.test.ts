/**
 * The real pi (@mariozechner/pi-coding-agent) against the loopback Anthropic stand-in, configured
 * as a custom provider in $HOME/.pi/agent/models.json, offline (PI_OFFLINE=1):
 * - threadbase reads sessions pi recorded (a real bash tool call, `-c` continue, `--fork`);
 * - the context threadbase builds (rendered by the `anthropic` context format) equals the messages
 *   pi sends on a further resume;
 * - pi resumes sessions threadbase wrote (branched in place, and encoded from model fields) with
 *   exactly threadbase's context.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { contextsAtEveryEntry } from '../fixtures/pi/compare.js';
import { type AgentHome, PI_MODEL, PI_PROVIDER, PiRpc, runPi, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest, StandIn } from '../helpers/anthropic-standin.js';
import { wireMessages } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { messageEntry, PRICE_TERMS, secondInto2026, textMessage } from '../helpers/sessions.js';

const PROVIDER = PI_PROVIDER;
const MODEL = PI_MODEL;

let agentHome: AgentHome;
let standIn: StandIn;
let home: string;
let project: string;
let env: DriverEnv;

/** `pi --provider … --model … <args>` in the project (test/helpers/agents.ts). */
function pi(args: string[], opts: { cwd?: string; mayFail?: boolean } = {}): Promise<string> {
  return runPi(agentHome, args, opts);
}

function cli(...args: string[]): Promise<string> {
  return runCliOk(env, args);
}

async function ourAnthropicContext(id: string, leaf?: string): Promise<AnthropicRequest> {
  return JSON.parse(await cli('context', id, '--format', 'anthropic', ...(leaf ? ['--leaf', leaf] : []))) as AnthropicRequest;
}

/** The first request pi sent since `mark` (the one carrying the resumed context). */
function firstRequestSince(mark: number): AnthropicRequest {
  const req = standIn.messageRequests().slice(mark)[0];
  if (!req) throw new Error('pi sent no request');
  return req;
}

async function sessions(): Promise<{ id: string; parentId: string | null; messageCount: number; project: string }[]> {
  return JSON.parse(await cli('sessions', '--source', 'pi', '--json'));
}

beforeAll(async () => {
  // `FAIL:` in the last user message makes the API answer with an error, so pi records an errored turn.
  agentHome = await setupAgentHome({
    rules: [
      (req) =>
        JSON.stringify(req.messages[req.messages.length - 1] ?? '').includes('FAIL:')
          ? { error: { status: 400, type: 'invalid_request_error' } }
          : undefined,
    ],
  });
  ({ standIn, root: home, project, env } = agentHome);
});

afterAll(async () => {
  await agentHome?.close();
});

describe('real pi', () => {
  let firstId = '';
  let firstPath = '';

  it('records a session with a real tool call that threadbase reads', async () => {
    await pi(['-p', 'RUN: echo hi > out.txt']);
    expect(await fs.readFile(join(project, 'out.txt'), 'utf8')).toBe('hi\n');
    const list = await sessions();
    expect(list).toHaveLength(1);
    firstId = list[0]?.id as string;
    expect(list[0]?.project).toBe(project);
    const s = (await new PiDriver(env).getSession(firstId)) as Session;
    firstPath = s.path as string;
    expect(s.warnings).toEqual([]);
    const call = s.entries.find((e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'tool_call'));
    expect(call).toMatchObject({
      message: { role: 'assistant', provider: PROVIDER, model: MODEL, api: 'anthropic-messages', stopReason: 'toolUse' },
    });
    const result = s.entries.find((e) => e.kind === 'message' && e.message.role === 'tool');
    expect(result).toMatchObject({ message: { parts: [{ type: 'tool_result', name: 'bash', isError: false }] } });
    expect(s.usage?.input).toBeGreaterThan(0);
    // pi's own SessionManager agrees at every entry of what the real pi wrote.
    for (const side of await contextsAtEveryEntry(firstPath, env, firstId)) expect(side.ours, side.leafId).toEqual(side.pi);
  });

  it('sends exactly our context when continuing with -c', async () => {
    const ours = await ourAnthropicContext(firstId);
    expect(ours.messages.length).toBeGreaterThanOrEqual(4);
    const mark = standIn.messageRequests().length;
    await pi(['-c', '-p', 'second question']);
    const sent = firstRequestSince(mark);
    expect(wireMessages(sent.messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'second question' }] }]),
    );
    const list = await sessions();
    expect(list).toHaveLength(1);
    expect(list[0]?.messageCount).toBe(6);
  });

  it('forks with --fork; threadbase sees the parent and the same context', async () => {
    const ours = await ourAnthropicContext(firstId);
    const mark = standIn.messageRequests().length;
    await pi(['--fork', firstPath, '-p', 'forked question']);
    const sent = firstRequestSince(mark);
    expect(wireMessages(sent.messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'forked question' }] }]),
    );
    const list = await sessions();
    const fork = list.find((s) => s.id !== firstId);
    expect(fork?.parentId).toBe(firstId);
    // After the fork's own turn, our context is what pi sent plus its reply.
    const forkCtx = await ourAnthropicContext(fork?.id as string);
    const last = standIn.messageRequests()[standIn.messageRequests().length - 1] as AnthropicRequest;
    expect(wireMessages(forkCtx.messages).slice(0, -1)).toEqual(wireMessages(last.messages));
    expect(forkCtx.messages[forkCtx.messages.length - 1]?.role).toBe('assistant');
  });

  it('resumes a session threadbase branched in place, with exactly our context', async () => {
    const s = (await new PiDriver(env).getSession(firstId)) as Session;
    const firstUser = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user') as Session['entries'][number];
    const r = JSON.parse(await cli('branch', firstId, '--at', firstUser.id, '--summary', 'Wrote out.txt with echo.', '--json'));
    expect(r.entries).toHaveLength(1);
    const tree = await cli('show', firstId, '--tree');
    expect(tree).toMatch(new RegExp(`${r.leafId} branch summary: Wrote out.txt with echo. ← current`));
    const ours = await ourAnthropicContext(firstId);
    expect(ours.messages.map((m) => m.role)).toEqual(['user']);
    const mark = standIn.messageRequests().length;
    await pi(['--session', firstPath, '-p', 'on the new branch']);
    const sent = firstRequestSince(mark);
    expect(wireMessages(sent.messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'on the new branch' }] }]),
    );
    const text = JSON.stringify(sent.messages);
    expect(text).toContain('The following is a summary of a branch that this conversation came back from');
    expect(text).not.toContain('second question');
  });

  it('resumes a session threadbase wrote from model fields, with exactly our context', async () => {
    const t = secondInto2026;
    const session: Session = {
      id: 'made-up',
      source: 'threadbase',
      project,
      createdAt: t(0),
      updatedAt: t(5),
      messageCount: 4,
      entries: [
        messageEntry('x1', null, t(1), textMessage('user', 'please list')),
        messageEntry('x2', 'x1', t(2), {
          role: 'assistant',
          provider: PROVIDER,
          model: MODEL,
          api: 'anthropic-messages',
          parts: [
            { type: 'text', text: 'listing' },
            { type: 'tool_call', id: 'toolu_made_1', name: 'bash', input: { command: 'ls' } },
          ],
        }),
        messageEntry('x3', 'x2', t(3), {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'toolu_made_1', content: 'out.txt' }],
        }),
        {
          id: 'x4',
          parentId: 'x3',
          timestamp: t(4),
          kind: 'compaction',
          summary: 'The user listed files.',
          firstKeptEntryId: 'x2',
        },
        messageEntry('x5', 'x4', t(5), {
          role: 'assistant',
          provider: PROVIDER,
          model: MODEL,
          parts: [{ type: 'text', text: 'one file' }],
          // what pi has no field for rides in one it ignores (usage.threadbase)
          usage: PRICE_TERMS,
        }),
      ],
    };
    const written = await new PiDriver(env).writeSession(session);
    const ours = await ourAnthropicContext(written.id);
    expect(ours.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const mark = standIn.messageRequests().length;
    await pi(['--session', written.path as string, '-p', 'and now?']);
    const sent = firstRequestSince(mark);
    expect(wireMessages(sent.messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'and now?' }] }]),
    );
    expect(JSON.stringify(sent.messages)).toContain('compacted into the following summary');
    // pi appended its turn and left ours as it was: every token count and price term reads back
    const after = (await new PiDriver(env).getSession(written.id)) as Session;
    const x5 = after.entries.find((e) => e.id === 'x5');
    expect(x5?.kind === 'message' && x5.message.usage).toEqual(PRICE_TERMS);
    expect(after.entries.filter((e) => e.kind === 'message' && e.message.role === 'assistant').length).toBeGreaterThan(2);
  });

  it('converts a pi session into a new pi session that pi resumes the same', async () => {
    const out = JSON.parse(await cli('convert', firstId, '--to', 'pi', '--json')) as { id: string; source: string; path: string };
    expect(out.source).toBe('pi');
    const ours = await ourAnthropicContext(out.id);
    expect(wireMessages(ours.messages)).toEqual(wireMessages((await ourAnthropicContext(firstId)).messages));
    const mark = standIn.messageRequests().length;
    await pi(['--session', out.path, '-p', 'converted']);
    expect(wireMessages(firstRequestSince(mark).messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'converted' }] }]),
    );
  });

  it('resumes a session threadbase wrote without an answer, and leaves it with one header and no duplicate ids', async () => {
    const t = secondInto2026;
    const session: Session = {
      id: 'user-only',
      source: 'threadbase',
      project,
      createdAt: t(0),
      updatedAt: t(1),
      messageCount: 1,
      entries: [messageEntry('q1', null, t(1), textMessage('user', 'a question never answered'))],
    };
    const written = await new PiDriver(env).writeSession(session);
    const ours = await ourAnthropicContext(written.id);
    expect(ours.messages.map((m) => m.role)).toEqual(['user']);
    const mark = standIn.messageRequests().length;
    await pi(['--session', written.path as string, '-p', 'asked again']);
    expect(wireMessages(firstRequestSince(mark).messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'asked again' }] }]),
    );
    const lines = (await fs.readFile(written.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id: string });
    expect(lines.filter((l) => l.type === 'session')).toHaveLength(1);
    const ids = lines.filter((l) => l.type !== 'session').map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    const after = (await new PiDriver(env).getSession(written.id)) as Session;
    expect(after.warnings).toEqual([]);
    expect(
      after.entries.some((e) => e.kind === 'message' && e.message.role === 'assistant' && e.message.stopReason !== 'aborted'),
    ).toBe(true);
  });

  it('leaves out an errored turn as pi does when it resumes', async () => {
    const other = join(home, 'other-project');
    await fs.mkdir(other, { recursive: true });
    await pi(['-p', 'FAIL: this request errors'], { cwd: other, mayFail: true });
    const list = (await sessions()).filter((s) => s.project === other);
    expect(list).toHaveLength(1);
    const id = list[0]?.id as string;
    const s = (await new PiDriver(env).getSession(id)) as Session;
    const errored = s.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(errored).toMatchObject({ message: { stopReason: 'error' } });
    const ours = await ourAnthropicContext(id);
    expect(ours.messages.map((m) => m.role)).toEqual(['user']);
    const mark = standIn.messageRequests().length;
    await pi(['--session', s.path as string, '-p', 'try again'], { cwd: other });
    expect(wireMessages(firstRequestSince(mark).messages)).toEqual(
      wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'try again' }] }]),
    );
  });

  it('reads a compaction the real pi made (RPC mode) and sends the same context after it', async () => {
    const dir = join(home, 'compacting-project');
    await fs.mkdir(join(dir, '.pi'), { recursive: true });
    // Keep only the most recent turn, so the compaction both summarises and keeps entries.
    await fs.writeFile(
      join(dir, '.pi', 'settings.json'),
      JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 40 } }),
    );
    const rpc = new PiRpc(agentHome, dir);
    try {
      await rpc.prompt('RUN: echo a > a.txt');
      await rpc.prompt('tell me more about the file you wrote just now please');
      const compacted = (await rpc.compact()) as {
        success: boolean;
        data?: { firstKeptEntryId?: string };
      };
      expect(compacted.success).toBe(true);
      const mark = standIn.messageRequests().length;
      await rpc.prompt('after the compaction');

      const id = (await sessions()).find((s) => s.project === dir)?.id as string;
      const s = (await new PiDriver(env).getSession(id)) as Session;
      const compaction = s.entries.find((e) => e.kind === 'compaction');
      expect(compaction).toMatchObject({ kind: 'compaction', firstKeptEntryId: compacted.data?.firstKeptEntryId });
      expect((compaction as { summary: string }).summary.length).toBeGreaterThan(0);
      expect((compaction as { tokensBefore?: number }).tokensBefore).toBeGreaterThan(0);
      // What pi sent after compacting is our context at the compaction entry plus the new prompt.
      const ours = await ourAnthropicContext(id, compaction?.id);
      expect(JSON.stringify(ours.messages[0])).toContain('compacted into the following summary');
      expect(ours.messages.length).toBeGreaterThan(1);
      expect(wireMessages(firstRequestSince(mark).messages)).toEqual(
        wireMessages([...ours.messages, { role: 'user', content: [{ type: 'text', text: 'after the compaction' }] }]),
      );
      for (const side of await contextsAtEveryEntry(s.path as string, env, id)) expect(side.ours, side.leafId).toEqual(side.pi);
    } finally {
      rpc.close();
    }
  });
});
