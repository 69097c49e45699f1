/**
 * pi's own branching, with the real pi against the loopback stand-ins:
 * - pi records two turns (a question, then a bash call), then navigates its tree back to the first
 *   answer with a summary of the abandoned turn (AgentSession.navigateTree, what `/tree` runs: pi's
 *   RPC has no such command, so a one-command extension calls the extension API's navigateTree in
 *   print mode), and continues on the new branch;
 * - threadbase's context at the leaf is what pi sends when it resumes, the branch summary worded as
 *   pi words it; `show` lists both branches;
 * - `convert --to claude|opencode|codex` writes the current branch: each target resumes with the
 *   summary and the new branch's turns, none of the abandoned one; `--all-branches` keeps the tree
 *   in Claude Code and pi (resumed on the current branch) and writes one session per branch into
 *   OpenCode and codex, the current one first (CONVERT.md);
 * - each target sends the branch summary as pi words it and reads pi's entry back (kept beside the turn
 *   in a `threadbase` field it leaves alone); converted back into pi, the branch_summary entry is pi's
 *   again and pi resumes with the same context;
 * - pi going back to its first prompt (the summary the only turn, converted at once and after a turn),
 *   and pi compacting right after going back (its compaction keeps from the branch summary): our
 *   context is pi's, and the targets resume them, the branch summary the compaction kept included.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { NO_RESPONSE_REQUESTED } from '../../src/formats/claude/driver.js';
import { contextToResponses } from '../../src/formats/codex/index.js';
import { PiDriver } from '../../src/formats/pi/index.js';
import { BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX } from '../../src/formats/pi/records.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Session, SourceName } from '../../src/model/types.js';
import { contextsAtEveryEntry } from '../fixtures/pi/compare.js';
import {
  type CodexAgentHome,
  createOpencodeDatabase,
  PiRpc,
  resumedByCodex,
  runPi,
  setupCodexAgentHome,
} from '../helpers/agents.js';
import type { AnthropicRequest, Rule } from '../helpers/anthropic-standin.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import {
  type AnthropicAgent,
  convertWith,
  readContext,
  readSession,
  resumeInTarget,
  type Written,
} from '../helpers/conversions.js';
import { codexHistory as history, itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

let home: CodexAgentHome;
let extension: string;
let sessionId = '';
let sessionPath = '';

/** What the stand-in answers pi's branch summarisation with (pi puts its preamble before it). */
const SUMMARY = 'Stand-in branch summary: a file was written on the branch left behind.';
/** What it answers pi's compaction with. */
const COMPACTED = 'Stand-in compaction summary.';
/** Prompts of the abandoned branch and of the new one. */
const LEFT = 'RUN: echo left > left.txt';
const KEPT = 'RUN: echo kept > kept.txt';
const AFTER = 'after the tool call on the new branch';

/**
 * pi's branch summarisation (a request without tools whose system prompt is pi's summariser's) gets
 * SUMMARY and its number; `RUN: <cmd>` a bash call, any other prompt `ok: <prompt>` (the stand-in's defaults).
 */
let summaries = 0;
const summaryRule: Rule = (req) => {
  const system = typeof req.system === 'string' ? req.system : (req.system ?? []).map((b) => String(b.text ?? '')).join('\n');
  if (req.tools?.length || !/context summarization assistant/.test(system)) return undefined;
  // pi's compaction asks the same summariser, for a checkpoint of the whole conversation
  const prompt = JSON.stringify(req.messages.at(-1)?.content ?? '');
  return { text: /summary of this conversation branch/.test(prompt) ? `${SUMMARY} (#${++summaries})` : COMPACTED };
};

function cli(...args: string[]): Promise<string> {
  return runCliOk(home.env, args);
}

const contextOf = (agent: SourceName, id: string) => readContext(home, agent, id);

async function ourAnthropicContext(id: string): Promise<AnthropicRequest> {
  return JSON.parse(await cli('context', id, '--source', 'pi', '--format', 'anthropic')) as AnthropicRequest;
}

