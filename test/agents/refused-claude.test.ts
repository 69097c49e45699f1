/**
 * Refused calls and the real Claude Code (`claude -p`, the pinned 2.1.332, against the loopback
 * stand-in):
 * - a Bash call `-p` does not allow (it creates a file, no --allowedTools) is denied by Claude Code's
 *   permission check; the record it writes (`toolDenialKind: "user-rejected"`) reads as refused, and
 *   resumed it is sent as an is_error result of its reason, as threadbase's context has it;
 * - a refusal from another agent (Gemini CLI's "[Operation Cancelled] Reason: User denied execution.",
 *   marked `refused`) written into Claude Code becomes Claude Code's own refusal: resumed, it is sent
 *   as Claude Code sends a call its user rejected (REJECT_MESSAGE, is_error), as our context says.
 */
import { describe, expect, it } from 'vitest';
import { REJECTED_TOOL_RESULT } from '../../src/formats/claude/denials.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { agentHomeForFile, runClaude } from '../helpers/agents.js';
import { type AnthropicRequest, sentToolResults } from '../helpers/anthropic-standin.js';
import { type Block, conversation, type Msg } from '../helpers/claude-requests.js';
import { runCli } from '../helpers/cli.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

const home = agentHomeForFile({ timeout: 60_000 });

/** The request that carried `probe`, and its conversation before the probe. */
async function resume(id: string, probe: string): Promise<Msg[]> {
  const before = home.standIn.messageRequests().length;
  await runClaude(home, ['--resume', id], probe);
  const req = home.standIn
    .messageRequests()
    .slice(before)
    .find((r: AnthropicRequest) => JSON.stringify(r.messages).includes(probe));
  if (!req) throw new Error(`no request carried ${probe}`);
  const sent = conversation(req.messages as Msg[]);
  const last = sent[sent.length - 1] as { role: string; content: Block[] };
  last.content = last.content.filter((b) => !(b.type === 'text' && b.text === probe));
  if (!last.content.length) sent.pop();
  return sent;
}

async function ourContext(id: string): Promise<Msg[]> {
  const r = await runCli(home.env, ['context', id, '--source', 'claude', '--format', 'anthropic']);
  expect(r.code, r.err).toBe(0);
  return conversation((JSON.parse(r.out) as { messages: Msg[] }).messages);
}

async function resultPart(id: string): Promise<ToolResultPart> {
  const [part] = toolResultsOf(await new ClaudeDriver(home.env).getSession(id));
  if (!part) throw new Error(`no result in ${id}`);
  return part;
}

describe('refused calls and the real Claude Code', () => {
  it('its own denial reads as refused and is sent back as threadbase says', async () => {
    const run = await runClaude(home, [], 'RUN: touch made.txt');
    const part = await resultPart(run.session_id);
    expect(part.isError).toBe(true);
    expect(part.meta?.refused).toBe(true);
    const ours = await ourContext(run.session_id);
    const sent = await resume(run.session_id, 'probe own denial');
    const [block] = sentToolResults(sent);
    expect(block).toMatchObject({ type: 'tool_result', is_error: true });
    expect(String(block?.content)).toContain('needs approval');
    expect(sent).toEqual(ours);
  }, 120_000);

  it("a refusal from Gemini CLI is written as Claude Code's own and resumed so", async () => {
    const session = geminiDeclinedSession({
      project: home.project,
      model: 'claude-sonnet-4-5',
      tool: 'Bash',
      cancelledToo: false,
    });
    const info = await new ClaudeDriver(home.env).writeSession(session);
    const part = await resultPart(info.id);
    expect(part.meta?.refused).toBe(true);
    expect(part.content).toBe(REJECTED_TOOL_RESULT);
    const ours = await ourContext(info.id);
    const sent = await resume(info.id, 'probe gemini refusal');
    const [block] = sentToolResults(sent);
    expect(block).toEqual({
      type: 'tool_result',
      tool_use_id: block?.tool_use_id,
      content: REJECTED_TOOL_RESULT,
      is_error: true,
    });
    expect(sent).toEqual(ours);
  }, 120_000);
});
