/**
 * A Gemini CLI sub-agent chat no call names and no call gave its prompt is warned about on its main chat (and
 * on itself), by file and id: the index, after `threadbase sync`, keeps the same warnings and placements as a
 * direct read gives, also when that chat appears, or goes, after the main chat was indexed (the main chat's
 * own file unchanged), or when a sub-agent chat's growth changes what placement reads of it (a call naming an
 * agent, its first prompt); a sub-agent chat that only grows is read again alone.
 */
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { indexPath, type SyncReport } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { ORPHANS_MAIN, writeOrphanProject, writeSubAgentChat } from '../helpers/gemini-orphans.js';
import { syncStoreCountingReads, tempIndexHome } from '../helpers/index-units.js';

const MAIN = ORPHANS_MAIN;
const lines = (xs: unknown[]) => `${xs.map((x) => JSON.stringify(x)).join('\n')}\n`;

let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let chats: string;
let mainFile: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-gemini-orphan-sync-');
  env = home.env;
  chats = join(home.dir, '.gemini/tmp/p/chats');
  mainFile = await writeOrphanProject(chats);
});
afterAll(() => home.remove());

const IDS = [MAIN, 'named-1', 'bare-1', 'lost-1', 'deep-1', 'late-1'];

/** Each session's warnings and placement, as the index keeps them and as the driver reads them without it. */
async function indexedAndDirect() {
  const store = openSqliteStore(indexPath(env));
  const driver = new GeminiDriver(env);
  const view = async (
    get: (id: string) => Promise<{ parentId?: string | null; parentToolCallId?: string; warnings?: unknown[] } | undefined>,
  ) =>
    Object.fromEntries(
      await Promise.all(
        IDS.map(async (id) => {
          const s = await get(id);
          return [
            id,
            s && { parentId: s.parentId ?? null, call: s.parentToolCallId ?? null, warnings: s.warnings ?? [] },
          ] as const;
        }),
      ),
    );
  try {
    return { indexed: await view((id) => store.getSession(id)), direct: await view((id) => driver.getSession(id)) };
  } finally {
    await store.close();
  }
}

const sync = (): Promise<{ report: SyncReport; read: string[] }> => syncStoreCountingReads(env, 'gemini');

describe('gemini: a sub-agent chat no call ran, through sync', () => {
  it('with none such, the main chat is indexed without warnings, the unnamed chat at the call that gave its prompt', async () => {
    await sync();
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed[MAIN]?.warnings).toEqual([]);
    expect(indexed['bare-1']).toMatchObject({ parentId: MAIN, call: 'call-bare' });
  });

  it('one appearing after the main chat was indexed is warned about on the main chat in the index too', async () => {
    await writeSubAgentChat(chats, 'lost-1', '2026-01-01T00:00:04.000Z', 'a task no call gave');
    const { report, read } = await sync();
    expect(read).toContain(MAIN);
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    const file = join(chats, MAIN, 'lost-1.jsonl');
    expect(indexed[MAIN]?.warnings).toEqual([expect.objectContaining({ id: 'lost-1', message: expect.stringContaining(file) })]);
    // the sync reports it on both, as a listing without the index does
    expect(
      report.warnings
        .filter((w) => w.id === 'lost-1')
        .map((w) => w.file)
        .sort(),
    ).toEqual([file, mainFile].sort());
  });

  it('a warm sync reads nothing again', async () => {
    const { report, read } = await sync();
    expect(read).toEqual([]);
    expect(report.unchanged).toBe(report.units);
  });

  it('a sub-agent chat growing by a turn is read again alone, not its main chat nor the chats beside it', async () => {
    await appendFile(
      join(chats, MAIN, 'bare-1.jsonl'),
      lines([{ id: 'bare-1-g2', timestamp: '2026-01-01T00:00:06.000Z', type: 'gemini', content: 'still counting' }]),
    );
    const { read } = await sync();
    expect(read).toEqual(['bare-1']);
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed[MAIN]?.warnings).toEqual([expect.objectContaining({ id: 'lost-1' })]);
  });

  it("a call naming the unplaced chat, added as a sub-agent chat grows, clears the main chat's warning", async () => {
    const call = { id: 'call-deeper', name: 'invoke_agent', args: { prompt: 'go on' }, status: 'success', agentId: 'lost-1' };
    await appendFile(
      join(chats, MAIN, 'named-1.jsonl'),
      lines([{ id: 'named-1-g2', timestamp: '2026-01-01T00:00:07.000Z', type: 'gemini', content: '', toolCalls: [call] }]),
    );
    const { read } = await sync();
    expect(read).toEqual(expect.arrayContaining([MAIN, 'named-1', 'lost-1']));
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed[MAIN]?.warnings).toEqual([]);
    expect(indexed['lost-1']).toMatchObject({ parentId: 'named-1', call: 'call-deeper', warnings: [] });
  });

  it('once that chat is gone, the main chat loses the warning in the index too', async () => {
    await rm(join(chats, MAIN, 'lost-1.jsonl'));
    await sync();
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed[MAIN]?.warnings).toEqual([]);
  });

  it("a sub-agent's own folder (as an older threadbase wrote it: chats/<sub-agent id>/) gets the same warnings", async () => {
    await mkdir(join(chats, 'named-1'));
    await writeFile(
      join(chats, 'named-1', 'deep-1.jsonl'),
      lines([
        { sessionId: 'deep-1', projectHash: 'h', startTime: 't', lastUpdated: 't', kind: 'subagent' },
        { id: 'deep-1-u', timestamp: '2026-01-01T00:00:05.000Z', type: 'user', content: [{ text: 'nobody asked' }] },
      ]),
    );
    const { read } = await sync();
    expect(read).toContain('named-1');
    const { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed['named-1']?.warnings).toEqual([expect.objectContaining({ id: 'deep-1' })]);
  });

  it('a sub-agent chat whose first prompt comes after its first line is placed by it then, the main chat read again', async () => {
    // as Gemini CLI starts a chat: its metadata line first; started before bare-1, its prompt takes call-bare
    await writeFile(
      join(chats, MAIN, 'late-1.jsonl'),
      lines([{ sessionId: 'late-1', projectHash: 'h', startTime: '2026-01-01T00:00:02.500Z', kind: 'subagent' }]),
    );
    await sync();
    let { indexed, direct } = await indexedAndDirect();
    expect(indexed).toEqual(direct);
    expect(indexed[MAIN]?.warnings).toEqual([expect.objectContaining({ id: 'late-1' })]);
    await appendFile(
      join(chats, MAIN, 'late-1.jsonl'),
      lines([{ id: 'late-1-u', timestamp: '2026-01-01T00:00:02.500Z', type: 'user', content: [{ text: 'count the files' }] }]),
    );
    const { read } = await sync();
    expect(read).toEqual(expect.arrayContaining([MAIN, 'late-1', 'bare-1']));
    ({ indexed, direct } = await indexedAndDirect());
    expect(indexed).toEqual(direct);
    expect(indexed['late-1']).toMatchObject({ parentId: MAIN, call: 'call-bare' });
    expect(indexed[MAIN]?.warnings).toEqual([expect.objectContaining({ id: 'bare-1' })]);
  });
});
