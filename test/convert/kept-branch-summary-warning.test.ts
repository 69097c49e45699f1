/**
 * `convert`'s warning about a codex compaction's kept messages (written after the target's summary,
 * where codex sent them before its own) when a branch summary is among them: codex's compaction copied
 * the user turn threadbase wrote for a branch summary into its replacement history, and that copy is
 * written into the target as the branch summary again (convert/session.ts keptMessagesOf). It is one of
 * the kept entries moved after the summary, so the warning counts it and says so.
 */
import { describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import { sessionAlongPath } from '../../src/convert/session.js';
import { SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import type { Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { responseItem, rolloutTime, tempRollouts, textItem } from '../helpers/codex-rollouts.js';

const rollouts = tempRollouts('tb-kept-branch-summary-');

const ID = '7fb163c3-9bc3-43be-99b7-06ea8f10e0f6';
const BRANCH = 'Stand-in branch summary: a file was written on the branch left behind.';
const SENT = branchSummaryText(BRANCH);
const SUMMARY = `${SUMMARY_PREFIX}\nStand-in summary of the conversation so far.`;
/** codex's copy in a replacement history: an id of its own, no `threadbase` field. */
const copy = (n: number, role: string, text: string) => textItem(role, text, { id: `msg_copy_${n}` });

/**
 * A rollout as real codex 0.169 leaves it (test/formats/codex-compaction-branch-summary.test.ts):
 * threadbase's lines with a branch summary's user turn, then codex's compaction, which kept the user's
 * messages, that turn among them (`withBranchSummary`), before its summary.
 */
async function rollout(withBranchSummary: boolean): Promise<Session> {
  const lines = [
    {
      timestamp: rolloutTime(0),
      type: 'session_meta',
      payload: { id: ID, timestamp: rolloutTime(0), cwd: '/w', originator: 'threadbase', cli_version: '0.169.0', source: 'cli' },
    },
    responseItem(1, textItem('user', 'Start the work')),
    responseItem(2, textItem('assistant', 'Started.')),
    ...(withBranchSummary
      ? [responseItem(3, textItem('user', SENT, { threadbase: { branchSummary: { summary: BRANCH, fromId: 'a2' } } }))]
      : []),
    responseItem(4, textItem('user', 'Go on without it')),
    responseItem(5, textItem('assistant', 'Going on.')),
    {
      timestamp: rolloutTime(9),
      type: 'compacted',
      payload: {
        message: SUMMARY,
        replacement_history: [
          copy(1, 'user', 'Start the work'),
          ...(withBranchSummary ? [copy(2, 'user', SENT)] : []),
          copy(3, 'user', 'Go on without it'),
          copy(4, 'user', SUMMARY),
        ],
      },
    },
    responseItem(11, textItem('user', 'third question', { id: 'msg_q3' })),
    responseItem(12, textItem('assistant', 'ok: third question', { id: 'msg_a3', status: 'completed' })),
  ];
  return rollouts.read(ID, lines);
}

const keptWarning = (s: Session, to: string) =>
  conversionLosses(sessionAlongPath(s, undefined, to), to).filter((w) => w.includes('compaction kept'));

describe('the warning about the kept messages of a codex compaction', () => {
  for (const to of ['pi', 'claude', 'opencode'] as const)
    it(`→ ${to}: a kept branch summary is counted and named`, async () => {
      const s = await rollout(true);
      // what is written after the summary: two user messages and the branch summary between them
      const written = sessionAlongPath(s, undefined, to);
      const afterSummary = written.entries.slice(written.entries.findIndex((e) => e.kind === 'compaction') + 1, -2);
      expect(afterSummary.map((e) => e.kind)).toEqual(['message', 'branch_summary', 'message']);
      expect(keptWarning(s, to)).toEqual([
        `codex:${ID} → ${to}: messages codex's compaction kept (its replacement history: the user's earlier prompts, its environment context, a branch summary) are written after ${to}'s compaction summary, so ${to} sends them after it (codex sent them before its summary) (3)`,
      ]);
    });

  it('without a branch summary among them: the messages only, worded as before', async () => {
    expect(keptWarning(await rollout(false), 'pi')).toEqual([
      `codex:${ID} → pi: messages codex's compaction kept (its replacement history: the user's earlier prompts, its environment context) are written after pi's compaction summary, so pi sends them after it (codex sent them before its summary) (2)`,
    ]);
  });

  it('codex puts them back before its summary: nothing to say', async () => {
    expect(keptWarning(await rollout(true), 'codex')).toEqual([]);
  });
});
