/**
 * A record appended to a pi session file after a sync that repeats an entry id the index already
 * stores: the sync that reads only the added lines cannot apply which record of the id counts (the
 * later, as pi finds it), so the index reads the file whole, and then holds what the file gives and
 * what a fresh index of the whole file holds.
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { sessionDirName } from '../../src/formats/pi/index.js';
import { messageText } from '../../src/model/tree.js';
import { entryShape, homeWithAgentFile } from '../helpers/index-units.js';

const SID = '0190eeee-5555-7000-8000-0000000000e1';
const HEADER = { type: 'session', version: 3, id: SID, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work/repeated' };
const record = (id: string, parentId: string | null, text: string, second: number) =>
  JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    message: { role: 'user', content: text, timestamp: second },
  });

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-repeated-sync-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A home holding the pi file of `lines`; its file, sources and index. */
const homeWith = (name: string, lines: string[]) =>
  homeWithAgentFile(
    root,
    name,
    join('.pi', 'agent', 'sessions', sessionDirName('/work/repeated')),
    `2026-01-01T00-00-00-000Z_${SID}.jsonl`,
    `${[JSON.stringify(HEADER), ...lines].join('\n')}\n`,
  );

const shape = entryShape;

it('an appended record repeating a stored id replaces that entry, as a whole read gives it', async () => {
  const first = [record('a', null, 'first question', 1), record('x', 'a', 'earlier x', 2), record('b', 'x', 'under x', 3)];
  const added = [record('x', null, 'later x wombatword', 4), record('c', 'b', 'after b', 5)];

  const grown = await homeWith('grown', first);
  const whole = await homeWith('whole', [...first, ...added]);
  try {
    expect((await grown.sync.sync(grown.sources, { formats: ['pi'], workers: 0 })).reread).toBe(1);
    expect(shape(await grown.store.getSession(SID)).entries.map((e) => e[2])).toContain('earlier x');
    await appendFile(grown.file, `${added.join('\n')}\n`);
    const second = await grown.sync.sync(grown.sources, { formats: ['pi'], workers: 0 });
    // the added lines do not fit (x is stored): read whole, not appended
    expect([second.appended, second.reread]).toEqual([0, 1]);
    await whole.sync.sync(whole.sources, { formats: ['pi'], workers: 0 });

    const fromFile = shape(await grown.sources.driver('pi').getSession(SID));
    expect(fromFile).toEqual({
      entries: [
        ['a', null, 'first question'],
        ['b', 'x', 'under x'],
        ['x', null, 'later x wombatword'],
        ['c', 'b', 'after b'],
      ],
      leafId: 'c',
    });
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual(['later x wombatword', 'under x', 'after b']);
    expect((await grown.store.search('wombatword')).map((h) => h.entryId)).toEqual(['x']);

    // a later append that repeats nothing is read from the offset again
    await appendFile(grown.file, `${record('d', 'c', 'after c', 6)}\n`);
    const third = await grown.sync.sync(grown.sources, { formats: ['pi'], workers: 0 });
    expect([third.appended, third.reread]).toEqual([1, 0]);
    expect(shape(await grown.store.getSession(SID)).entries.at(-1)).toEqual(['d', 'c', 'after c']);
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});
