/**
 * The real Claude Code (node_modules/.bin/claude, offline against the Anthropic stand-in) resumes a real
 * compacted Claude Code session (test/fixtures/claude/real/projects/-tmp-cc-proj) after it went through
 * Copilot CLI and back: the reply Copilot CLI repeats after the compaction is written as a response of its
 * own (test/formats/copilot-claude-roundtrip.test.ts), so Claude Code sends it once, as threadbase reads it;
 * written with the response's id, Claude Code 2.1.332 joined it to the reply before the compaction and sent both.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { resumeInTarget } from '../helpers/conversions.js';
import { homeEnv } from '../helpers/fixture-homes.js';

const COMPACTED = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: AgentHome;
beforeAll(async () => {
  home = await setupAgentHome();
  cpSync('test/fixtures/claude/real/projects', join(home.root, '.claude/projects'), { recursive: true });
});
afterAll(() => home?.close());

describe('Claude Code → Copilot CLI → Claude Code, resumed by the real Claude Code', () => {
  it('the compacted session resumes with what threadbase reads', async () => {
    const env = homeEnv(home.root);
    const claude = new ClaudeDriver(env);
    const copilot = new CopilotDriver(env);
    const source = (await claude.getSession(COMPACTED)) as Session;
    // written in the stand-in home's project, where Claude Code is run
    const copied = (await copilot.getSession(
      (
        await convertSession({ ...source, project: home.project }, copilot)
      ).id,
    )) as Session;
    const back = await convertSession(copied, claude);
    const ours = contextToAnthropic(await claude.getContext(back.id)).messages as Msg[];
    const probe = 'PROBE-ROUNDTRIP';
    const sent = await resumeInTarget(
      { ...home, env },
      'claude',
      { id: back.id, source: 'claude', path: back.path as string },
      probe,
    );
    // the reply kept by the compaction once, as Copilot CLI sends it (not joined to its copy before the compaction)
    const replies = comparable(sent, probe).filter((m) => m.role === 'assistant');
    expect(replies.map((m) => m.content.length)).toEqual([1, 1]);
    expect(comparable(sent, probe)).toEqual(comparable(ours));
  });
});
