/**
 * A Copilot CLI session whose sub-agent run is kept inside it (a side chain) converted into Claude
 * Code: the run goes as a subagents/agent-*.jsonl transcript linked to the call, and the real Claude
 * Code still resumes the parent with it there, sending the parent's conversation without the run.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { okProbeRule, readSession, resumeInTarget, textOf, type Written } from '../helpers/conversions.js';

/** The real Copilot CLI 1.0.102 session with one sub-agent run (test/fixtures/copilot/real-1.0.102). */
const WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';

interface WrittenWithChildren extends Written {
  children?: (Written & { parentToolCallId?: string })[];
}

let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome({ rules: [okProbeRule] });
  await fs.cp('test/fixtures/copilot/real-1.0.102/.copilot', join(home.root, '.copilot'), { recursive: true });
}, 180_000);
afterAll(async () => {
  await home?.close();
});

describe('a Copilot CLI run converted into Claude Code, resumed by the real claude', () => {
  it('resumes the parent written beside the run as its sub-agent transcript', async () => {
    const out = await runCliOk(home.env, ['convert', WITH_RUN, '--source', 'copilot', '--to', 'claude', '--json']);
    const written = JSON.parse(out) as WrittenWithChildren;
    expect(written.children).toHaveLength(1);
    const row = written.children?.[0] as Written & { parentToolCallId?: string };
    const original = await readSession(home, 'copilot', WITH_RUN);
    const run = original.entries.flatMap((e) => (e.kind === 'message' && e.sidechain ? [e.message] : []));
    const runPrompt = run[0]?.parts.find((p) => p.type === 'text');
    expect(runPrompt?.type === 'text' && runPrompt.text).toBeTruthy();
    // the project Copilot CLI ran in, where claude resumes the converted session
    const parent = await readSession(home, 'claude', written.id);
    await fs.mkdir(parent.project as string, { recursive: true });
    const sent = await resumeInTarget(home, 'claude', written, 'probe side chains claude');
    const texts = sent.flatMap((m) => textOf(m.content as string | Block[]));
    expect(texts.at(-1)).toBe('probe side chains claude');
    // the parent's conversation: its call and the run's answer as the call's result, not the run's own messages
    const calls = sent.flatMap((m) =>
      typeof m.content === 'string' ? [] : (m.content as Block[]).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
    );
    expect(calls).toContain(row.parentToolCallId);
    expect(texts).not.toContain(runPrompt?.type === 'text' ? runPrompt.text : '');
    // claude's own records after the resume leave the sub-agent where it was
    const child = await readSession(home, 'claude', row.id);
    expect(child).toMatchObject({ parentId: written.id, parentToolCallId: row.parentToolCallId });
    expect(child.entries.filter((e) => e.kind === 'message')).toHaveLength(run.length);
  }, 180_000);
});
