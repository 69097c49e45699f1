/**
 * Cline in the local index: each messages file (a CLI session's, an extension task's) is a unit
 * known by its size and time, its session id from its path; a warm sync reads none, a session Cline
 * rewrote is read again alone, and a manifest changed alone (a title) re-reads its session.
 */
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ClineDriver } from '../../src/formats/cline/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { byId, syncStoreCountingReads, tempIndexHome } from '../helpers/index-units.js';

const FIRST = '1795664340517_twuoj';
const RESUMED = '1795664999999_abcde';
const TASK = '1700000000000';
/** a session that ran a sub-agent, and the sub-agent */
const ROOT = '1795666477967_183oc';
const SUB = `${ROOT}__agent_1795666478619_7xmhpw`;
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let sessions: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-cline-units-');
  env = home.env;
  sessions = join(home.dir, '.cline', 'data', 'sessions');
  await cp(resolve('test/fixtures/cline/real-3.0.65/data/sessions'), sessions, { recursive: true });
  const task = join(home.dir, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', TASK);
  await mkdir(task, { recursive: true });
  await writeFile(
    join(task, 'api_conversation_history.json'),
    JSON.stringify([{ role: 'user', content: [{ type: 'text', text: '<task>\nhello\n</task>' }], ts: 1700000000100 }]),
  );
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  project: s.project,
  messageCount: s.messageCount,
  usage: s.usage,
  parentId: s.parentId ?? null,
  parentToolCallId: s.parentToolCallId,
  path: s.path,
});

async function sync() {
  const { report, listed, read, listCalls } = await syncStoreCountingReads(env, 'cline');
  return { report, indexed: listed.map(fields), read, listed: listCalls };
}

describe('Cline sessions as units of the index', () => {
  it('indexes one unit per session with the listing the driver gives', async () => {
    const first = await sync();
    const fromDriver = (await new ClineDriver(env).listSessions()).map(fields).sort(byId);
    expect(first.indexed).toEqual(fromDriver);
    expect(first.indexed.map((s) => s.id)).toEqual([TASK, FIRST, RESUMED, ROOT, SUB]);
    expect(first.listed).toBe(0);
    expect(first.read).toEqual([TASK, FIRST, RESUMED, ROOT, SUB].sort());
    expect(first.indexed.find((s) => s.id === SUB)).toMatchObject({ parentId: ROOT, parentToolCallId: 'toolu_standin_0001' });
  });

  it('a warm sync reads no session', async () => {
    const warm = await sync();
    expect(warm.read).toEqual([]);
    expect(warm.report).toMatchObject({ reread: 0, removed: 0 });
  });

  it('a session Cline rewrote is read again, alone; a manifest changed alone re-reads its session', async () => {
    const file = join(sessions, RESUMED, `${RESUMED}.messages.json`);
    const doc = JSON.parse(await readFile(file, 'utf8')) as { messages: unknown[] };
    doc.messages.push({ id: 'u-new', role: 'user', content: [{ type: 'text', text: 'one more' }], ts: 1795664470000 });
    await writeFile(file, JSON.stringify(doc, null, 2));
    const after = await sync();
    expect(after.read).toEqual([RESUMED]);
    expect(after.indexed.find((s) => s.id === RESUMED)?.messageCount).toBe(7);

    const manifest = join(sessions, FIRST, `${FIRST}.json`);
    const m = JSON.parse(await readFile(manifest, 'utf8')) as { metadata: { title: string } };
    m.metadata.title = 'renamed in cline';
    await writeFile(manifest, JSON.stringify(m, null, 2));
    const renamed = await sync();
    expect(renamed.read).toEqual([FIRST]);
    expect(renamed.indexed.find((s) => s.id === FIRST)?.title).toBe('renamed in cline');

    // the root rewritten: it and its sub-agent (whose spawn call is there) are read again
    const root = join(sessions, ROOT, `${ROOT}.messages.json`);
    await writeFile(root, `${await readFile(root, 'utf8')}\n`);
    const rooted = await sync();
    expect(rooted.read).toEqual([ROOT, SUB]);
  });
});
