/**
 * A call the user stopped while it ran: Claude Code 2.1.332 records its result as its refusal with a
 * correction (it was stopped while running and may have run in part; work it started may still run),
 * which threadbase reads as cancelled (src/formats/claude/denials.ts). Carried into pi, Codex and
 * OpenCode the result keeps those words (stoppedCallsInClaudeWords), so their model is sent what
 * Claude Code's was and not their own words for a call that did not run; back in Claude Code it is the
 * original's result again, read as cancelled. A call cancelled before it ran still takes the other
 * agent's words.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { CANCELLED_TOOL_RESULT } from '../../src/formats/claude/denials.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { resultText } from '../../src/model/tree.js';
import type { Session, SourceName, ToolResultPart } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { STOPPED, stoppedCallTranscript } from '../helpers/claude-stopped.js';
import { readSession } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const PROJECT = '/tmp/tb-claude-stopped';

const STOPPED_ID = '7a1e0c52-2b7e-4b61-9a53-0d6f1d2a7c11';
const CANCELLED_ID = '8b2f1d63-3c8f-4c72-8b64-1e7a2e3b8d22';

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home, env } = await fixtureHome({ prefix: 'tb-claude-stopped-', fixtures: ['opencode'] }));
  const dir = join(home, '.claude', 'projects', PROJECT.replace(/[^A-Za-z0-9]/g, '-'));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, `${STOPPED_ID}.jsonl`), `${stoppedCallTranscript({ id: STOPPED_ID, cwd: PROJECT })}\n`);
  await fs.writeFile(
    join(dir, `${CANCELLED_ID}.jsonl`),
    `${stoppedCallTranscript({ id: CANCELLED_ID, cwd: PROJECT, content: CANCELLED_TOOL_RESULT, extra: { toolDenialKind: 'cancelled' } })}\n`,
  );
});
afterAll(async () => {
  if (home) await fs.rm(home, { recursive: true, force: true });
});

async function hop(from: Session, to: SourceName): Promise<Session> {
  return readSession({ env }, to, (await convertSession(from, { to, env })).id);
}

/** The one tool result `agent` sends resuming `s`. */
async function sentResult(agent: string, s: Session): Promise<ToolResultPart> {
  const sources = new Sources(env);
  try {
    const ctx = await sources.driver(agent).getContext(s.id);
    const r = ctx.messages.flatMap((m) => m.parts).find((p): p is ToolResultPart => p.type === 'tool_result');
    if (!r) throw new Error(`${agent} sends no result`);
    return r;
  } finally {
    await sources.close();
  }
}

const resultIn = (s: Session) =>
  s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'tool_result') as ToolResultPart;

describe('a call stopped while it ran, carried out of Claude Code and back', () => {
  it('is read cancelled', async () => {
    expect(resultIn(await readSession({ env }, 'claude', STOPPED_ID)).meta?.cancelled).toBe(true);
  });

  for (const agent of ['pi', 'codex', 'opencode'] as const)
    it(`keeps Claude Code's words with their correction in ${agent}, which sends them`, async () => {
      const copy = await hop(await readSession({ env }, 'claude', STOPPED_ID), agent);
      const sent = await sentResult(agent, copy);
      expect(resultText(sent.content)).toBe(STOPPED);
      expect(sent.isError).toBe(true);
    });

  it('comes back from pi as the original result, read cancelled again', async () => {
    const back = await hop(await hop(await readSession({ env }, 'claude', STOPPED_ID), 'pi'), 'claude');
    const r = resultIn(back);
    expect(resultText(r.content)).toBe(STOPPED);
    expect(r.meta?.cancelled).toBe(true);
    expect(resultText((await sentResult('claude', back)).content)).toBe(STOPPED);
  });

  it('a call cancelled before it ran still takes the other agent’s words', async () => {
    const copy = await hop(await readSession({ env }, 'claude', CANCELLED_ID), 'pi');
    const r = resultIn(copy);
    expect(r.meta?.cancelled).toBe(true);
    expect(resultText(r.content)).not.toBe(CANCELLED_TOOL_RESULT);
  });
});
