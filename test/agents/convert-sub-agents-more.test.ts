/**
 * A Claude Code session that ran a sub-agent (the real fixture's Agent call), converted with its
 * sub-agent transcript into Gemini CLI, Qwen Code and Cline CLI: the written sub-agent reads back as
 * the parent's child naming the Agent call, and the real gemini 0.61, qwen 0.24.4 and cline 3.0.65
 * (offline, against the loopback stand-ins) still resume the parent with it written beside it (the
 * fixture's compaction summary and the prompt after it sent, then the probe); the sub-agent is still
 * the parent's child after the agent rewrote or appended to the parent.
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';
import { resumeCline, resumedRequest, setupClineHome } from '../helpers/cline.js';
import { okProbeRule, readSession } from '../helpers/conversions.js';
import { resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';
import { requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';

const PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CHILD = 'ac5303661b5759184';
const AGENT_CALL = 'toolu_standin_0003';
const CLAUDE_DIR = 'test/fixtures/claude/real/projects/-tmp-cc-proj';
const FIXTURE_PROJECT = '/tmp/cc/proj';

interface Home {
  root: string;
  project: string;
  env: DriverEnv;
  close(): Promise<void>;
}

interface Written {
  id: string;
  path: string;
  children?: { id: string; path: string; parentToolCallId?: string }[];
}

/** The fixture's session and its sub-agent, their recorded project made the home's. */
async function copyClaudeFixture(home: Home): Promise<void> {
  const to = join(home.root, '.claude', 'projects', '-tmp-cc-proj');
  for (const f of [
    `${PARENT}.jsonl`,
    join(PARENT, 'subagents', `agent-${CHILD}.jsonl`),
    join(PARENT, 'subagents', `agent-${CHILD}.meta.json`),
  ]) {
    const text = await fs.readFile(join(CLAUDE_DIR, f), 'utf8');
    await fs.mkdir(dirname(join(to, f)), { recursive: true });
    await fs.writeFile(join(to, f), text.split(FIXTURE_PROJECT).join(home.project));
  }
}

/** Converts the fixture into `to`; its sub-agent written as the parent's child, naming the Agent call. */
async function convert(home: Home, to: string): Promise<Written> {
  const written = JSON.parse(
    await runCliOk(home.env, ['convert', PARENT, '--source', 'claude', '--to', to, '--json']),
  ) as Written;
  expect(written.children?.map((c) => c.parentToolCallId)).toEqual([AGENT_CALL]);
  await expectChild(home, to, written);
  return written;
}

async function expectChild(home: Home, to: string, written: Written): Promise<void> {
  const child = await readSession(home, to, written.children?.[0]?.id as string);
  expect(child).toMatchObject({ parentId: written.id, parentToolCallId: AGENT_CALL });
  expect(child.messageCount).toBeGreaterThan(0);
}

/** What was sent holds the converted conversation: the fixture compacted after its Agent call. */
function expectResumed(sent: unknown) {
  const text = JSON.stringify(sent);
  expect(text).toContain('This session is being continued from a previous conversation');
  expect(text).toContain('after compact');
}

describe('Gemini CLI', () => {
  let home: Awaited<ReturnType<typeof setupGeminiHome>>;
  beforeAll(async () => {
    home = await setupGeminiHome();
    await copyClaudeFixture(home);
  }, 180_000);
  afterAll(async () => {
    await home?.close();
  });

  it('resumes the parent written beside its sub-agent chat', async () => {
    const written = await convert(home, 'gemini');
    await runGemini(home, ['--resume', written.id, '-p', 'probe sub-agents gemini']);
    expectResumed(resumedContents(home, 'probe sub-agents gemini'));
    await expectChild(home, 'gemini', written);
  }, 180_000);
});

describe('Qwen Code', () => {
  let home: Awaited<ReturnType<typeof setupQwenHome>>;
  beforeAll(async () => {
    home = await setupQwenHome({ rules: [okProbeRule] });
    await copyClaudeFixture(home);
  }, 180_000);
  afterAll(async () => {
    await home?.close();
  });

  it('resumes the parent written beside its subagents/ transcript', async () => {
    const written = await convert(home, 'qwen');
    await runQwen(home, ['--resume', written.id, 'probe sub-agents qwen']);
    expectResumed(requestEndingWith(home, 'probe sub-agents qwen').messages);
    await expectChild(home, 'qwen', written);
  }, 180_000);
});

describe('Cline CLI', () => {
  let home: Awaited<ReturnType<typeof setupClineHome>>;
  beforeAll(async () => {
    home = await setupClineHome({ rules: [okProbeRule] });
    await copyClaudeFixture(home);
  }, 180_000);
  afterAll(async () => {
    await home?.close();
  });

  it("resumes the parent written beside its sub-agent's messages", async () => {
    const written = await convert(home, 'cline');
    await resumeCline(home, written.id, 'probe sub-agents cline');
    expectResumed(resumedRequest(home, 'probe sub-agents cline').messages);
    await expectChild(home, 'cline', written);
  }, 180_000);
});
