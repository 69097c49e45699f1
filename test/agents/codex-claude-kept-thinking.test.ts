/**
 * The real Claude Code's /compact keeps the last reply (its preserved segment), whose signed thinking is
 * a record of its own before the reply's text. Carried claude → codex → claude, the copy is resumed by
 * Claude Code with what it sends for the original: that thinking with its signature included (it was
 * missing from codex's replacement history, which kept the thinking of a reply's own items only). The
 * real codex resumes the codex hop and sends the kept reply's text without any thinking or field of
 * threadbase's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { type CodexAgentHome, resumedByCodex, runClaude, setupCodexAgentHome } from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import { type Block, comparable } from '../helpers/claude-requests.js';
import { readSession, resumeInTarget, textOf } from '../helpers/conversions.js';

let home: CodexAgentHome;
let sessionId: string;

/** `THINK <n>`: signed thinking and a text (Claude Code records them as two lines of one message id). */
const thinkRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return undefined;
  const text = textOf(last.content as string | Block[]).at(-1) ?? '';
  if (text.startsWith('THINK')) return { thinking: `Thought on ${text}.`, text: `Answer to ${text}.` };
  return undefined;
};

beforeAll(async () => {
  home = await setupCodexAgentHome({ rules: [thinkRule] });
  sessionId = (await runClaude(home, [], 'THINK one')).session_id;
  await runClaude(home, ['--resume', sessionId], 'THINK two');
  await runClaude(home, ['--resume', sessionId], 'THINK three');
  await runClaude(home, ['--resume', sessionId], '/compact');
  await runClaude(home, ['--resume', sessionId], 'THINK four');
}, 300_000);

afterAll(async () => {
  await home?.close();
});

describe('claude → codex → claude of a session whose /compact kept a reply with signed thinking', () => {
  it('Claude Code resumes the copy with the kept reply’s thinking, as it resumes the original', async () => {
    const source = await readSession(home, 'claude', sessionId);
    const compaction = source.entries.find((e) => e.kind === 'compaction');
    // Claude Code kept the last reply before /compact: its thinking record first
    const firstKept = source.entries.find((e) => e.id === (compaction?.kind === 'compaction' && compaction.firstKeptEntryId));
    expect(firstKept?.kind === 'message' && firstKept.message.parts.map((p) => p.type)).toEqual(['thinking']);

    const inCodex = await readSession(home, 'codex', (await convertSession(source, { to: 'codex', env: home.env })).id);
    const back = await convertSession(inCodex, { to: 'claude', env: home.env });
    const model = source.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))[0];
    const original = await resumeInTarget(home, 'claude', { id: sessionId, source: 'claude', path: '' }, 'probe original', model);
    const copy = await resumeInTarget(home, 'claude', { id: back.id, source: 'claude', path: '' }, 'probe copy', model);
    expect(comparable(copy, 'probe copy')).toEqual(comparable(original, 'probe original'));
    const kept = comparable(copy, 'probe copy').find((m) => m.content.some((b) => b.text === 'Answer to THINK three.'));
    expect(kept?.content).toEqual([
      { type: 'thinking', thinking: 'Thought on THINK three.', signature: 'sig-standin-3' },
      { type: 'text', text: 'Answer to THINK three.' },
    ]);

    // the real codex resumes its hop: the kept reply's text after the summary, no thinking, nothing of threadbase's
    const sent = await resumedByCodex(home, inCodex.id, 'probe codex');
    const text = JSON.stringify(sent);
    expect(text).toContain('Answer to THINK three.');
    expect(text).not.toContain('Thought on THINK');
    expect(text).not.toContain('threadbase');
  });
});
