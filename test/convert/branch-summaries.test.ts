/**
 * Branch summaries carried into agents without them (temp HOME): pi's branch summary is sent by
 * Claude Code, OpenCode and codex as pi sends it (pi's wording around the summary: convert/session.ts
 * renders it with pi's context, the writers send the entry's `text`), the entry kept beside the user
 * turn in a `threadbase` field each agent leaves alone, and read back as the branch summary (summary,
 * fromId), so that pi, converted back, has its branch_summary entry again and sends what it sent.
 * test/agents/pi-branches.test.ts runs the same with the real agents.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { codexContext, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import type { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { BranchSummaryEntry, Entry, Message, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { withDriver as withDriverOf } from '../helpers/conversions.js';
import { branchedSession, secondInto2026 } from '../helpers/sessions.js';

const OPENCODE_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
const t = secondInto2026;
const SUMMARY = 'The branch left behind wrote left.txt.';
const WRAPPED = branchSummaryText(SUMMARY);

let home: string;
let env: DriverEnv;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-branch-summaries-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  copyFileSync(OPENCODE_DB, join(home, '.local', 'share', 'opencode', 'opencode.db'));
  mkdirSync(join(home, 'p'), { recursive: true });
  env = { home, env: {} };
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const session = (source: Session['source'], summary: Omit<BranchSummaryEntry, 'kind' | 'id' | 'parentId' | 'timestamp'>) =>
  branchedSession(`${source}-branched`, source, join(home, 'p'), summary);
const withDriver = <T>(agent: string, f: (d: ReturnType<Sources['driver']>) => Promise<T>) => withDriverOf(env, agent, f);

/** The texts of a context's messages (Claude Code ends a user record before another one with a newline). */
const texts = (ms: readonly Message[]) => ms.map((m) => messageText(m).trimEnd());

const TARGETS = ['claude', 'opencode', 'codex'] as const;

describe("pi's branch summary in Claude Code, OpenCode and codex", () => {
  let pi: Session;
  beforeAll(() => {
    pi = session('pi', { summary: SUMMARY, fromId: 'left-leaf' });
  });

  for (const to of TARGETS)
    it(`→ ${to}: sent as pi words it, the entry kept and read back; → pi again: pi's branch summary`, async () => {
      const piSent = await withDriver('pi', async (d) => {
        const [written] = await convertSessionAll(pi, { to: d });
        return texts((await d.getContext(written?.id as string)).messages);
      });
      expect(piSent).toContain(WRAPPED);

      const [written] = await convertSessionAll(pi, { to, env });
      const id = written?.id as string;
      const read = await withDriver(to, (d) => d.getSession(id));
      if (!read) throw new Error(`${to} session not found`);
      // the entry back, with what the target sends for it
      const summaries = read.entries.filter((e) => e.kind === 'branch_summary');
      expect(summaries).toHaveLength(1);
      expect(summaries[0]).toMatchObject({ kind: 'branch_summary', summary: SUMMARY, fromId: 'left-leaf', text: WRAPPED });
      expect(JSON.stringify(read.entries.filter((e) => e.kind === 'message'))).not.toContain(SUMMARY);
      // the target sends pi's wording, where pi sends it
      const sent = texts((await withDriver(to, (d) => d.getContext(id))).messages);
      expect(sent.filter((x) => x.includes(SUMMARY))).toEqual([WRAPPED]);
      expect(sent.indexOf(WRAPPED)).toBe(sent.indexOf('first answer') + 1);

      // and back into pi: its own branch_summary entry, sent as pi sent it
      const [back] = await convertSessionAll(read, { to: 'pi', env });
      const again = await withDriver('pi', async (d) => {
        const s = await d.getSession(back?.id as string);
        return { s, sent: texts((await d.getContext(back?.id as string)).messages) };
      });
      expect(again.s?.entries.filter((e) => e.kind === 'branch_summary').map((e) => (e as BranchSummaryEntry).summary)).toEqual([
        SUMMARY,
      ]);
      expect(again.sent).toEqual(piSent);
    });

  it('the records: the wrapped text as the user turn, the entry beside it in a threadbase field', async () => {
    const [claude] = await convertSessionAll(pi, { to: 'claude', env });
    const records = readFileSync(claude?.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // the branch summary's record (the first record's threadbase field says who wrote the session)
    const rec = records.find((r) => (r.threadbase as { branchSummary?: unknown } | undefined)?.branchSummary !== undefined);
    expect(rec).toMatchObject({
      type: 'user',
      message: { role: 'user', content: WRAPPED },
      threadbase: { branchSummary: { summary: SUMMARY, fromId: 'left-leaf' } },
    });

    const [codex] = await convertSessionAll(pi, { to: 'codex', env });
    const lines = readFileSync(codex?.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    const item = lines.find((l) => l.type === 'response_item' && l.payload.threadbase !== undefined);
    expect(item?.payload).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: WRAPPED }],
      threadbase: { branchSummary: { summary: SUMMARY, fromId: 'left-leaf' } },
    });

    const [opencode] = await convertSessionAll(pi, { to: 'opencode', env });
    const s = await withDriver('opencode', (d) => d.getSession(opencode?.id as string));
    const raw = s?.entries.find((e) => e.kind === 'branch_summary')?.raw as { message: { parts: Record<string, unknown>[] } };
    expect(raw.message.parts).toEqual([
      expect.objectContaining({
        type: 'text',
        text: WRAPPED,
        threadbase: { branchSummary: { summary: SUMMARY, fromId: 'left-leaf' } },
      }),
    ]);
  });

  it('Claude Code → OpenCode → codex: the wording carried on, each reading the entry back', async () => {
    const [claude] = await convertSessionAll(pi, { to: 'claude', env });
    let s = (await withDriver('claude', (d) => d.getSession(claude?.id as string))) as Session;
    for (const to of ['opencode', 'codex'] as const) {
      const [w] = await convertSessionAll(s, { to, env });
      s = (await withDriver(to, (d) => d.getSession(w?.id as string))) as Session;
      expect(
        s.entries.find((e) => e.kind === 'branch_summary'),
        to,
      ).toMatchObject({ summary: SUMMARY, text: WRAPPED });
      const sent = texts((await withDriver(to, (d) => d.getContext(w?.id as string))).messages);
      expect(
        sent.filter((x) => x.includes(SUMMARY)),
        to,
      ).toEqual([WRAPPED]);
    }
  });
});

