/**
 * A branch summary through a compaction codex makes itself (real codex 0.169 on the loopback Responses
 * stand-in): a pi session that went back in its tree with a summary, `threadbase convert --to codex`
 * (the summary a user message in pi's wording, the entry kept beside it in `threadbase.branchSummary`),
 * codex resumes it twice, compacting before the second turn: its `compacted` record's replacement history
 * copies that user message without the `threadbase` field. Converted back into pi, the copy is pi's
 * branch_summary entry again (not a plain user message), pi resumes sending it in its own wording, and
 * converted into codex once more codex sends what it sent for its own session.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexContext, contextToResponses } from '../../src/formats/codex/index.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import { Sources } from '../../src/formats/registry.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { type CodexAgentHome, codexResumeInput, setupCodexAgentHome } from '../helpers/agents.js';
import { convertWith, readSession, resumeInTarget, textOf } from '../helpers/conversions.js';
import { codexHistory, itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const BRANCH = 'Stand-in branch summary: a file was written on the branch left behind.';
/** What pi sends for the branch summary, and so what the codex rollout has for it. */
const SENT = branchSummaryText(BRANCH);

/** pi's layout of a session that went back to its first answer with a summary of the turn it left. */
function branchedPiSession(project: string): Session {
  const t = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}.000Z`;
  const text = (id: string, parentId: string | null, s: number, role: Message['role'], x: string): Entry => ({
    kind: 'message',
    id,
    parentId,
    timestamp: t(s),
    message: {
      role,
      parts: [{ type: 'text', text: x }],
      ...(role === 'assistant' ? { model: 'claude-sonnet-4-5', provider: 'anthropic' } : {}),
    },
  });
  return {
    id: 'pi-branched',
    source: 'pi',
    project,
    createdAt: t(0),
    updatedAt: t(7),
    messageCount: 6,
    entries: [
      text('u1', null, 1, 'user', 'Start the work'),
      text('a1', 'u1', 2, 'assistant', 'Started.'),
      text('u2', 'a1', 3, 'user', 'Write a file'),
      text('a2', 'u2', 4, 'assistant', 'Written.'),
      { kind: 'branch_summary', id: 'b1', parentId: 'a1', timestamp: t(5), summary: BRANCH, fromId: 'a2' },
      text('u3', 'b1', 6, 'user', 'Go on without it'),
      text('a3', 'u3', 7, 'assistant', 'Going on.'),
    ],
  };
}

let home: CodexAgentHome;
let codexId = '';
let codexPath = '';
/** What codex sent for its last turn, after its compaction. */
let codexSent: ResponsesItem[] = [];

beforeAll(async () => {
  home = await setupCodexAgentHome();
  const pi = new Sources(home.env).driver('pi');
  if (!pi.writeSession) throw new Error('the pi driver writes no sessions');
  const piId = (await pi.writeSession(branchedPiSession(home.project))).id;
  const written = await convertWith(home, piId, 'pi', 'codex');
  codexId = written.id;
  codexPath = written.path;
  await home.codex(['resume', codexId, 'second question']);
  // the second turn's tokens are far over 2000: codex compacts before this turn
  await home.codex(['resume', codexId, '-c', 'model_auto_compact_token_limit=2000', 'third question']);
  codexSent = home.responses.responseRequests().at(-1)?.input ?? [];
}, 300_000);

afterAll(async () => {
  await home?.close();
});

describe('a branch summary through a compaction codex makes itself', () => {
  it("codex's replacement history copies the branch summary's user message without threadbase's field", async () => {
    interface Line {
      type: string;
      payload: { replacement_history?: (ResponsesItem & { threadbase?: unknown })[] };
    }
    const lines = (await readFile(codexPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const compacted = lines.filter((l) => l.type === 'compacted');
    expect(compacted).toHaveLength(1);
    const history = compacted[0]?.payload.replacement_history ?? [];
    const copies = history.filter((it) => it.role === 'user' && itemText(it) === SENT);
    expect(copies).toHaveLength(1);
    expect(copies[0]?.threadbase).toBeUndefined();
    // our codex context is what codex sent (the probe's answer aside)
    const ours = contextToResponses(codexContext(await readSession(home, 'codex', codexId))).input;
    expect(codexHistory(ours.slice(0, -1))).toEqual(codexHistory(codexSent));
  });

  it('codex → pi: the copy is a branch_summary entry again, pi sends it in its wording; → codex once more, the same input', async () => {
    const back = await convertWith(home, codexId, 'codex', 'pi');
    const path = pathToLeaf(await readSession(home, 'pi', back.id));
    const compaction = path.findIndex((e) => e.kind === 'compaction');
    expect(compaction).toBeGreaterThan(0);
    const summaries = (es: Entry[]) => es.flatMap((e) => (e.kind === 'branch_summary' ? [e.summary] : []));
    // the original before the compaction, and codex's copy after it (the kept messages), as branch summaries
    expect(summaries(path.slice(0, compaction))).toEqual([BRANCH]);
    expect(summaries(path.slice(compaction + 1))).toEqual([BRANCH]);
    const plain = path.filter((e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === SENT));
    expect(plain).toEqual([]);

    // pi resumes it, sending the branch summary in its wording once, after its compaction summary
    const probe = 'probe after the branch summary';
    const sent = await resumeInTarget(home, 'pi', back, probe);
    const texts = sent.flatMap((m) => textOf(m.content));
    expect(texts.filter((t) => t === SENT)).toHaveLength(1);

    // and into codex once more: codex's context again (the copies before its summary), pi's turn after it
    const again = await convertWith(home, back.id, 'pi', 'codex');
    const original = codexHistory(contextToResponses(codexContext(await readSession(home, 'codex', codexId))).input);
    const input = codexHistory(await codexResumeInput(home, again.id, 'back from pi'));
    expect(input.slice(0, original.length)).toEqual(original);
  });
});
