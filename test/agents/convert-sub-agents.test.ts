/**
 * A Claude Code session that ran a sub-agent (the real fixture's Agent call), converted with its
 * sub-agent transcript: the real Claude Code and OpenCode still resume the converted parent (its
 * compaction summary and the prompt after it sent, the probe answered), and OpenCode takes the child session as one
 * of its own (`opencode export` of the child: its parentID the parent; the parent's tool part names it);
 * the real codex resumes the converted parent and the sub-agent thread written beside it.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodexAgentHome, createOpencodeDatabase, runOpencode, setupCodexAgentHome } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { okProbeRule, readSession, resumeInTarget, textOf, type Written } from '../helpers/conversions.js';
import { itemText } from '../helpers/openai-responses-standin.js';

const PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const AGENT_CALL = 'toolu_standin_0003';
const FIXTURE_PROJECT = '/tmp/cc/proj';

interface WrittenWithChildren extends Written {
  children?: (Written & { parentToolCallId?: string })[];
}

let home: CodexAgentHome;

beforeAll(async () => {
  home = await setupCodexAgentHome({ rules: [okProbeRule] });
  await fs.cp('test/fixtures/claude/real/projects', join(home.root, '.claude', 'projects'), { recursive: true });
  // the directory the fixture's session ran in, where the agents resume it
  await fs.mkdir(FIXTURE_PROJECT, { recursive: true });
  await createOpencodeDatabase(home);
}, 180_000);
afterAll(async () => {
  await home?.close();
});

async function convert(to: string): Promise<WrittenWithChildren> {
  const out = await runCliOk(home.env, ['convert', PARENT, '--source', 'claude', '--to', to, '--json']);
  const written = JSON.parse(out) as WrittenWithChildren;
  expect(written.children?.map((c) => c.parentToolCallId)).toEqual([AGENT_CALL]);
  return written;
}

/**
 * The resumed conversation is the converted one: the fixture compacted after its Agent call, so the
 * agent sends the summary and the prompt after it before the probe.
 */
function expectResumed(sent: { content: unknown }[]) {
  const texts = sent.flatMap((m) => textOf(m.content as string | Block[]));
  expect(texts.some((t) => t.startsWith('This session is being continued from a previous conversation'))).toBe(true);
  expect(texts).toContain('after compact');
}

describe('convert with sub-agents, resumed by the real agents', () => {
  it('Claude Code resumes the parent written beside its subagents/ transcript', async () => {
    const written = await convert('claude');
    const sent = await resumeInTarget(home, 'claude', written, 'probe sub-agents claude');
    expectResumed(sent);
    // Claude Code's own records after the resume leave the sub-agent where it was
    const child = await readSession(home, 'claude', written.children?.[0]?.id as string);
    expect(child).toMatchObject({ parentId: written.id, parentToolCallId: AGENT_CALL });
  }, 180_000);

  it('OpenCode resumes the parent and exports the child session as its sub-agent', async () => {
    const written = await convert('opencode');
    const sent = await resumeInTarget(home, 'opencode', written, 'probe sub-agents opencode');
    expectResumed(sent);
    const childId = written.children?.[0]?.id as string;
    const child = JSON.parse((await runOpencode(home, ['export', childId])).stdout) as {
      info: { id: string; parentID?: string };
      messages: unknown[];
    };
    expect(child.info).toMatchObject({ id: childId, parentID: written.id });
    expect(child.messages.length).toBeGreaterThan(0);
    const parent = JSON.parse((await runOpencode(home, ['export', written.id])).stdout) as {
      messages: { parts: { type: string; callID?: string; state?: { metadata?: unknown } }[] }[];
    };
    const call = parent.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.callID === AGENT_CALL);
    expect(call?.state?.metadata).toMatchObject({ sessionId: childId });
  }, 180_000);

  it('codex resumes the parent, and the sub-agent thread written beside it', async () => {
    const written = await convert('codex');
    for (const [id, probe] of [
      [written.id, 'probe sub-agents codex'],
      [written.children?.[0]?.id as string, 'probe the codex sub-agent'],
    ] as const) {
      const mark = home.responses.responseRequests().length;
      await home.codex(['resume', id, probe]);
      const req = home.responses.responseRequests().slice(mark).at(-1);
      if (!req) throw new Error('codex sent no request');
      expect(itemText(req.input.at(-1))).toBe(probe);
      const texts = req.input.map(itemText);
      // the parent: its compaction summary and the prompt after it; the sub-agent: its own prompt
      expect(texts).toContain(id === written.id ? 'after compact' : 'say hello');
    }
  }, 180_000);
});