/** The first request pi sent from `mark` on: the one carrying the context it resumed. */
async function piResumes(path: string, probe: string): Promise<Msg[]> {
  const mark = home.standIn.messageRequests().length;
  await runPi(home, ['--session', path, '-p', probe]);
  const req = home.standIn.messageRequests()[mark];
  if (!req) throw new Error('pi sent no request');
  return req.messages as Msg[];
}

/**
 * What an agent sent, as comparable as what another sent (comparable): every target sends a branch
 * summary as pi words it (records.ts branchSummaryText), which convert carries to them (CONVERT.md).
 */
function normalised(messages: readonly Msg[], probe?: string) {
  return comparable(messages, probe);
}

/** What the session's context must hold: the summary and the new branch, none of the abandoned one. */
function expectNewBranchOnly(sent: unknown): void {
  const text = JSON.stringify(sent);
  expect(text).toContain(SUMMARY);
  expect(text).toContain(KEPT);
  expect(text).toContain(AFTER);
  expect(text).toContain('first question');
  expect(text).not.toContain(LEFT);
  expect(text).not.toContain('toolu_standin_0002');
}

/** The branch summaries on the current path of a session, as entries (kind, summary). */
async function summariesOf(agent: SourceName, id: string): Promise<{ kind: string; summary: string }[]> {
  const s = await readSession(home, agent, id);
  return pathToLeaf(s).flatMap((e) => (e.kind === 'branch_summary' ? [{ kind: e.kind, summary: e.summary }] : []));
}

/** A target sent pi's branch summary as pi words it (records.ts branchSummaryText), not the bare summary. */
function sendsPiWording(sent: unknown): void {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(sent);
  const summaries = strings.filter((x) => x.includes(SUMMARY));
  expect(summaries).toHaveLength(1);
  expect(summaries[0]?.startsWith(BRANCH_SUMMARY_PREFIX)).toBe(true);
  expect(summaries[0]?.trimEnd().endsWith(BRANCH_SUMMARY_SUFFIX)).toBe(true);
}

beforeAll(async () => {
  home = await setupCodexAgentHome({ rules: [summaryRule] });
  await createOpencodeDatabase(home);
  // `/tb-tree <entry>`: navigate pi's tree to an entry, summarising the branch left, as `/tree` does.
  extension = join(home.root, 'tb-tree.ts');
  await fs.writeFile(
    extension,
    `export default function (pi) {
  pi.registerCommand('tb-tree', {
    description: 'navigate the session tree with a branch summary',
    handler: async (args, ctx) => {
      const [id, label] = args.trim().split(' ');
      const r = await ctx.navigateTree(id, { summarize: true, ...(label ? { label } : {}) });
      if (r.cancelled) throw new Error('navigation cancelled');
    },
  });
}
`,
  );
}, 120_000);

afterAll(async () => {
  await home?.close();
});

