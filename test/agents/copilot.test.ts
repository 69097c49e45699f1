/**
 * Sessions written into GitHub Copilot CLI, resumed by the real `copilot` (@github/copilot 1.0.102)
 * offline against the Anthropic stand-in (BYOK: COPILOT_OFFLINE, COPILOT_PROVIDER_TYPE=anthropic,
 * COPILOT_PROVIDER_BASE_URL; no GitHub login):
 * - a pi session and a Claude Code session (signed thinking, two tool calls) converted with
 *   `threadbase convert <id> --to copilot`, and a session with an image, an errored call and a call
 *   left unanswered written by the driver;
 * - `copilot --resume=<id> -p <probe>` sends the messages threadbase's own context of the written
 *   session says (each turn, tool call and result, the thinking with its signature, the image);
 * - the session Copilot CLI appended to is read back: the probe and its answer are there;
 * - what Copilot CLI keeps but does not send (a system message, thinking without a signature, a tool
 *   result's image) loads and is not sent; sub-agent sessions written inside the parent's events.jsonl
 *   as Copilot CLI records a run (a sub-agent's own side chains inside its run) load, the parent resumes
 *   with its main chain, the runs stay, each still read as a child session.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { copilotOfflineEnv } from '../helpers/agents.js';
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type StandIn,
  sentToolResults,
  startAnthropicStandIn,
} from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { COPILOT_BIN, COPILOT_SKIP, plainTextResults } from '../helpers/copilot.js';
import { messageEntry, ONE_PIXEL_PNG } from '../helpers/sessions.js';
import { subAgentTree, withTask } from '../helpers/sub-agents.js';

const run = promisify(execFile);

const PI_ID = '01a204a9-a834-77e0-b180-e676a5436126';
/** Claude Code's real session that ran a sub-agent (its Agent call) and compacted after it, and that call. */
const CLAUDE_SUB_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_SUB_CHILD = 'ac5303661b5759184';
const CLAUDE_AGENT_CALL = 'toolu_standin_0003';
const CLAUDE_TOOLS_ID = '9f7f5cd3-8a7d-4c4a-bd84-0310bdd47949';
/** Another image than the user's (ONE_PIXEL_PNG), to tell what is sent of each: ONE_PIXEL_PNG with a byte of its CRC changed. */
const FAILED_RESULT_PNG = `${ONE_PIXEL_PNG.slice(0, -8)}AAAAAA==`;

let dir: string;
let env: DriverEnv;
let project: string;
let standIn: StandIn;

