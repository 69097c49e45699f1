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
import type { Entry, Message, Session } from '../../src/model/types.js';
import { itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const ID = '01a20600-0000-7000-8000-00000000f0c1';
const t = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}.000Z`;
const msg = (id: string, parentId: string | null, s: number, role: Message['role'], parts: Message['parts']): Entry => ({
  kind: 'message',
  id,
  parentId,
  timestamp: t(s),
  message: { role, parts, ...(role === 'assistant' ? { model: 'claude-sonnet-4-5', provider: 'anthropic' } : {}) },
});
const text = (id: string, parentId: string | null, s: number, role: Message['role'], x: string) =>
  msg(id, parentId, s, role, [{ type: 'text', text: x }]);

const SUMMARY = 'The user is planning a release; the tags were listed.';
const prefixed = `${SUMMARY_PREFIX}\n${SUMMARY}`;

/** pi's layout: the compaction keeps from an assistant reply with a tool call (firstKeptEntryId), its output and the reply after it. */
const pi: Session = {
  id: 'pi-compacted',
  source: 'pi',
  project: '/w',
  createdAt: t(0),
  updatedAt: t(9),
  messageCount: 7,
  entries: [
    text('u1', null, 1, 'user', 'Plan the release'),
    text('a1', 'u1', 2, 'assistant', 'Step one: tag it.'),
    text('u2', 'a1', 3, 'user', 'List the tags'),
    msg('a2', 'u2', 4, 'assistant', [
      { type: 'text', text: 'Listing them.' },
      { type: 'tool_call', id: 'call_tags', name: 'bash', input: { command: 'git tag' } },
    ]),
    msg('t2', 'a2', 5, 'tool', [{ type: 'tool_result', callId: 'call_tags', content: 'v1.0\nv1.1' }]),
    text('a3', 't2', 6, 'assistant', 'Two tags: v1.0 and v1.1.'),
    { kind: 'compaction', id: 'c1', parentId: 'a3', timestamp: t(7), summary: SUMMARY, firstKeptEntryId: 'a2' },
    text('u4', 'c1', 8, 'user', 'Tag v1.2'),
    text('a4', 'u4', 9, 'assistant', 'Tagged.'),
  ],
};

/** An item as a line: a call by its name and arguments, anything else by its role and text. */
const shown = (i: ResponsesItem) =>
  i.type === 'function_call'
    ? `call ${i.name} ${i.arguments}`
    : i.type === 'function_call_output'
      ? `output ${i.call_id} ${String(i.output)}`
      : `${(i as { role?: string }).role} ${itemText(i)}`;

/** What the source agent sends after its compaction, in codex's items and with codex's wording of the summary. */
const EXPECTED = [
  `user ${prefixed}`,
  'assistant Listing them.',
  'call bash {"command":"git tag"}',
  'output call_tags v1.0\nv1.1',
  'assistant Two tags: v1.0 and v1.1.',
  'user Tag v1.2',
  'assistant Tagged.',
];

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
    expect(compacted.replacement_history.map(shown)).toEqual(EXPECTED.slice(0, 5));
    // the kept entries stay written before the compaction too, as codex's own records are
    const before = lines.slice(
      0,
      lines.findIndex((l) => l.type === 'compacted'),
    );
    expect(before.filter((l) => l.type === 'response_item').map((l) => shown(l.payload as ResponsesItem))).toEqual([
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
    expect(input.map(shown)).toEqual(EXPECTED);
    // the source's own context, worded as codex words the summary
    const source = buildContext(pi, { compactionText: () => prefixed });
    expect(input.map(shown)).toEqual(contextToResponses(source).input.map(shown));
  });

  it("Claude Code's preserved segment (a user prompt kept) likewise, and a compaction that keeps nothing sends the summary alone", async () => {
    const claude: Session = {
      ...pi,
      source: 'claude',
      entries: pi.entries.map((e) => (e.kind === 'compaction' ? { ...e, firstKeptEntryId: 'u2' } : e)),
    };
    const kept = contextToResponses(codexContext(await readRollout(await rollout(encodeRollout(claude, ID).lines)))).input;
    expect(kept.map(shown)).toEqual([EXPECTED[0], 'user List the tags', ...EXPECTED.slice(1)]);
    const none: Session = {
      ...pi,
      entries: pi.entries.map((e) => {
        if (e.kind !== 'compaction') return e;
        const { firstKeptEntryId: _k, ...rest } = e;
        return rest;
      }),
    };
    const summaryOnly = contextToResponses(codexContext(await readRollout(await rollout(encodeRollout(none, ID).lines)))).input;
    expect(summaryOnly.map(shown)).toEqual([EXPECTED[0], ...EXPECTED.slice(5)]);
  });

  it('converted into another agent and back (the kept entries then follow the summary as copies), the same replacement history again', async () => {
    const claude: Session = {
      ...pi,
      source: 'claude',
      entries: pi.entries.map((e) => (e.kind === 'compaction' ? { ...e, firstKeptEntryId: 'u2' } : e)),
    };
    const codexSession = await readRollout(await rollout(encodeRollout(claude, ID).lines));
    const expected = contextToResponses(codexContext(codexSession)).input.map(shown);
    // as every target holds it: the kept entries copied after the compaction, no record of codex's own
    const along = sessionAlongPath(codexSession, undefined, 'pi');
    const entries = along.entries.map(({ raw: _raw, rawSource: _source, ...e }) => e as Entry);
    const copies = entries.slice(entries.findIndex((e) => e.kind === 'compaction') + 1);
    expect(copies.slice(0, 2).map((e) => (e.kind === 'message' ? e.message.role : e.kind))).toEqual(['user', 'assistant']);
    const { lines } = encodeRollout({ ...along, source: 'pi', entries }, ID);
    const again = contextToResponses(codexContext(await readRollout(await rollout(lines)))).input.map(shown);
    expect(again).toEqual(expected);
    // the copies are in the replacement history, not written again after it
    const after = lines.slice(lines.findIndex((l) => l.type === 'compacted') + 1);
    expect(after.filter((l) => l.type === 'response_item').map((l) => shown(l.payload as ResponsesItem))).toEqual(
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
    expect(input.map(shown)).toEqual(EXPECTED);
  });
});
