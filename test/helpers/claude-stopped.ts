/**
 * A Claude Code 2.1.332 transcript of a prompt, a Bash call and its result, for the tests of a call the
 * user stopped while it ran (test/convert/claude-additions-*, test/agents/claude-additions-stopped).
 */
import { REJECTED_TOOL_RESULT } from '../../src/formats/claude/denials.js';

/** The result Claude Code records for a call stopped while it ran: its refusal and the correction. */
export const STOPPED = `${REJECTED_TOOL_RESULT} Correction to the text above: this call was stopped while running, not refused before it ran. It may have run in part or in full, and its changes may have been written. No permission prompt was involved. Work it started elsewhere (a remote command, a background process) may still be running, so check before starting the same work again. The instruction to stop and wait still stands.`;

/** The fields a stopped call's result record carries (2.1.332). */
export const STOPPED_FIELDS = { toolUseResult: 'User rejected tool use', toolDenialKind: 'user-rejected' };

/**
 * The transcript's JSONL (no last line break): `lead` records (each its own fields, e.g. an attachment),
 * the prompt `RUN: sleep 20`, the call, and its result of `content` with `extra` fields, one chain.
 */
export function stoppedCallTranscript(opts: {
  id: string;
  cwd: string;
  model?: string;
  content?: string;
  extra?: Record<string, unknown>;
  lead?: Record<string, unknown>[];
}): string {
  const { id, cwd, model = 'claude-sonnet-4-5', content = STOPPED, extra = STOPPED_FIELDS, lead = [] } = opts;
  const base = { sessionId: id, cwd, version: '2.1.332', isSidechain: false, userType: 'external' };
  const records: Record<string, unknown>[] = [
    ...lead,
    { type: 'user', message: { role: 'user', content: 'RUN: sleep 20' } },
    {
      type: 'assistant',
      message: {
        id: `msg_${id.slice(0, 4)}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'sleep 20' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 2 },
      },
    },
    {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content }] },
      ...extra,
    },
  ];
  const uuid = (n: number) => `00000000-0000-4000-8000-${id.slice(0, 4)}0000000${n}`;
  return records
    .map((r, i) =>
      JSON.stringify({
        ...base,
        ...r,
        uuid: uuid(i + 1),
        parentUuid: i === 0 ? null : uuid(i),
        timestamp: `2026-11-27T04:00:0${i}.000Z`,
      }),
    )
    .join('\n');
}
