/**
 * The real codex 0.171 with its rollout compression on (feature `local_thread_store_compression`, off by
 * default) replaces a rollout whose mtime is 7 days old by `<name>.jsonl.zst` at its next launch.
 * threadbase lists and shows such a session with the entries it had before; codex resumes it (reading
 * it back to `<name>.jsonl`) with the context threadbase gives for it; and threadbase's own append to a
 * compressed rollout decompresses it back to `<name>.jsonl` first, as codex does, which codex resumes.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import type { Session, SessionInfo } from '../../src/model/types.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { codexHistory, itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import { chainSession, messageEntry, textMessage } from '../helpers/sessions.js';
import '../../src/formats/all.js';

const DAY_MS = 24 * 60 * 60 * 1000;

let home: CodexAgentHome;
/** two sessions threadbase wrote into codex, made 8 days old before codex's launch */
let resumed: Session;
let appended: Session;
/** what codex sent for `exec resume` of each, and ours before it */
const sent = new Map<string, ResponsesItem[]>();
const ours = new Map<string, ResponsesItem[]>();
/** the CLI's listing and `show` of one before codex's launch; the same and the driver's read of the other, compressed */
let listedBefore: SessionInfo[];
let shownBefore: Session;
let listed: SessionInfo[];
let shown: Session;
let readCompressed: Session;

const cliListing = async () => JSON.parse(await runCliOk(home.env, ['sessions', '--source', 'codex', '--json'])) as SessionInfo[];
const cliShow = async (id: string) => JSON.parse(await runCliOk(home.env, ['show', id, '--json'])) as Session;
/** a rollout's files after each step */
const files = new Map<string, string[]>();

const driver = () => new CodexDriver(home.env);
const withoutPath = ({ path: _p, ...rest }: Session) => rest;

async function rolloutFiles(s: Session): Promise<string[]> {
  const dir = (s.path as string).replace(/\/[^/]+$/, '');
  return (await fs.readdir(dir)).filter((n) => n.includes(s.id)).sort();
}

async function resume(id: string, probe: string): Promise<void> {
  const mark = home.responses.responseRequests().length;
  await home.codex(['resume', id, probe]);
  const req = home.responses.responseRequests().slice(mark).at(-1);
  if (!req) throw new Error(`codex sent no request for ${id}`);
  sent.set(id, req.input);
}

beforeAll(async () => {
  home = await setupCodexAgentHome();
  await fs.appendFile(join(home.codexHome, 'config.toml'), '\n[features]\nlocal_thread_store_compression = true\n');
  const write = async (tag: string) => {
    const s = chainSession(`${tag}-source`, 'pi', home.project, [
      ['u1', textMessage('user', `${tag}: first question`)],
      ['a1', textMessage('assistant', `${tag}: first answer`, { model: 'standin-model' })],
      ['u2', textMessage('user', `${tag}: second question`)],
      ['a2', textMessage('assistant', `${tag}: second answer`, { model: 'standin-model' })],
    ]);
    const info = await driver().writeSession(s);
    const old = new Date(Date.now() - 8 * DAY_MS);
    await fs.utimes(info.path as string, old, old);
    return (await driver().getSession(info.id)) as Session;
  };
  resumed = await write('resumed');
  appended = await write('appended');
  listedBefore = await cliListing();
  shownBefore = await cliShow(resumed.id);
  // one launch of codex: its compression worker replaces both 8-day-old rollouts by .zst
  await home.codex(['an unrelated prompt']);
  for (const s of [resumed, appended]) files.set(`${s.id}:compressed`, await rolloutFiles(s));
  listed = await cliListing();
  shown = await cliShow(resumed.id);
  readCompressed = (await driver().getSession(appended.id)) as Session;
  ours.set(resumed.id, contextToResponses(await driver().getContext(resumed.id)).input);

  const current = (await driver().getSession(appended.id)) as Session;
  await driver().appendEntries(appended.id, [
    messageEntry('tb-a1', null, new Date().toISOString(), textMessage('user', 'appended: third question')),
    messageEntry(
      'tb-a2',
      'tb-a1',
      new Date().toISOString(),
      textMessage('assistant', 'appended: third answer', { model: 'standin-model' }),
    ),
  ]);
  files.set(`${appended.id}:appended`, await rolloutFiles(current));
  ours.set(appended.id, contextToResponses(await driver().getContext(appended.id)).input);

  await resume(resumed.id, 'probe resumed');
  await resume(appended.id, 'probe appended');
  for (const s of [resumed, appended]) files.set(`${s.id}:resumed`, await rolloutFiles(s));
}, 240_000);

afterAll(async () => {
  await home?.close();
});

const plainName = (s: Session) => (s.path as string).replace(/^.*\//, '');

describe('codex rollouts compressed by the real codex (.jsonl.zst)', () => {
  it('codex compressed both 8-day-old rollouts at its next launch', () => {
    for (const s of [resumed, appended]) expect(files.get(`${s.id}:compressed`)).toEqual([`${plainName(s)}.zst`]);
  });

  it('threadbase lists and shows a compressed session with the entries it had before', () => {
    const ofOurs = (l: SessionInfo[]) => l.filter((x) => x.id === resumed.id || x.id === appended.id);
    expect(ofOurs(listed)).toHaveLength(2);
    expect(ofOurs(listed)).toEqual(ofOurs(listedBefore));
    expect(shown.entries).toHaveLength(resumed.entries.length);
    expect(withoutPath(shown)).toEqual(withoutPath(shownBefore));
    expect(readCompressed.path).toBe(`${appended.path}.zst`);
    expect(withoutPath(readCompressed)).toEqual(withoutPath(appended));
    expect(ours.get(resumed.id)?.map(itemText)).toEqual([
      'resumed: first question',
      'resumed: first answer',
      'resumed: second question',
      'resumed: second answer',
    ]);
  });

  it('codex resumes a compressed rollout by decompressing it back to .jsonl, and sends our context', async () => {
    expect(files.get(`${resumed.id}:resumed`)).toEqual([plainName(resumed)]);
    const input = sent.get(resumed.id) as ResponsesItem[];
    expect(itemText(input.at(-1))).toBe('probe resumed');
    expect(codexHistory(input.slice(1, -1))).toEqual(codexHistory(ours.get(resumed.id) as ResponsesItem[]));
    const after = (await driver().getSession(resumed.id)) as Session;
    expect(after.path).toBe(resumed.path);
    expect(withoutPath({ ...after, entries: after.entries.slice(0, resumed.entries.length) }).entries).toEqual(
      withoutPath(resumed).entries,
    );
  });

  it('threadbase appends to a compressed rollout as codex does: decompressed back to .jsonl, which codex resumes', async () => {
    expect(files.get(`${appended.id}:appended`)).toEqual([plainName(appended)]);
    const input = sent.get(appended.id) as ResponsesItem[];
    expect(itemText(input.at(-1))).toBe('probe appended');
    const context = ours.get(appended.id) as ResponsesItem[];
    expect(context.map(itemText).slice(-2)).toEqual(['appended: third question', 'appended: third answer']);
    expect(codexHistory(input.slice(1, -1))).toEqual(codexHistory(context));
  });
});
