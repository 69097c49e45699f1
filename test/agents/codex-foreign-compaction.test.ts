/**
 * Another agent's compaction, resumed by the real codex (0.169, on the loopback Responses stand-in):
 * a pi session whose compaction keeps from an assistant reply with a tool call (firstKeptEntryId),
 * `threadbase convert --to codex`, and codex resumes it sending what pi sends after its compaction:
 * the summary (in codex's wording), the kept reply, its call and output and the reply after them,
 * then the turns after the compaction; not the prompts before it that the summary covers (the
 * `compacted` record's replacement history; without one codex rebuilt the history from every user
 * message before the compaction: compact.rs build_compacted_history). threadbase's codex context
 * is that input; converted back into pi the context is pi's again, and into codex once more (the kept
 * entries then copies after pi's summary) codex sends the same again.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRollout } from '../../src/formats/codex/history-projection.js';
import { contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { Message } from '../../src/model/types.js';
import { type CodexAgentHome, resumedByCodex, setupCodexAgentHome } from '../helpers/agents.js';
import { codexAppServer } from '../helpers/codex-app-server.js';
import { expectCodexResumesAsWritten, threadHistoryRows } from '../helpers/codex-history.js';
import { convertWith } from '../helpers/conversions.js';
import { isCodexInjected as isInjected, itemLine, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import { RELEASE_EARLIER, RELEASE_SUMMARY, releaseCompactionSession, releaseSentAfterCompaction } from '../helpers/sessions.js';
import '../../src/formats/all.js';

let home: CodexAgentHome;

const normalize = (items: readonly ResponsesItem[]) =>
  items.map((it) => {
    const { id: _id, status: _status, ...rest } = it as Record<string, unknown>;
    return rest;
  });

let piId = '';

beforeAll(async () => {
  home = await setupCodexAgentHome();
  const session = releaseCompactionSession(home.project);
  const pi = new Sources(home.env).driver('pi');
  if (!pi.writeSession) throw new Error('the pi driver writes no sessions');
  piId = (await pi.writeSession(session)).id;
}, 120_000);

afterAll(async () => {
  await home?.close();
});

describe("codex resumes another agent's compaction as that agent sent it", () => {
  it('pi → codex: the summary, the kept reply, tool call and output, the turns after; not the earlier prompts', async () => {
    const sources = new Sources(home.env);
    // what pi sends after its compaction, the summary worded as codex words it
    const piContext = await sources.driver('pi').getContext(piId);
    const expected = contextToResponses({
      ...piContext,
      messages: piContext.messages.map((m) =>
        m.meta?.compactionSummary ? { ...m, parts: [{ type: 'text', text: `${SUMMARY_PREFIX}\n${RELEASE_SUMMARY}` }] } : m,
      ),
    }).input.map(itemLine);
    expect(expected).toEqual(releaseSentAfterCompaction(`${SUMMARY_PREFIX}\n${RELEASE_SUMMARY}`));

    const written = await convertWith(home, piId, 'pi', 'codex');
    const ours = contextToResponses(await sources.driver('codex').getContext(written.id)).input;
    expect(ours.map(itemLine)).toEqual(expected);

    const probe = 'and then?';
    const sent = await resumedByCodex(home, written.id, probe);
    expect(sent.map(itemLine).at(-1)).toBe(`user ${probe}`);
    expect(normalize(sent.slice(0, -1))).toEqual(normalize(ours));
    const all = sent.map(itemLine).join('\n');
    for (const earlier of RELEASE_EARLIER) expect(all).not.toContain(earlier);

    // converted back into pi, pi's context again (the kept entries after the summary), then codex's turn
    const back = await convertWith(home, written.id, 'codex', 'pi');
    expect(back.warnings ?? []).not.toEqual(expect.arrayContaining([expect.stringContaining('sent them before its summary')]));
    const parts = (ms: readonly Message[]) => ms.flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)));
    const again = parts((await sources.driver('pi').getContext(back.id)).messages);
    expect(again.slice(0, parts(piContext.messages).length)).toEqual(parts(piContext.messages));
    expect(again.slice(-2)).toEqual([probe, `ok: ${probe}`]);

    // and into codex once more (the kept entries now copies after pi's summary): codex sends the same again
    const twice = await convertWith(home, back.id, 'pi', 'codex');
    const oursTwice = contextToResponses(await sources.driver('codex').getContext(twice.id)).input;
    const probe2 = 'once more?';
    const sent2 = await resumedByCodex(home, twice.id, probe2);
    // codex's instructions and environment context of the first resume came along as messages: left out on both sides
    expect(normalize(sent2.slice(0, -1))).toEqual(normalize(oursTwice.filter((i) => !isInjected(i))));
    expect(sent2.map(itemLine).slice(0, expected.length)).toEqual(expected);
    expect(sent2.map(itemLine).slice(expected.length)).toEqual([`user ${probe}`, `assistant ok: ${probe}`, `user ${probe2}`]);
  });

  it("written as codex's turns, the compaction a ContextCompaction item in its turn: codex's app-server lists it, and codex's own projection of the rollout is threadbase's", async () => {
    // codex ran in this home (the test before): its thread history database is there, so threadbase projects the copy
    const written = await convertWith(home, piId, 'pi', 'codex');
    const bytes = readFileSync(written.path as string);
    expect(JSON.parse(bytes.toString('utf8').split('\n')[0] as string).payload.history_mode).toBe('paginated');
    const where = { cwd: home.project, home: home.root, codexHome: home.codexHome };
    const [read] = (await codexAppServer(where, [['thread/read', { threadId: written.id, includeTurns: true }]])) as [
      { thread: { turns: { status: string; items: { type: string }[] }[] } },
    ];
    expect(read.thread.turns.map((t) => [t.status, t.items.map((i) => i.type)])).toEqual([
      ['completed', ['userMessage', 'agentMessage']],
      ['completed', ['userMessage', 'agentMessage', 'agentMessage', 'contextCompaction']],
      ['completed', ['userMessage', 'agentMessage']],
    ]);
    const ours = projectRollout(written.id, bytes);
    if (typeof ours === 'string') throw new Error(ours);
    const { turns, items } = threadHistoryRows(home.codexHome, written.id);
    expect({ turns, items }).toEqual({ turns: ours.turns, items: ours.items });
    // threadbase's rows taken away, codex projects the rollout itself on a resume, sending threadbase's context
    const context = contextToResponses(await new Sources(home.env).driver('codex').getContext(written.id)).input;
    await expectCodexResumesAsWritten(home, written.id, ours, context);
  });
});
