/**
 * Refused and cancelled calls in Claude Code transcripts (src/formats/claude/denials.ts): the
 * record Claude Code 2.1.332 wrote live for a call `-p` was not allowed to make (`toolDenialKind:
 * "user-rejected"`, its own reason as the error) reads as refused; an interrupted one as cancelled, and so
 * does one stopped while it ran, which 2.1.332 records as `user-rejected` with a correction;
 * an older record by its words; a refusal from another agent (Gemini CLI's words) is written as
 * Claude Code's own refusal and reads back refused. The real agent resuming one:
 * test/agents/refused-claude.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REJECTED_TOOL_RESULT } from '../../src/formats/claude/denials.js';
import { encodeClaudeTranscript, parseTranscript } from '../../src/formats/claude/index.js';
import type { Entry, Message, Session, ToolResultPart } from '../../src/model/types.js';
import { messageEntry, secondInto2026 as t } from '../helpers/sessions.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-claude-refused-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REASON =
  "touch in '/tmp/p/made.txt' needs approval. The path is inside the working directories for this session ('/tmp/p'), and Claude Code asks before a shell command creates, changes or removes files there.";

function records(result: Record<string, unknown>, extra: Record<string, unknown>): string {
  const base = { sessionId: 's1', cwd: '/tmp/p', version: '2.1.332', isSidechain: false, userType: 'external' };
  return [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      timestamp: t(0),
      message: { role: 'user', content: 'RUN: touch made.txt' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      timestamp: t(1),
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'touch made.txt' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 2 },
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      timestamp: t(2),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, ...result }] },
      ...extra,
    },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
}

async function resultOf(jsonl: string): Promise<ToolResultPart> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${jsonl}\n`);
  const { entries } = await parseTranscript(file);
  const parts = entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
  const r = parts.find((p) => p.type === 'tool_result');
  if (r?.type !== 'tool_result') throw new Error('no result');
  return r;
}

describe('Claude Code refused and cancelled calls', () => {
  it('reads the record 2.1.332 writes for a call -p did not allow as refused', async () => {
    const r = await resultOf(
      records(
        { content: REASON },
        {
          toolUseResult: `Error: ${REASON}`,
          toolDenialKind: 'user-rejected',
          permissionDecision: { decision: 'reject', source: 'config', reasonCode: 'unknown' },
        },
      ),
    );
    expect(r.isError).toBe(true);
    expect(r.content).toBe(REASON);
    expect(r.meta?.refused).toBe(true);
    expect(r.meta?.cancelled).toBeUndefined();
  });

  it('reads an interrupted call as cancelled, an older refusal by its words, an ordinary error as neither', async () => {
    const interrupted = await resultOf(records({ content: 'Interrupted by user' }, { toolDenialKind: 'interrupted' }));
    expect(interrupted.meta?.cancelled).toBe(true);
    expect(interrupted.meta?.refused).toBeUndefined();
    expect((await resultOf(records({ content: REJECTED_TOOL_RESULT }, {}))).meta?.refused).toBe(true);
    const escaped = await resultOf(
      records({ content: "The user doesn't want to take this action right now. STOP what you are doing." }, {}),
    );
    expect(escaped.meta?.cancelled).toBe(true);
    const failed = await resultOf(records({ content: 'Exit code 1' }, {}));
    expect(failed.meta?.refused).toBeUndefined();
    expect(failed.meta?.cancelled).toBeUndefined();
  });

  it('reads a call the user stopped while it ran as cancelled, though 2.1.332 records it as user-rejected', async () => {
    // the record 2.1.332 wrote live for a running `sleep 20` interrupted through -p's stream-json control request
    const stopped = `${REJECTED_TOOL_RESULT} Correction to the text above: this call was stopped while running, not refused before it ran. It may have run in part or in full, and its changes may have been written. No permission prompt was involved. Work it started elsewhere (a remote command, a background process) may still be running, so check before starting the same work again. The instruction to stop and wait still stands.`;
    const r = await resultOf(
      records({ content: stopped }, { toolUseResult: 'User rejected tool use', toolDenialKind: 'user-rejected' }),
    );
    expect(r.isError).toBe(true);
    expect(r.content).toBe(stopped);
    expect(r.meta?.cancelled).toBe(true);
    expect(r.meta?.refused).toBeUndefined();
  });

  it("writes another agent's refusal as Claude Code's own, and reads it back refused", async () => {
    const call: Message = {
      role: 'assistant',
      model: 'gemini-2.5-pro',
      parts: [{ type: 'tool_call', id: 'call_1', name: 'run_shell_command', input: { command: 'touch x' } }],
    };
    const refused: Message = {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: 'call_1',
          name: 'run_shell_command',
          content: '[Operation Cancelled] Reason: User denied execution.',
          isError: true,
          meta: { refused: true },
        },
      ],
    };
    const entries: Entry[] = [
      messageEntry('e1', null, 0, { role: 'user', parts: [{ type: 'text', text: 'make x' }] }),
      messageEntry('e2', 'e1', 1, call),
      messageEntry('e3', 'e2', 2, refused),
    ];
    const session: Session = {
      id: 'g1',
      source: 'gemini',
      project: '/tmp/p',
      createdAt: t(0),
      updatedAt: t(2),
      messageCount: 3,
      entries,
    };
    const out = encodeClaudeTranscript(session, { cwd: '/tmp/p' });
    const rec = out.records.find((r) => JSON.stringify(r).includes('"tool_result"')) as Record<string, unknown>;
    expect(rec.toolDenialKind).toBe('user-rejected');
    expect((rec.message as { content: unknown }).content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: REJECTED_TOOL_RESULT, is_error: true },
    ]);
    const back = await resultOf(out.jsonl.trimEnd());
    expect(back.meta?.refused).toBe(true);
    expect(back.content).toBe(REJECTED_TOOL_RESULT);
  });

  it("keeps Claude Code's own words for its denial, not another agent's that replaced them on a round trip", async () => {
    const file = join(dir, 'denied.jsonl');
    writeFileSync(
      file,
      `${records(
        { content: REASON },
        { toolUseResult: `Error: ${REASON}`, toolDenialKind: 'user-rejected', permissionDecision: { decision: 'reject' } },
      )}\n`,
    );
    const { entries } = await parseTranscript(file);
    const session: Session = {
      id: 's1',
      source: 'claude',
      project: '/tmp/p',
      createdAt: t(0),
      updatedAt: t(2),
      messageCount: 3,
      entries,
    };
    const resultWords = (s: Session) => {
      const rec = encodeClaudeTranscript(s, { cwd: '/tmp/p' }).records.find((r) =>
        JSON.stringify(r).includes('"tool_result"'),
      ) as { message: { content: { content: unknown }[] } };
      return rec.message.content[0]?.content;
    };
    // written back as read: the permission rule's reason stays
    expect(resultWords(session)).toBe(REASON);
    // as it comes back from Qwen Code: Qwen's refusal words in its place, the message's Claude Code meta kept
    const throughQwen: Session = {
      ...session,
      entries: session.entries.map(({ raw: _raw, rawSource: _source, ...e }) =>
        e.kind === 'message' && e.message.role !== 'assistant'
          ? {
              ...e,
              message: {
                ...e.message,
                parts: e.message.parts.map((p) =>
                  p.type === 'tool_result' ? { ...p, content: '[Operation Cancelled] Reason: User did not allow tool call' } : p,
                ),
              },
            }
          : e,
      ),
    };
    expect(resultWords(throughQwen)).toBe(REJECTED_TOOL_RESULT);
  });
});
