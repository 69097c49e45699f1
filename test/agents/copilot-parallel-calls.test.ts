/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in) resumes a
 * Claude Code session with parallel tool calls (test/fixtures/claude/parallel-tools: each response one
 * record per block, its results between or after them) written into it, and sends each response's calls
 * in one message, answered by their real results, as threadbase's context of the copy has them.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { Session } from '../../src/model/types.js';
import type { AnthropicBlock } from '../helpers/anthropic-standin.js';
import { copilotHomeForFile, plainTextResults, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { type FixtureHome, fixtureHome, PARALLEL_ID } from '../helpers/fixture-homes.js';

const home = copilotHomeForFile('tb-copilot-parallel-');
let fixture: FixtureHome;
beforeAll(async () => {
  if (SKIP) return;
  fixture = await fixtureHome({ prefix: 'tb-copilot-parallel-claude-', fixtures: ['claudeParallel'] });
});
afterAll(async () => {
  if (fixture) await fs.rm(fixture.home, { recursive: true, force: true });
});

describe.skipIf(SKIP)('Claude Code parallel calls written into the real Copilot CLI', () => {
  it('are resumed with every result sent after its response', async () => {
    const claude = (await new ClaudeDriver(fixture.env).getSession(PARALLEL_ID)) as Session;
    const info = await home.driver.writeSession({ ...claude, project: home.project });
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe parallel', plainTextResults);
    expect(sent).toEqual(ours);
    const blocks = (type: string) =>
      sent.flatMap((m) => (typeof m.content === 'string' ? [] : (m.content as AnthropicBlock[]).filter((b) => b.type === type)));
    // each response's three calls in one message
    const calls = sent.map((m) =>
      typeof m.content === 'string' ? [] : (m.content as AnthropicBlock[]).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
    );
    expect(calls.filter((c) => c.length)).toEqual(
      ['0001', '0003', '0005'].map((r) => [1, 2, 3].map((k) => `toolu_standin_${r}_${k}`)),
    );
    // each call's real result, none an error
    const recorded = new Map(
      claude.entries.flatMap((e) =>
        e.kind === 'message'
          ? e.message.parts.flatMap((p) => (p.type === 'tool_result' ? [[p.callId, p.content] as const] : []))
          : [],
      ),
    );
    const results = blocks('tool_result');
    expect(results.map((r) => [r.tool_use_id, r.content, r.is_error ?? false])).toEqual(
      results.map((r) => [r.tool_use_id, recorded.get(r.tool_use_id as string), false]),
    );
    expect(new Set(results.map((r) => r.tool_use_id)).size).toBe(9);
  }, 240_000);
});
