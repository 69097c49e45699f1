/**
 * A branch summary threadbase wrote into a codex rollout (a user message of its text, the entry kept
 * beside it in `threadbase.branchSummary`) through a compaction codex made itself: codex copies the
 * user message into its `compacted` record's replacement history without that field (the lines below
 * are what real codex 0.169 wrote, trimmed: test/agents/codex-compaction-branch-summary.test.ts). The
 * copy is recognised by its text (the branch summary's, earlier in the file) and carried into another
 * agent as the branch summary again, not as a plain user message; written back into codex it is a copy
 * before the summary again, so codex sends what it sent; pi, Claude Code and OpenCode read it back as one.
 */
import { copyFileSync, promises as fs, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { convertSessionAll, sessionAlongPath } from '../../src/convert/session.js';
import { codexContext, contextToResponses, encodeRollout, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import { Sources } from '../../src/formats/registry.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { responseItem, rolloutTime, tempRollouts, textItem } from '../helpers/codex-rollouts.js';
import { itemLine, type ResponsesItem } from '../helpers/openai-responses-standin.js';

const rollouts = tempRollouts('tb-codex-branch-compaction-');

const ID = '7fb163c3-9bc3-43be-99b7-06ea8f10e0f5';
const BRANCH = 'Stand-in branch summary: a file was written on the branch left behind.';
/** pi's wording of the summary: what the rollout has for it (convert/session.ts withSummaryTexts). */
const SENT = branchSummaryText(BRANCH);
const SUMMARY = `${SUMMARY_PREFIX}\nStand-in summary of the conversation so far.`;
const ENV = '<environment_context>\n  <cwd>/w</cwd>\n  <shell>bash</shell>\n</environment_context>';

/** codex's copy in a replacement history: an id of its own, its metadata, no `threadbase` field. */
const copy = (n: number, role: string, text: string) =>
  textItem(role, text, { id: `msg_copy_${n}`, internal_chat_message_metadata_passthrough: { content_item_kinds: ['unknown'] } });

/** The rollout real codex left: threadbase's lines (pi's session), codex's turn, its compaction, its next turn. */
function codexLines(compacted: object): object[] {
  return [
    {
      timestamp: rolloutTime(0),
      type: 'session_meta',
      payload: {
        id: ID,
        timestamp: rolloutTime(0),
        cwd: '/w',
        originator: 'threadbase',
        cli_version: '0.169.0',
        source: 'cli',
        model_provider: 'standin',
      },
    },
    responseItem(1, textItem('user', 'Start the work')),
    responseItem(2, textItem('assistant', 'Started.')),
    responseItem(3, textItem('user', SENT, { threadbase: { branchSummary: { summary: BRANCH, fromId: 'a2' } } })),
    responseItem(4, textItem('user', 'Go on without it')),
    responseItem(5, textItem('assistant', 'Going on.')),
    responseItem(6, textItem('user', ENV, { id: 'msg_env' })),
    responseItem(7, textItem('user', 'second question', { id: 'msg_q2' })),
    responseItem(8, textItem('assistant', 'ok: second question', { id: 'msg_standin_0001', status: 'completed' })),
    { timestamp: rolloutTime(9), type: 'compacted', payload: compacted },
    { timestamp: rolloutTime(10), type: 'event_msg', payload: { type: 'context_compacted' } },
    responseItem(11, textItem('user', 'third question', { id: 'msg_q3' })),
    responseItem(12, textItem('assistant', 'ok: third question', { id: 'msg_standin_0003', status: 'completed' })),
  ];
}

/** codex 0.169's compaction: the user's messages (the branch summary's among them), its context, the summary. */
const REMOTE = {
  message: SUMMARY,
  replacement_history: [
    copy(1, 'user', 'Start the work'),
    copy(2, 'user', SENT),
    copy(3, 'user', 'Go on without it'),
    copy(4, 'user', ENV),
    copy(5, 'user', 'second question'),
    copy(6, 'user', SUMMARY),
  ],
};

function rollout(lines: object[]): Promise<Session> {
  return rollouts.read(ID, lines);
}

/** The entries after the compaction, as kinds and texts, on the path another agent is written. */
function afterCompaction(s: Session): string[] {
  const entries = s.entries;
  return entries.slice(entries.findIndex((e) => e.kind === 'compaction') + 1).flatMap((e: Entry) => {
    if (e.kind === 'branch_summary') return [`branch_summary ${e.summary}${e.text === SENT ? ' (pi-worded)' : ''}`];
    if (e.kind === 'message')
      return [`${e.message.role} ${e.message.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join('')}`];
    return [];
  });
}

describe("codex: a branch summary through codex's own compaction", () => {
  it('the copy in the replacement history is marked as the branch summary in codex’s context', async () => {
    const s = await rollout(codexLines(REMOTE));
    const ctx = codexContext(s);
    const copies = ctx.messages.filter((m) => m.meta?.copiedBranchSummary !== undefined);
    expect(copies.map((m) => m.meta?.copiedBranchSummary)).toEqual([{ summary: BRANCH, fromId: 'a2' }]);
    // what codex sends is unchanged: the copy as the user message it is
    expect(contextToResponses(ctx).input.map(itemLine)).toContain(`user ${SENT}`);
  });

  it('into another agent the copy is a branch summary entry again, with its text and fromId', async () => {
    const s = await rollout(codexLines(REMOTE));
    const written = sessionAlongPath(s, undefined, 'pi');
    expect(afterCompaction(written)).toEqual([
      'user Start the work',
      `branch_summary ${BRANCH} (pi-worded)`,
      'user Go on without it',
      `user ${ENV}`,
      'user second question',
      'user third question',
      'assistant ok: third question',
    ]);
    const kept = written.entries.find((e) => e.kind === 'branch_summary' && e.id.includes('-kept-'));
    expect(kept).toMatchObject({ summary: BRANCH, fromId: 'a2', text: SENT });
  });

  it('a user message of the same text with no branch summary before it stays a message', async () => {
    const lines = codexLines(REMOTE).filter((l) => !JSON.stringify(l).includes('"threadbase"'));
    const written = sessionAlongPath(await rollout(lines), undefined, 'pi');
    expect(written.entries.filter((e) => e.kind === 'branch_summary')).toEqual([]);
  });

  it('a local compaction (no replacement history: codex rebuilds it from the user messages) marks the copy too', async () => {
    const s = await rollout(codexLines({ message: SUMMARY }));
    expect(afterCompaction(sessionAlongPath(s, undefined, 'claude'))).toContain(`branch_summary ${BRANCH} (pi-worded)`);
  });

  it('written back into codex from another agent, the copies go before the summary again: codex sends the same', async () => {
    const s = await rollout(codexLines(REMOTE));
    const original = contextToResponses(codexContext(s)).input.map(itemLine);
    // as another agent holds it: its own entries (no codex records), the kept copies after the compaction
    const other = sessionAlongPath(s, undefined, 'pi');
    const foreign: Session = {
      ...other,
      source: 'pi',
      leafId: undefined,
      entries: other.entries
        .filter((e) => e.kind !== 'metadata' && e.kind !== 'model_change')
        .map((e, i, kept): Entry => {
          const { raw: _raw, rawSource: _rs, ...rest } = e;
          return { ...rest, parentId: kept[i - 1]?.id ?? null } as Entry;
        }),
    };
    const { lines } = encodeRollout(foreign, ID);
    const compacted = lines.find((l) => l.type === 'compacted')?.payload as { replacement_history: ResponsesItem[] };
    expect(compacted.replacement_history.map(itemLine)).toEqual(
      REMOTE.replacement_history.map((i) => itemLine(i as ResponsesItem)),
    );
    const back = await rollout(lines);
    expect(contextToResponses(codexContext(back)).input.map(itemLine)).toEqual(original);
  });

  for (const to of ['pi', 'claude', 'opencode'] as const)
    it(`written into ${to} and read back: the branch summary before the compaction and its copy after it`, async () => {
      const home = await fs.mkdtemp(join(tmpdir(), 'tb-codex-branch-compaction-home-'));
      rollouts.temps.push(home);
      mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
      // OpenCode creates its schema on first run; a database it made stands in for that run.
      const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
      copyFileSync(fixture, join(home, '.local', 'share', 'opencode', 'opencode.db'));
      mkdirSync(join(home, 'w'), { recursive: true });
      const env = { home, env: {} };
      const s = { ...(await rollout(codexLines(REMOTE))), project: join(home, 'w') };
      const [written] = await convertSessionAll(s, { to, env });
      const sources = new Sources(env);
      try {
        const read = await sources.driver(to).getSession(written?.id as string);
        const path = pathToLeaf(read as Session);
        const summaries = path.flatMap((e) =>
          e.kind === 'branch_summary' ? [e.summary] : e.kind === 'compaction' ? ['compaction'] : [],
        );
        expect(summaries).toEqual([BRANCH, 'compaction', BRANCH]);
        const plain = path.filter(
          (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === SENT),
        );
        expect(plain).toEqual([]);
      } finally {
        await sources.close();
      }
    });
});