beforeAll(async () => {
  if (COPILOT_SKIP) return;
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-copilot-agent-'));
  project = join(dir, 'proj');
  await fs.mkdir(project, { recursive: true });
  standIn = await startAnthropicStandIn({
    rules: [
      (req) => (/PROBE-THINK/.test(JSON.stringify(req.messages.at(-1))) ? { thinking: 'probing', text: 'probed' } : undefined),
    ],
  });
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), COPILOT_HOME: join(dir, '.copilot') } };
  await fs.mkdir(join(dir, '.pi/agent/sessions/--proj--'), { recursive: true });
  await fs.copyFile(
    'test/fixtures/pi/real-tool-call.jsonl',
    join(dir, `.pi/agent/sessions/--proj--/2026-11-22T19-09-17-237Z_${PI_ID}.jsonl`),
  );
  await fs.mkdir(join(dir, '.claude/projects/-tmp-cc-proj2'), { recursive: true });
  await fs.copyFile(
    `test/fixtures/claude/real/projects/-tmp-cc-proj2/${CLAUDE_TOOLS_ID}.jsonl`,
    join(dir, `.claude/projects/-tmp-cc-proj2/${CLAUDE_TOOLS_ID}.jsonl`),
  );
  const subagents = `.claude/projects/-tmp-cc-proj/${CLAUDE_SUB_PARENT}/subagents`;
  await fs.mkdir(join(dir, subagents), { recursive: true });
  for (const f of [
    `${CLAUDE_SUB_PARENT}.jsonl`,
    `${CLAUDE_SUB_PARENT}/subagents/agent-${CLAUDE_SUB_CHILD}.jsonl`,
    `${CLAUDE_SUB_PARENT}/subagents/agent-${CLAUDE_SUB_CHILD}.meta.json`,
  ])
    await fs.copyFile(`test/fixtures/claude/real/projects/-tmp-cc-proj/${f}`, join(dir, '.claude/projects/-tmp-cc-proj', f));
});
afterAll(async () => {
  await standIn?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** `copilot --resume=<id> -p <prompt>` in the project, offline against the stand-in. */
async function resume(id: string, prompt: string): Promise<void> {
  await run(COPILOT_BIN as string, [`--resume=${id}`, '-p', prompt, '--allow-all-tools', '--no-auto-update'], {
    cwd: project,
    timeout: 180_000,
    env: copilotOfflineEnv(dir, standIn.url),
  });
}

/** The messages the resume sent before its probe, and what threadbase's context of the written session says. */
async function sentAndExpected(id: string, probe: string) {
  const before = standIn.messageRequests().length;
  await resume(id, probe);
  const requests = standIn.messageRequests().slice(before);
  const first = requests[0];
  expect(first, 'the resume made a request').toBeDefined();
  const sent = (first?.messages ?? []).map(plainTextResults);
  const last = sent.pop();
  expect(JSON.stringify(last)).toContain(probe);
  return { sent, requests };
}

async function expectedOf(id: string): Promise<AnthropicMessage[]> {
  const sources = new Sources(env);
  try {
    // the driver's context is Copilot CLI's resume context (src/formats/copilot/context.ts)
    return (contextToAnthropic(await sources.driver('copilot').getContext(id)).messages as AnthropicMessage[]).map(
      plainTextResults,
    );
  } finally {
    await sources.close();
  }
}

interface Written {
  id: string;
  source: string;
  path: string;
}

describe.skipIf(COPILOT_SKIP)('Copilot CLI resumes sessions threadbase wrote', () => {
  it('a pi session converted with `convert --to copilot`: every turn, call and result sent as threadbase says', async () => {
    const w = JSON.parse(
      await runCliOk(env, ['convert', PI_ID, '--source', 'pi', '--to', 'copilot', '--project', project, '--json']),
    ) as Written;
    expect(w.source).toBe('copilot');
    const { sent } = await sentAndExpected(w.id, 'PROBE-PI what next?');
    const expected = await expectedOf(w.id);
    expect(sent).toEqual(expected.slice(0, sent.length));
    expect(sent.length).toBeGreaterThanOrEqual(4);
    expect(sent.some((m) => JSON.stringify(m).includes('tool_use'))).toBe(true);
    // read back: Copilot CLI appended the probe and its answer to the same file
    const back = await expectedOf(w.id);
    expect(JSON.stringify(back.at(-2))).toContain('PROBE-PI what next?');
    expect(back.at(-1)?.role).toBe('assistant');
  });

  it('a Claude Code session with signed thinking and two tool calls: the thinking is sent back with its signature', async () => {
    const w = JSON.parse(
      await runCliOk(env, ['convert', CLAUDE_TOOLS_ID, '--source', 'claude', '--to', 'copilot', '--project', project, '--json']),
    ) as Written;
    const { sent } = await sentAndExpected(w.id, 'PROBE-THINK and then?');
    const expected = await expectedOf(w.id);
    expect(sent).toEqual(expected.slice(0, sent.length));
    const thinking = sent.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'thinking');
    expect(thinking.length).toBeGreaterThan(0);
    expect(thinking.every((b) => typeof b.signature === 'string' && b.signature)).toBe(true);
    expect(sent.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_use')).toHaveLength(2);
    // the answer's thinking comes back with its signature too
    const again = await expectedOf(w.id);
    expect(again.at(-1)?.content).toEqual([
      { type: 'thinking', thinking: 'probing', signature: expect.stringMatching(/^sig-standin-/) },
      { type: 'text', text: 'probed' },
    ]);
  });

  it('an image, an errored call and a call left unanswered, written by the driver, resume', async () => {
    const t = (i: number) => new Date(Date.parse('2026-02-01T10:00:00.000Z') + i * 1000).toISOString();
    const msg = (i: number, m: Extract<Entry, { kind: 'message' }>['message']): Entry => ({
      kind: 'message',
      id: `e-${i}`,
      parentId: i === 1 ? null : `e-${i - 1}`,
      timestamp: t(i),
      message: m,
    });
    const session: Session = {
      id: 'mem-1',
      source: 'threadbase',
      project,
      title: 'image and errors',
      createdAt: t(1),
      updatedAt: t(5),
      messageCount: 5,
      leafId: 'e-5',
      entries: [
        msg(1, {
          role: 'user',
          parts: [
            { type: 'text', text: 'what is in this picture?' },
            { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
          ],
        }),
        msg(2, {
          role: 'assistant',
          model: 'claude-sonnet-4.5',
          parts: [
            { type: 'tool_call', id: 'toolu_err1', name: 'bash', input: { command: 'false' } },
            { type: 'tool_call', id: 'toolu_lost1', name: 'bash', input: { command: 'sleep 1' } },
          ],
        }),
        msg(3, {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              callId: 'toolu_err1',
              // a failed result's image: kept beside its error (result.binaryResultsForLlm), not sent
              content: [
                { type: 'text', text: 'exit 1' },
                { type: 'image', mediaType: 'image/png', data: FAILED_RESULT_PNG },
              ],
              isError: true,
            },
          ],
        }),
        msg(4, { role: 'assistant', model: 'claude-sonnet-4.5', parts: [{ type: 'text', text: 'one pixel' }] }),
        msg(5, { role: 'user', parts: [{ type: 'text', text: 'thanks' }] }),
      ],
    };
    const sources = new Sources(env);
    const info = await sources.driver('copilot').writeSession?.(session);
    await sources.close();
    expect(info?.meta?.warnings).toEqual(['tool call toolu_lost1 had no result: written as an error result']);
    const { sent } = await sentAndExpected(info?.id as string, 'PROBE-MEM ok?');
    const first = sent[0]?.content as AnthropicBlock[];
    expect(first.find((b) => b.type === 'image')).toMatchObject({
      source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG },
    });
    const results = sentToolResults(sent);
    // Copilot CLI sends a failed result's error message, without an error flag
    expect(results.map((r) => [r.tool_use_id, r.content, r.is_error])).toEqual([
      ['toolu_err1', 'exit 1', undefined],
      ['toolu_lost1', 'No result was recorded for this call.', undefined],
    ]);
    expect(sent).toEqual((await expectedOf(info?.id as string)).slice(0, sent.length));
    expect(JSON.stringify(sent)).toContain('one pixel');
    expect(JSON.stringify(sent)).not.toContain(FAILED_RESULT_PNG);
    // the failed result's image is still there after Copilot CLI loaded and appended to the file
    const back = await new Sources(env).driver('copilot').getSession(info?.id as string);
    const failed = (back?.entries ?? [])
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_result' && p.callId === 'toolu_err1');
    expect(failed).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: 'exit 1' },
        { type: 'image', mediaType: 'image/png', data: FAILED_RESULT_PNG },
      ],
    });
  });

  it('a system message, unsigned thinking and a tool-result image load, and Copilot CLI sends none of them', async () => {
    const model = { model: 'claude-sonnet-4.5', provider: 'anthropic' };
    const session: Session = {
      id: 'kept-1',
      source: 'threadbase',
      project,
      title: 'kept, not sent',
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:05.000Z',
      messageCount: 5,
      leafId: 'a2',
      entries: [
        messageEntry('s', null, 1, { role: 'system', parts: [{ type: 'text', text: 'SYSTEM-KEPT be brief' }] }),
        messageEntry('u', 's', 2, { role: 'user', parts: [{ type: 'text', text: 'look at the picture' }] }),
        messageEntry('a1', 'u', 3, {
          role: 'assistant',
          ...model,
          parts: [
            { type: 'thinking', thinking: 'UNSIGNED-KEPT which file?' },
            { type: 'tool_call', id: 'toolu_view1', name: 'view', input: { path: 'a.png' } },
          ],
        }),
        messageEntry('r', 'a1', 4, {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              callId: 'toolu_view1',
              content: [
                { type: 'text', text: 'Viewed image file successfully.' },
                { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
              ],
            },
          ],
        }),
        messageEntry('a2', 'r', 5, { role: 'assistant', ...model, parts: [{ type: 'text', text: 'a pixel' }] }),
      ],
    };
    const sources = new Sources(env);
    const info = await sources.driver('copilot').writeSession?.(session);
    await sources.close();
    const { sent } = await sentAndExpected(info?.id as string, 'PROBE-KEPT ok?');
    expect(sent).toEqual((await expectedOf(info?.id as string)).slice(0, sent.length));
    const text = JSON.stringify(sent);
    expect(text).toContain('a pixel');
    expect(text).not.toContain('SYSTEM-KEPT');
    expect(text).not.toContain('UNSIGNED-KEPT');
    expect(text).not.toContain(ONE_PIXEL_PNG);
    // what Copilot CLI did not send is still there, read back as written
    const back = await new Sources(env).driver('copilot').getSession(info?.id as string);
    const parts = (back?.entries ?? []).flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts).toContainEqual({ type: 'text', text: 'SYSTEM-KEPT be brief' });
    expect(parts).toContainEqual({ type: 'thinking', thinking: 'UNSIGNED-KEPT which file?' });
  });

  it("sub-agent sessions converted into the parent's events.jsonl: the parent resumes with its main chain, the runs stay", async () => {
    const { parent, childrenOf } = subAgentTree(project);
    const [written] = (await convertSessionAll(parent, {
      to: 'copilot',
      env,
      childrenOf,
    })) as [WrittenSession];
    expect(written.children?.[0]?.children?.[0]).toMatchObject({ parentToolCallId: 'call_c', path: written.path });
    const { sent } = await sentAndExpected(written.id, 'PROBE-SUB and then?');
    expect(sent).toEqual((await expectedOf(written.id)).slice(0, sent.length));
    const text = JSON.stringify(sent);
    expect(text).toContain('all done');
    expect(text).not.toContain('looked');
    expect(text).not.toContain('found it');
    // after Copilot CLI appended to it, both runs are still side chains of the parent, the probe on the main chain
    const back = await new Sources(env).driver('copilot').getSession(written.id);
    const texts = (side: boolean) =>
      (back?.entries ?? [])
        .filter((e) => Boolean(e.sidechain) === side)
        .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
        .flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(texts(true)).toEqual(['look around', 'look deeper', 'found it', 'looked']);
    expect(texts(false)).toContain('PROBE-SUB and then?');
    // and each run still a session of its own, by the id written, under the session or run that ran it
    const child = written.children?.[0] as WrittenSession;
    const grandchild = child.children?.[0] as WrittenSession;
    const driver = new Sources(env).driver('copilot');
    expect(await driver.getSession(child.id)).toMatchObject({
      parentId: written.id,
      parentToolCallId: 'call_p',
      messageCount: 4,
    });
    expect(await driver.getSession(grandchild.id)).toMatchObject({ parentId: child.id, parentToolCallId: 'call_c' });
  });

  it("a sub-agent's own side chain written inside its run (writeChildSession): the file loads, the parent resumes with its main chain", async () => {
    const parent = { ...withTask('P3', 'plan it', 'call_p3', 'all done'), project };
    const task = withTask('C3', 'look around', 'call_c3', 'looked', { parentId: 'P3', call: 'call_p3' });
    // the run of C3's call kept in C3 as a side chain (as an Agent SDK or Claude Code session holds one)
    const side: Entry[] = [
      {
        ...messageEntry('C3-s1', null, 2, { role: 'user', parts: [{ type: 'text', text: 'look around, deeper' }] }),
        sidechain: true,
      },
      {
        ...messageEntry('C3-s2', 'C3-s1', 3, { role: 'assistant', parts: [{ type: 'text', text: 'found it inside' }] }),
        sidechain: true,
      },
    ];
    const child: Session = { ...task, project, entries: [...task.entries, ...side] };
    const [written] = (await convertSessionAll(parent, {
      to: 'copilot',
      env,
      childrenOf: async (id) => (id === 'P3' ? [child] : []),
    })) as [WrittenSession];
    const run = written.children?.[0] as WrittenSession;
    expect(run.meta?.warnings).toBeUndefined();
    const { sent } = await sentAndExpected(written.id, 'PROBE-OWN-SIDE and then?');
    expect(sent).toEqual((await expectedOf(written.id)).slice(0, sent.length));
    expect(JSON.stringify(sent)).not.toContain('found it inside');
    // after Copilot CLI appended to the file: the inner run a session under the sub-agent's
    const driver = new Sources(env).driver('copilot');
    const back = (await driver.getSession(written.id)) as Session;
    expect(back.entries.some((e) => e.kind === 'message' && JSON.stringify(e.message).includes('PROBE-OWN-SIDE'))).toBe(true);
    const inner = (await driver.listSessions({ parentId: run.id }))[0];
    expect(inner).toMatchObject({ parentToolCallId: 'call_c3', messageCount: 2 });
    const innerSession = (await driver.getSession(inner?.id as string)) as Session;
    expect(innerSession.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []))).toEqual([
      { type: 'text', text: 'look around, deeper' },
      { type: 'text', text: 'found it inside' },
    ]);
  });

  it('a run inside a run, copied with `convert --to copilot`: the copy loads and resumes with its main chain, both runs stay', async () => {
    const parent = { ...withTask('P2', 'plan it', 'call_p2', 'all done'), project };
    const child = { ...withTask('C2', 'look around', 'call_c2', 'looked', { parentId: 'P2', call: 'call_p2' }), project };
    const grandchild = { ...withTask('G2', 'look deeper', 'call_g2', 'found it', { parentId: 'C2', call: 'call_c2' }), project };
    const byParent = new Map([
      ['P2', [child]],
      ['C2', [grandchild]],
    ]);
    const [written] = (await convertSessionAll(parent, {
      to: 'copilot',
      env,
      childrenOf: async (id) => byParent.get(id) ?? [],
    })) as [WrittenSession];
    const w = JSON.parse(
      await runCliOk(env, ['convert', written.id, '--source', 'copilot', '--to', 'copilot', '--project', project, '--json']),
    ) as Written & { warnings?: string[] };
    expect(w.warnings ?? []).toEqual([]);
    const { sent } = await sentAndExpected(w.id, 'PROBE-NESTED and then?');
    expect(sent).toEqual((await expectedOf(w.id)).slice(0, sent.length));
    expect(JSON.stringify(sent)).not.toContain('found it');
    const back = await new Sources(env).driver('copilot').getSession(w.id);
    const side = (back?.entries ?? [])
      .filter((e) => e.sidechain)
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(side).toEqual(['look around', 'look deeper', 'found it', 'looked']);
  });

  it("Claude Code's sub-agent before its compaction: the run and the compaction written as Copilot CLI records them, resumed from the summary", async () => {
    const w = JSON.parse(
      await runCliOk(env, [
        'convert',
        CLAUDE_SUB_PARENT,
        '--source',
        'claude',
        '--to',
        'copilot',
        '--project',
        project,
        '--json',
      ]),
    ) as Written & { children?: (Written & { parentToolCallId?: string; warnings?: string[] })[] };
    expect(w.children?.map((c) => [c.parentToolCallId, c.path])).toEqual([[CLAUDE_AGENT_CALL, w.path]]);
    expect(JSON.stringify(w.children)).not.toMatch(/sub-agent \S+ not written/);
    const { sent } = await sentAndExpected(w.id, 'PROBE-CC-SUB and now?');
    expect(sent).toEqual((await expectedOf(w.id)).slice(0, sent.length));
    // Copilot CLI sends its compaction (the summary wrapped) and what came after, not the sub-agent
    const text = JSON.stringify(sent);
    expect(text).toContain('Some of the conversation history has been summarized');
    expect(text).toContain('after compact');
    expect(text).not.toContain('say hello please');
    const back = await new Sources(env).driver('copilot').getSession(w.id);
    const side = (back?.entries ?? []).filter((e) => e.sidechain && e.kind === 'message');
    expect(side.length).toBeGreaterThan(1);
    expect(back?.entries.some((e) => e.kind === 'compaction')).toBe(true);
  });

  it("a Copilot CLI session's own sub-agent run copied with `convert --to copilot`: it loads, the parent resumes, the run stays", async () => {
    const SUB = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
    await fs.cp(`test/fixtures/copilot/real-1.0.102/.copilot/session-state/${SUB}`, join(dir, '.copilot/session-state', SUB), {
      recursive: true,
    });
    const w = JSON.parse(
      await runCliOk(env, ['convert', SUB, '--source', 'copilot', '--to', 'copilot', '--project', project, '--json']),
    ) as Written;
    const { sent } = await sentAndExpected(w.id, 'PROBE-COPY and?');
    expect(sent).toEqual((await expectedOf(w.id)).slice(0, sent.length));
    // the main chain only: not the sub-agent's prompt
    expect(sent.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('"text":"say hello please"'))).toBe(false);
    const back = await new Sources(env).driver('copilot').getSession(w.id);
    const side = (back?.entries ?? []).filter((e) => e.sidechain && e.kind === 'message');
    expect(side.map((e) => (e.kind === 'message' ? e.message.role : ''))).toEqual(['user', 'assistant']);
  });
});
