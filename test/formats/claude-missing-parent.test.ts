/**
 * A row whose parentUuid names no row Claude Code keeps (a uuid never written, a record of a type it
 * does not keep): 2.1.332's chain walk bridges it to the row with the latest time at or before its own,
 * at most 5 s older, of the same side, else the chain starts there (NOTES.md "Leaf"; live:
 * test/agents/claude-repeated-uuid). parse.ts bridgeMissingParents gives the entry that parent, the
 * record's own parentUuid kept in raw.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseTranscript } from '../../src/formats/claude/parse.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-claude-missing-parent-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

type Rec = Record<string, unknown>;
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const row = (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, second: number, extra: Rec = {}): Rec => ({
  type,
  uuid,
  parentUuid,
  isSidechain: false,
  sessionId: 's',
  timestamp: at(second),
  message:
    type === 'user'
      ? { role: 'user', content: uuid }
      : { role: 'assistant', id: `msg_${uuid}`, model: 'm', content: [{ type: 'text', text: uuid }] },
  ...extra,
});
async function parsed(records: Rec[]) {
  const file = join(dir, 't.jsonl');
  await fs.writeFile(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const p = await parseTranscript(file);
  const parentOf = (id: string) => p.entries.find((e) => e.id === id)?.parentId;
  return { p, file, parentOf };
}

it('a parent never written: hung under the latest row at most 5 s older, its parentUuid kept, a warning naming file and line', async () => {
  const { p, file, parentOf } = await parsed([
    row('user', 'u1', null, 1),
    row('assistant', 'a1', 'u1', 2),
    row('user', 'side', 'a1', 4),
    row('assistant', 'late', 'side', 9), // newer than the orphan: not a candidate
    row('user', 'u2', 'gone', 6),
    row('assistant', 'a2', 'u2', 10),
  ]);
  expect(parentOf('u2')).toBe('side');
  expect((p.entries.find((e) => e.id === 'u2')?.raw as Rec | undefined)?.parentUuid).toBe('gone');
  expect(p.warnings).toEqual([expect.objectContaining({ file, line: 5, id: 'u2' })]);
  expect(p.leafId).toBe('a2');
});

it('no row at most 5 s older, or no time: the entry starts a root, with a warning', async () => {
  const far = await parsed([row('user', 'u1', null, 1), row('assistant', 'a1', 'u1', 2), row('user', 'u2', 'gone', 8)]);
  expect(far.parentOf('u2')).toBeNull();
  expect(far.p.warnings).toEqual([expect.objectContaining({ file: far.file, line: 3, id: 'u2' })]);
  const untimed = await parsed([row('user', 'u1', null, 1), row('user', 'u2', 'gone', 2, { timestamp: 'soon' })]);
  expect(untimed.parentOf('u2')).toBeNull();
});

it('under a record of a type Claude Code keeps no row of: bridged by time, not through that record', async () => {
  const { parentOf } = await parsed([
    row('user', 'u1', null, 1),
    row('assistant', 'a1', 'u1', 2),
    { type: 'mystery', uuid: 'm1', parentUuid: 'a1', sessionId: 's', timestamp: at(3) },
    row('user', 'side', 'u1', 27),
    row('user', 'u2', 'm1', 30),
    row('user', 'u3', 'm1', 4),
  ]);
  expect(parentOf('u2')).toBe('side');
  expect(parentOf('u3')).toBe('a1');
});

it('a progress record is passed to its parent, not bridged; equal times: the first written; another side is no candidate', async () => {
  const { p, parentOf } = await parsed([
    row('user', 'u1', null, 1),
    row('assistant', 'a1', 'u1', 2),
    { type: 'progress', uuid: 'p1', parentUuid: 'a1', sessionId: 's', timestamp: at(3) },
    row('user', 'u2', 'p1', 4),
    row('assistant', 'b1', 'u1', 5),
    row('assistant', 'b2', 'u1', 5),
    row('assistant', 'agent', 'u1', 6, { isSidechain: true }),
    row('user', 'u3', 'gone', 6),
  ]);
  expect(parentOf('u2')).toBe('p1');
  expect(parentOf('u3')).toBe('b1');
  expect(p.warnings.map((w) => w.id)).toEqual(['u3']);
});