describe('pi branches with a summary, carried into the other agents', () => {
  it('pi goes back to its first answer with a summary; our context is what pi sends on the new branch', async () => {
    await runPi(home, ['-p', 'first question']);
    const [listed] = await new PiDriver(home.env).listSessions();
    if (!listed) throw new Error('pi recorded no session');
    sessionId = listed.id;
    sessionPath = listed.path as string;
    await runPi(home, ['--session', sessionPath, '-p', LEFT]);
    expect(await fs.readFile(join(home.project, 'left.txt'), 'utf8')).toBe('left\n');
    const before = await readSession(home, 'pi', sessionId);
    const firstAnswer = before.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    if (!firstAnswer) throw new Error('no first answer');

    await runPi(home, ['--session', sessionPath, '-e', extension, '-p', `/tb-tree ${firstAnswer.id} checkpoint`]);
    const s = await readSession(home, 'pi', sessionId);
    // the summary, then the label pi gives it (an entry of its own, the leaf)
    const [summary, label] = s.entries.slice(-2);
    expect(summary).toMatchObject({ kind: 'branch_summary', parentId: firstAnswer.id });
    expect(label).toMatchObject({ kind: 'label', parentId: summary?.id, targetId: summary?.id, label: 'checkpoint' });
    expect((summary as { summary: string }).summary).toContain(SUMMARY);
    expect(s.warnings).toEqual([]);

    // At the summary: the first turn and the summary as pi words it, then the new prompt.
    const atSummary = await ourAnthropicContext(sessionId);
    expect(JSON.stringify(atSummary.messages)).toContain(BRANCH_SUMMARY_PREFIX.trim().split('\n')[0]);
    const sent = await piResumes(sessionPath, KEPT);
    expect(comparable(sent)).toEqual(comparable([...(atSummary.messages as Msg[]), { role: 'user', content: KEPT }]));
    expect(await fs.readFile(join(home.project, 'kept.txt'), 'utf8')).toBe('kept\n');

    // At the new branch's leaf (a tool call and its result after the summary).
    const atLeaf = await ourAnthropicContext(sessionId);
    const again = await piResumes(sessionPath, AFTER);
    expect(comparable(again)).toEqual(comparable([...(atLeaf.messages as Msg[]), { role: 'user', content: AFTER }]));
    expectNewBranchOnly(await ourAnthropicContext(sessionId));
    // pi's own SessionManager agrees at every entry of the branched file.
    for (const side of await contextsAtEveryEntry(sessionPath, home.env, sessionId))
      expect(side.ours, side.leafId).toEqual(side.pi);
  });

  it('show lists both branches, the new one current', async () => {
    const shown = JSON.parse(await cli('show', sessionId, '--json')) as {
      leafId: string;
      branches: { leafId: string; forkPointId: string | null; current: boolean }[];
    };
    const s = await readSession(home, 'pi', sessionId);
    const firstAnswer = s.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(shown.branches).toHaveLength(2);
    // the abandoned branch leaves the current one at the first answer; the current one ends at pi's last entry
    const left = shown.branches.find((b) => !b.current);
    expect(left?.forkPointId).toBe(firstAnswer?.id);
    expect(shown.branches.find((b) => b.current)?.leafId).toBe(shown.leafId);
    expect(shown.leafId).toBe(s.entries.at(-1)?.id);
    expect(JSON.stringify(s.entries.find((e) => e.id === left?.leafId))).toContain('Tool finished');
    const tree = await cli('show', sessionId, '--tree');
    expect(tree).toContain(`user: ${LEFT}`);
    expect(tree).toContain(`user: ${KEPT}`);
    expect(tree).toMatch(/branch summary: The user explored a different conversation branch/);
    expect(tree).toMatch(/← current/);
  });

  for (const to of ['claude', 'opencode'] as const satisfies AnthropicAgent[])
    it(`→ ${to}: resumes with the summary and the new branch; back in pi, pi resumes the same`, async () => {
      const expected = normalised((await ourAnthropicContext(sessionId)).messages as Msg[]);
      const written = await convertWith(home, sessionId, 'pi', to);
      const probe = `probe pi to ${to}`;
      const sent = normalised(await resumeInTarget(home, to, written, probe), probe);
      expect(sent).toEqual(expected);
      expectNewBranchOnly(sent);
      sendsPiWording(sent);
      // the target keeps pi's entry beside the turn it sends, and reads it back
      const piSummaries = await summariesOf('pi', sessionId);
      expect(piSummaries).toHaveLength(1);
      expect(await summariesOf(to, written.id)).toEqual(piSummaries);

      const back = await convertWith(home, written.id, to, 'pi');
      // pi's branch_summary entry again, which pi sends exactly as it did from its own session
      expect(await summariesOf('pi', back.id)).toEqual(piSummaries);
      const probeBack = `back from ${to}`;
      const sentBack = normalised(await piResumes(back.path, probeBack), probeBack);
      const targetCtx = normalised(contextToAnthropic(await contextOf(to, written.id)).messages as Msg[]);
      expect(sentBack).toEqual(targetCtx);
      expect(sentBack.slice(0, expected.length)).toEqual(expected);
    });

  /** `convert --all-branches --json`: every session written (one, or one per branch). */
  async function convertAll(to: string): Promise<Written[]> {
    const out = JSON.parse(await cli('convert', sessionId, '--source', 'pi', '--to', to, '--all-branches', '--json')) as
      | Written
      | Written[];
    return Array.isArray(out) ? out : [out];
  }

  /** The texts of a session's entries, every branch. */
  async function allTexts(agent: SourceName, id: string): Promise<string> {
    return JSON.stringify((await readSession(home, agent, id)).entries);
  }

  for (const to of ['claude', 'pi'] as const)
    it(`--all-branches → ${to}: the whole tree in one session, resumed on the current branch`, async () => {
      const expected = normalised((await ourAnthropicContext(sessionId)).messages as Msg[]);
      const written = await convertAll(to);
      expect(written).toHaveLength(1);
      const [one] = written as [Written];
      const kept = await allTexts(to, one.id);
      expect(kept).toContain(LEFT);
      expect(kept).toContain(KEPT);
      const probe = `probe all branches to ${to}`;
      const sent = normalised(await resumeInTarget(home, to, one, probe), probe);
      expect(sent).toEqual(expected);
      expectNewBranchOnly(sent);
    });

  it('--all-branches → opencode: one session per branch, the current one first', async () => {
    const expected = normalised((await ourAnthropicContext(sessionId)).messages as Msg[]);
    const written = await convertAll('opencode');
    expect(written).toHaveLength(2);
    const [current, left] = written as [Written, Written];
    const probe = 'probe all branches to opencode';
    const sent = normalised(await resumeInTarget(home, 'opencode', current, probe), probe);
    expect(sent).toEqual(expected);
    expectNewBranchOnly(sent);
    const other = await allTexts('opencode', left.id);
    expect(other).toContain(LEFT);
    expect(other).not.toContain(SUMMARY);
    expect(other).not.toContain(KEPT);
  });

  it('--all-branches → codex: one rollout per branch, the current one first', async () => {
    const expected = history(contextToResponses(await contextOf('pi', sessionId)).input);
    const written = await convertAll('codex');
    expect(written).toHaveLength(2);
    const [current, left] = written as [Written, Written];
    const sent = await resumedByCodex(home, current.id, 'probe all branches to codex');
    expect(history(sent.slice(0, -1))).toEqual(expected);
    const other = await allTexts('codex', left.id);
    expect(other).toContain(LEFT);
    expect(other).not.toContain(SUMMARY);
    expect(other).not.toContain(KEPT);
  });

  it('→ codex: resumes with the summary and the new branch; back in pi, pi resumes the same', async () => {
    const ctx = await contextOf('pi', sessionId);
    const expected = history(contextToResponses(ctx).input);
    const written = await convertWith(home, sessionId, 'pi', 'codex');
    const probe = 'probe pi to codex';
    const input = await resumedByCodex(home, written.id, probe);
    expect(itemText(input.at(-1))).toBe(probe);
    const sent = history(input.slice(0, -1));
    expect(sent).toEqual(expected);
    expectNewBranchOnly(sent);
    sendsPiWording(sent);
    const piSummaries = await summariesOf('pi', sessionId);
    expect(await summariesOf('codex', written.id)).toEqual(piSummaries);

    const back = await convertWith(home, written.id, 'codex', 'pi');
    expect(await summariesOf('pi', back.id)).toEqual(piSummaries);
    const probeBack = 'back from codex';
    const sentBack = normalised(await piResumes(back.path, probeBack), probeBack);
    const original = normalised((await ourAnthropicContext(sessionId)).messages as Msg[]);
    expect(sentBack.slice(0, original.length)).toEqual(original);
  });

  /**
   * Converts the pi session into each target, which resumes it sending `expected` (normalised) before
   * its probe, as threadbase's context of the written session says; Claude Code puts its "No response
   * requested." after a transcript that ends on the user's side (claudeResumed).
   */
  async function everyTargetResumes(expected: ReturnType<typeof normalised>, tag: string): Promise<void> {
    for (const to of ['claude', 'opencode'] as const) {
      const written = await convertWith(home, sessionId, 'pi', to);
      const predicted = normalised(contextToAnthropic(await contextOf(to, written.id)).messages as Msg[]);
      const own =
        to === 'claude' && expected.at(-1)?.role === 'user'
          ? [...expected, { role: 'assistant', content: [{ type: 'text', text: NO_RESPONSE_REQUESTED }] }]
          : expected;
      expect(predicted, to).toEqual(own);
      const probe = `probe ${tag} to ${to}`;
      expect(normalised(await resumeInTarget(home, to, written, probe), probe), to).toEqual(own);
    }
    const ctx = await contextOf('pi', sessionId);
    const written = await convertWith(home, sessionId, 'pi', 'codex');
    const mark = home.responses.responseRequests().length;
    await home.codex(['resume', written.id, `probe ${tag} to codex`]);
    const req = home.responses.responseRequests().slice(mark).at(-1);
    if (!req) throw new Error('codex sent no request');
    expect(history(req.input.slice(0, -1)), 'codex').toEqual(history(contextToResponses(ctx).input));
  }

  it('pi goes back to its first prompt: the summary starts the context, and every target resumes it so', async () => {
    const s = await readSession(home, 'pi', sessionId);
    const firstPrompt = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
    if (!firstPrompt) throw new Error('no first prompt');
    // pi puts a user message back into the editor and attaches the summary to its parent (here its
    // thinking-level entry): nothing of the conversation is left before the summary
    await runPi(home, ['--session', sessionPath, '-e', extension, '-p', `/tb-tree ${firstPrompt.id}`]);
    const after = await readSession(home, 'pi', sessionId);
    const summary = after.entries.at(-1);
    expect(summary).toMatchObject({ kind: 'branch_summary', parentId: firstPrompt.parentId });
    const atSummary = await ourAnthropicContext(sessionId);
    expect(atSummary.messages).toHaveLength(1);
    // converted at once, the summary the only turn (the session ends in a user turn)
    await everyTargetResumes(normalised(atSummary.messages as Msg[]), 'summary only');

    const FRESH = 'a fresh start';
    const sent = await piResumes(sessionPath, FRESH);
    expect(comparable(sent)).toEqual(comparable([...(atSummary.messages as Msg[]), { role: 'user', content: FRESH }]));
    for (const side of await contextsAtEveryEntry(sessionPath, home.env, sessionId))
      expect(side.ours, side.leafId).toEqual(side.pi);
    expect(JSON.parse(await cli('show', sessionId, '--json')).branches).toHaveLength(3);

    const expected = normalised((await ourAnthropicContext(sessionId)).messages as Msg[]);
    expect(expected.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(expected)).not.toContain('first question');
    await everyTargetResumes(expected, 'fresh start');
  });

  /** The branch summary pi's compaction keeps (the first kept entry). */
  let kept = '';
  const LONG = `a long prompt on the newest branch ${'so that it alone fills what the compaction keeps '.repeat(3)}`.trim();

  it('pi compacts after going back: its compaction keeps from the branch summary; our context is what pi sends', async () => {
    // Keep about the last turn: pi cuts at its prompt and keeps the entries before it that are no
    // messages, back to the branch summary (compaction.ts findCutPoint), which so is the first kept entry.
    await fs.mkdir(join(home.project, '.pi'), { recursive: true });
    await fs.writeFile(
      join(home.project, '.pi', 'settings.json'),
      JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 30 } }),
    );
    const back = (await readSession(home, 'pi', sessionId)).entries.at(-1) as Session['entries'][number];
    await runPi(home, ['--session', sessionPath, '-p', 'one more turn before going back']);
    await runPi(home, ['--session', sessionPath, '-e', extension, '-p', `/tb-tree ${back.id}`]);
    const summary = (await readSession(home, 'pi', sessionId)).entries.at(-1) as Session['entries'][number];
    expect(summary.kind).toBe('branch_summary');
    await runPi(home, ['--session', sessionPath, '-p', LONG]);
    const rpc = new PiRpc(home, home.project, ['--session', sessionPath]);
    let compacted: { success?: boolean; data?: { firstKeptEntryId?: string } };
    try {
      compacted = (await rpc.compact()) as typeof compacted;
    } finally {
      rpc.close();
    }
    expect(compacted.success).toBe(true);
    expect(compacted.data?.firstKeptEntryId).toBe(summary.id);
    for (const side of await contextsAtEveryEntry(sessionPath, home.env, sessionId))
      expect(side.ours, side.leafId).toEqual(side.pi);

    const atCompaction = await ourAnthropicContext(sessionId);
    const NEXT = 'after the compaction';
    const sent = await piResumes(sessionPath, NEXT);
    expect(comparable(sent)).toEqual(comparable([...(atCompaction.messages as Msg[]), { role: 'user', content: NEXT }]));
    // pi sends its compaction summary, then the branch summary it kept, then the newest turns
    kept = (summary as { summary: string }).summary;
    const texts = comparable(sent).flatMap((m) => m.content.map((b) => String(b.text ?? '')));
    expect(texts[0]).toContain(COMPACTED);
    expect(texts[1]).toContain(kept);
    expect(texts[2]).toBe(LONG);
  });

  /** Into Claude Code and OpenCode the compaction keeps the branch summary (src/convert/session.ts keptFromAMessage). */
  it('→ Claude Code, OpenCode: the compaction keeps the branch summary, as pi does', async () => {
    // Each target sends its own compaction form, then the same: the kept branch summary and the newest turns.
    for (const to of ['claude', 'opencode'] as const) {
      const written = await convertWith(home, sessionId, 'pi', to);
      const predicted = comparable(contextToAnthropic(await contextOf(to, written.id)).messages as Msg[]);
      const probe = `probe compacted to ${to}`;
      const got = comparable(await resumeInTarget(home, to, written, probe), probe);
      expect(got, to).toEqual(predicted);
      const gotTexts = got.flatMap((m) => m.content.map((b) => String(b.text ?? '')));
      const at = gotTexts.findIndex((t) => t.includes(kept));
      expect(at, to).toBeGreaterThan(-1);
      expect(gotTexts.slice(0, at).join('\n'), to).toContain(COMPACTED);
      expect(gotTexts.slice(at + 1, at + 3), to).toEqual([LONG, expect.stringMatching(/^ok: a long prompt/)]);
      expect(gotTexts.join('\n'), to).not.toContain('one more turn before going back');
    }
  });

  it('→ codex: the compaction keeps the branch summary, as pi does', async () => {
    // the compaction's replacement history is what pi sends after it: the summary, the kept branch
    // summary and the newest turns, none of the prompts before them
    const written = await convertWith(home, sessionId, 'pi', 'codex');
    const predicted = history(contextToResponses(await contextOf('codex', written.id)).input);
    const mark = home.responses.responseRequests().length;
    await home.codex(['resume', written.id, 'probe compacted to codex']);
    const req = home.responses.responseRequests().slice(mark).at(-1);
    if (!req) throw new Error('codex sent no request');
    const items = history(req.input.slice(0, -1));
    expect(items, 'codex').toEqual(predicted);
    const itemTexts = items.map((i) => itemText(i as ResponsesItem));
    const at = itemTexts.findIndex((t) => t.includes(kept));
    expect(at).toBeGreaterThan(-1);
    expect(itemTexts.slice(0, at).join('\n')).toContain(COMPACTED);
    expect(itemTexts.slice(at + 1, at + 3)).toEqual([LONG, expect.stringMatching(/^ok: a long prompt/)]);
    expect(itemTexts.join('\n')).not.toContain('one more turn before going back');
  });
});