describe('a branch summary of an agent that sends it bare (threadbase branch --summary)', () => {
  for (const to of ['opencode', 'codex', 'claude'] as const)
    it(`→ ${to}: the bare summary, read back as the branch summary without a text of its own`, async () => {
      const source = to === 'claude' ? 'opencode' : 'claude';
      const bare = session(source, { summary: SUMMARY });
      const [w] = await convertSessionAll(bare, { to, env });
      const s = await withDriver(to, (d) => d.getSession(w?.id as string));
      const e = s?.entries.find((x) => x.kind === 'branch_summary');
      expect(e).toMatchObject({ kind: 'branch_summary', summary: SUMMARY });
      expect(e).not.toHaveProperty('text');
      expect(e).not.toHaveProperty('fromId');
      const sent = texts((await withDriver(to, (d) => d.getContext(w?.id as string))).messages);
      expect(sent.filter((x) => x.includes(SUMMARY))).toEqual([SUMMARY]);
    });
});

describe('codex, where the branch summary is one of the user messages', () => {
  it("a local compaction after it collects it with the user's messages, as codex does", async () => {
    const [w] = await convertSessionAll(session('pi', { summary: SUMMARY }), { to: 'codex', env });
    const s = (await withDriver('codex', (d) => d.getSession(w?.id as string))) as Session;
    const leaf = s.entries.at(-1) as Entry;
    const compacted: Session = {
      ...s,
      entries: [
        ...s.entries,
        {
          kind: 'compaction',
          id: 'c',
          parentId: leaf.id,
          timestamp: t(6),
          summary: 'COMPACTED',
          raw: { timestamp: t(6), type: 'compacted', payload: { message: `${SUMMARY_PREFIX}\nCOMPACTED` } },
          rawSource: 'codex',
        },
      ],
      leafId: 'c',
    };
    expect(texts(codexContext(compacted).messages)).toEqual([
      'first question',
      WRAPPED,
      'on the new branch',
      `${SUMMARY_PREFIX}\nCOMPACTED`,
    ]);
  });
});
