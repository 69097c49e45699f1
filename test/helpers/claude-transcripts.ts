/**
 * Hand-written Claude Code 2.1.332 transcripts for the real-resume tests of its loader's rules
 * (agents/claude-repeated-uuid, claude-batch-leaf, claude-rewind-empty): numbered records, the file
 * where Claude Code looks for it, and what the real `claude --resume` then sends against threadbase's
 * context of the same file.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, runClaude } from './agents.js';
import { comparable, type Msg } from './claude-requests.js';

export type TranscriptRecord = Record<string, unknown>;

/** Record n's uuid. */
export const numberedUuid = (n: number) => `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;

/** Record builders for session `id` in `cwd`; `second`: the record's time, seconds past a fixed minute. */
export function transcriptRecords(id: string, cwd: string) {
  const base = { sessionId: id, cwd, version: '2.1.332', isSidechain: false, userType: 'external' };
  const at = (second: number) => `2026-11-27T04:00:${String(second).padStart(2, '0')}.000Z`;
  const prompt = (n: number, parentUuid: string | null, text: string, second: number): TranscriptRecord => ({
    ...base,
    type: 'user',
    uuid: numberedUuid(n),
    parentUuid,
    timestamp: at(second),
    message: { role: 'user', content: text },
  });
  const assistant = (
    n: number,
    parentUuid: string,
    msgId: string,
    content: TranscriptRecord[],
    second: number,
  ): TranscriptRecord => ({
    ...base,
    type: 'assistant',
    uuid: numberedUuid(n),
    parentUuid,
    timestamp: at(second),
    message: {
      id: msgId,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { input_tokens: 3, output_tokens: 2 },
    },
  });
  /** a reply of its own response (`msg_<n>`) */
  const reply = (n: number, parentUuid: string, text: string, second: number) =>
    assistant(n, parentUuid, `msg_${n}`, [{ type: 'text', text }], second);
  /** one Bash call of the response `msg_batch` (parallel calls: one record each) */
  const call = (n: number, parentUuid: string, callId: string, command: string, second: number) =>
    assistant(n, parentUuid, 'msg_batch', [{ type: 'tool_use', id: callId, name: 'Bash', input: { command } }], second);
  const result = (n: number, parentUuid: string, callId: string, text: string, second: number): TranscriptRecord => ({
    ...base,
    type: 'user',
    uuid: numberedUuid(n),
    parentUuid,
    timestamp: at(second),
    sourceToolAssistantUUID: parentUuid,
    toolUseResult: { stdout: text, stderr: '', interrupted: false, isImage: false },
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: text, is_error: false }] },
  });
  const lastPrompt = (leaf: number): TranscriptRecord => ({
    type: 'last-prompt',
    lastPrompt: 'x',
    leafUuid: numberedUuid(leaf),
    sessionId: id,
  });
  return { prompt, assistant, reply, call, result, lastPrompt };
}

/** The transcript file of session `id` in the home's project. */
export function transcriptPath(home: AgentHome, id: string): string {
  return join(home.root, '.claude', 'projects', encodeProjectPath(home.project), `${id}.jsonl`);
}

export async function writeTranscript(home: AgentHome, id: string, records: TranscriptRecord[]): Promise<void> {
  await fs.mkdir(join(transcriptPath(home, id), '..'), { recursive: true });
  await fs.writeFile(transcriptPath(home, id), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
}

/**
 * Resumes session `id` with the real claude: what it sent (without the probe, and without the "No
 * response requested." Claude Code answers a prompt left without a reply with), our session read
 * before, and our context of it, both in comparable form.
 */
export async function resumedByClaude(home: AgentHome, id: string) {
  const session = (await new ClaudeDriver(home.env).getSession(id)) as Session;
  const probe = `probe of ${id}`;
  const mark = home.standIn.messageRequests().length;
  expect((await runClaude(home, ['--resume', id], probe)).session_id).toBe(id);
  const request = home.standIn
    .messageRequests()
    .slice(mark)
    .find((r) => JSON.stringify(r.messages).includes(probe));
  if (!request) throw new Error('no request carried the probe');
  const sent = comparable(request.messages as Msg[], probe);
  const noReply = { role: 'assistant', content: [{ type: 'text', text: 'No response requested.' }] };
  const conversation = JSON.stringify(sent.at(-1)) === JSON.stringify(noReply) ? sent.slice(0, -1) : sent;
  return { session, conversation, ours: comparable(contextToAnthropic(buildContext(session)).messages as Msg[]) };
}
