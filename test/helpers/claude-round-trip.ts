/**
 * A compacted Claude Code session carried through another agent and back (agents/roundtrip-gemini,
 * roundtrip-qwen): the fixture, the conversation compared, and what must hold once it is back.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Part, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { convertInto, copyFixture } from './agent-fixtures.js';
import { readContext, readSession } from './conversions.js';

/** test/fixtures/claude/older: the hand-written Claude Code 2.0 session with every kind of block */
export const OLDER_ID = '11111111-1111-4111-8111-111111111111';
const OLDER_DIR = 'test/fixtures/claude/older/projects/-work-proj-a';

/** The older session and its sub-agent's transcript, into the home's Claude Code projects. */
export async function copyOlderClaudeSession(home: { root: string; project: string }): Promise<void> {
  for (const f of [`${OLDER_ID}.jsonl`, 'agent-abcd1234.jsonl'])
    await copyFixture(home, join(OLDER_DIR, f), join('.claude/projects/-work-proj-a', f), '/work/proj.a');
}

export interface ConversationView {
  /** an entry the comparison leaves out (besides metadata) */
  skip?: (e: Entry) => boolean;
  /** a part as compared (its meta already left out) */
  part?: (p: Part) => Part;
}

/** Each message on the path as its role and parts (meta aside), split responses joined; other entries by kind. */
export function conversation(s: Session, view: ConversationView = {}): unknown[] {
  const out: { role?: string; responseId?: string; parts?: Part[]; kind?: string }[] = [];
  for (const e of pathToLeaf(s) as Entry[]) {
    if (e.kind === 'metadata' || view.skip?.(e)) continue;
    if (e.kind !== 'message') {
      out.push({ kind: e.kind });
      continue;
    }
    const parts = e.message.parts.map(({ meta: _m, ...p }) => (view.part ? view.part(p as Part) : (p as Part)));
    const last = out.at(-1);
    const { role, responseId } = e.message;
    if (last?.parts && ((responseId && last.responseId === responseId) || (role === 'tool' && last.role === 'tool')))
      last.parts.push(...parts);
    else out.push({ role, ...(responseId ? { responseId } : {}), parts });
  }
  return out;
}

/**
 * `writtenId` (the copy in `from`, which its agent resumed once with `probe`) converted back into Claude
 * Code: every turn of `source` in order, then the probe; the source's responses and the resume's one,
 * its cache tokens unchanged; Claude Code's context of it cut by the compaction as the source's is.
 */
export async function expectBackInClaude(
  home: { env: DriverEnv },
  source: Session,
  writtenId: string,
  from: string,
  probe: string,
  view: ConversationView = {},
): Promise<void> {
  const back = await convertInto(home, writtenId, from, 'claude');
  const read = await readSession(home, 'claude', back.id);
  const want = conversation(source, view);
  const got = conversation(read, view);
  expect(got.slice(0, want.length)).toEqual(want);
  expect(JSON.stringify(got.slice(want.length))).toContain(probe);
  const tokens = summarizeUsage(read.entries);
  const sourceTokens = summarizeUsage(source.entries.filter((e) => !e.sidechain));
  expect(tokens.responses).toBe(sourceTokens.responses + 1);
  expect(tokens.usage.cacheRead).toBe(sourceTokens.usage.cacheRead);
  expect(tokens.usage.cacheWrite).toBe(sourceTokens.usage.cacheWrite);
  const ctx = await readContext(home, 'claude', back.id);
  expect(JSON.stringify(ctx.messages[0])).toContain('The user asked about cats');
}
