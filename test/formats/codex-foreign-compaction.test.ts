/**
 * Another agent's compaction written into codex: a `compacted` record whose replacement history is
 * what that agent sent after its compaction (the summary, then the entries it kept: pi's
 * firstKeptEntryId, Claude Code's preserved segment), so codex does not rebuild the history from
 * every user message before it (compact.rs build_compacted_history), which sent prompts the summary
 * covers and left out the replies and tool calls the agent kept. Real codex resuming it:
 * test/agents/codex-foreign-compaction.test.ts.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionAlongPath } from '../../src/convert/session.js';
import { CodexDriver, codexContext, contextToResponses, encodeRollout, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import { buildContext } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { itemLine, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import { RELEASE_SUMMARY, releaseCompactionSession, releaseSentAfterCompaction } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const ID = '01a20600-0000-7000-8000-00000000f0c1';
const prefixed = `${SUMMARY_PREFIX}\n${RELEASE_SUMMARY}`;

/** pi's layout: the compaction keeps from an assistant reply with a tool call, its output and the reply after it. */
const pi = releaseCompactionSession('/w');

/** What the source agent sends after its compaction, in codex's items and with codex's wording of the summary. */
const EXPECTED = releaseSentAfterCompaction(prefixed);

async function rollout(lines: object[]): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-foreign-'));
  temps.push(dir);
  const file = join(dir, `rollout-2026-11-20T10-00-00-${ID}.jsonl`);
  await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

describe("codex: another agent's compaction with the entries it kept", () => {
  it('is written with the summary then the kept reply, tool call and output as its replacement history', () => {
    const { lines } = encodeRollout(pi, ID);
    const compacted = lines.find((l) => l.type === 'compacted')?.payload as {
      message: string;
      replacement_history: ResponsesItem[];
    };
    expect(compacted.message).toBe(prefixed);
    expect(compacted.replacement_history.map(itemLine)).toEqual(EXPECTED.slice(0, 5));
    // the kept entries stay written before the compaction too, as codex's own records are
    const before = lines.slice(
      0,
      lines.findIndex((l) => l.type === 'compacted'),
    );
    expect(before.filter((l) => l.type === 'response_item').map((l) => itemLine(l.payload as ResponsesItem))).toEqual([
      'user Plan the release',
      'assistant Step one: tag it.',
      'user List the tags',
      'assistant Listing them.',
      'call bash {"command":"git tag"}',
      'output call_tags v1.0\nv1.1',
      'assistant Two tags: v1.0 and v1.1.',
    ]);
  });

  it("codex's context is what pi sends: the summary, the kept entries, then the rest; no earlier prompt", async () => {
    const back = await readRollout(await rollout(encodeRollout(pi, ID).lines));
    const input = contextToResponses(codexContext(back)).input;
    expect(input.map(itemLine)).toEqual(EXPECTED);
    // the source's own context, worded as codex words the summary
    const source = buildContext(pi, { compactionText: () => prefixed });
    expect(input.map(itemLine)).toEqual(contextToResponses(source).input.map(itemLine));
  });

  it("Claude Code's preserved segment (a user prompt kept) likewise, and a compaction that keeps nothing sends the summary alone", async () => {
    const claude: Session = {
      ...pi,
      source: 'claude',
      entries: pi.entries.map((e) => (e.kind === 'compaction' ? { ...e, firstKeptEntryId: 'u2' } : e)),
    };
    const kept = contextToResponses(codexContext(await readRollout(await rollout(encodeRollout(claude, ID).lines)))).input;
    expect(kept.map(itemLine)).toEqual([EXPECTED[0], 'user List the tags', ...EXPECTED.slice(1)]);
    const none: Session = {
      ...pi,
      entries: pi.entries.map((e) => {
        if (e.kind !== 'compaction') return e;
        const { firstKeptEntryId: _k, ...rest } = e;
        return rest;
      }),
    };
    const summaryOnly = contextToResponses(codexContext(await readRollout(await rollout(encodeRollout(none, ID).lines)))).input;
    expect(summaryOnly.map(itemLine)).toEqual([EXPECTED[0], ...EXPECTED.slice(5)]);
  });

  it('converted into another agent and back (the kept entries then follow the summary as copies), the same replacement history again', async () => {
    const claude: Session = {
      ...pi,
      source: 'claude',
      entries: pi.entries.map((e) => (e.kind === 'compaction' ? { ...e, firstKeptEntryId: 'u2' } : e)),
    };
    const codexSession = await readRollout(await rollout(encodeRollout(claude, ID).lines));
    const expected = contextToResponses(codexContext(codexSession)).input.map(itemLine);
    // as every target holds it: the kept entries copied after the compaction, no record of codex's own
    const along = sessionAlongPath(codexSession, undefined, 'pi');
    const entries = along.entries.map(({ raw: _raw, rawSource: _source, ...e }) => e as Entry);
    const copies = entries.slice(entries.findIndex((e) => e.kind === 'compaction') + 1);
    expect(copies.slice(0, 2).map((e) => (e.kind === 'message' ? e.message.role : e.kind))).toEqual(['user', 'assistant']);
    const { lines } = encodeRollout({ ...along, source: 'pi', entries }, ID);
    const again = contextToResponses(codexContext(await readRollout(await rollout(lines)))).input.map(itemLine);
    expect(again).toEqual(expected);
    // the copies are in the replacement history, not written again after it
    const after = lines.slice(lines.findIndex((l) => l.type === 'compacted') + 1);
    expect(after.filter((l) => l.type === 'response_item').map((l) => itemLine(l.payload as ResponsesItem))).toEqual(
      EXPECTED.slice(5),
    );
  });

  it('appended after the entries it keeps, the compaction gets the same replacement history', async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-foreign-home-'));
    temps.push(dir);
    const driver = new CodexDriver({ home: dir, env: { CODEX_HOME: join(dir, '.codex') } });
    const upTo = pi.entries.findIndex((e) => e.id === 'c1');
    const written = await driver.writeSession({ ...pi, entries: pi.entries.slice(0, upTo) });
    const s = (await driver.getSession(written.id)) as Session;
    const leaf = s.entries.at(-1) as Entry;
    // the kept entries by their ids in the rollout: the first of the kept reply's response
    const first = s.entries.find((e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'tool_call')) as Entry;
    const [c1, u4, a4] = pi.entries.slice(upTo) as [Entry, Entry, Entry];
    await driver.appendEntries(written.id, [
      { ...c1, parentId: leaf.id, firstKeptEntryId: first.id } as Entry,
      { ...u4, parentId: c1.id },
      { ...a4, parentId: u4.id },
    ]);
    const input = contextToResponses(await driver.getContext(written.id)).input;
    expect(input.map(itemLine)).toEqual(EXPECTED);
  });
});
