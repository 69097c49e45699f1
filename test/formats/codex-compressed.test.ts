/**
 * Rollouts codex compressed (feature `local_thread_store_compression`: a 7-day-old rollout replaced by
 * `<name>.jsonl.zst`, its mtime kept) are listed, read, synced and searched as the plain ones were; with
 * both there, the plain one is read (codex's precedence); appending decompresses it back to `.jsonl`
 * first, as codex does before it appends. The agents test codex-compressed has the real codex compress
 * and resume; here the files are made with a zstd frame of raw blocks (a valid stream fzstd reads).
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexDriver } from '../../src/formats/codex/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';
import { codexTempHomes } from '../helpers/codex-homes.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const FIXTURE_HOME = resolve('test/fixtures/codex/home');
const REAL = '01a2049f-112d-7912-ae95-4f258b998a24';
const REAL_FILE = 'sessions/2026/11/22/rollout-2026-11-22T18-57-43-01a2049f-112d-7912-ae95-4f258b998a24.jsonl';
const { tempHome } = codexTempHomes(FIXTURE_HOME, 'tb-codex-zst-');

/** A zstd frame holding `data` in raw blocks (RFC 8878: single segment, 4-byte content size, no checksum). */
function zstdRaw(data: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt32LE(0xfd2fb528, 0);
  header[4] = 0xa0; // Frame_Content_Size_flag 2 (4 bytes), Single_Segment
  header.writeUInt32LE(data.length, 5);
  const parts: Uint8Array[] = [header];
  const max = 128 * 1024;
  for (let at = 0; at === 0 || at < data.length; at += max) {
    const block = data.subarray(at, at + max);
    const last = at + max >= data.length ? 1 : 0;
    const bh = Buffer.alloc(3);
    bh.writeUIntLE(last | (block.length << 3), 0, 3); // Block_Type 0: raw
    parts.push(bh, block);
  }
  return Buffer.concat(parts);
}

/** Replaces the plain rollout by its `.jsonl.zst` as codex's compression does (the mtime kept); returns that path. */
async function compress(plain: string, opts: { keepPlain?: boolean; bytes?: Buffer } = {}): Promise<string> {
  const st = await fs.stat(plain);
  const zst = `${plain}.zst`;
  await fs.writeFile(zst, zstdRaw(opts.bytes ?? (await fs.readFile(plain))));
  await fs.utimes(zst, st.atime, st.mtime);
  if (!opts.keepPlain) await fs.rm(plain);
  return zst;
}

const withoutPath = (s: Session) => {
  const { path: _p, ...rest } = s;
  return rest;
};

async function homeWithReal(): Promise<{ env: DriverEnv; plain: string }> {
  const env = await tempHome();
  return { env, plain: join(env.home, '.codex', REAL_FILE) };
}

describe('codex: compressed rollouts (.jsonl.zst)', () => {
  it('lists and reads a compressed rollout with the same session and entries as before', async () => {
    const { env, plain } = await homeWithReal();
    const before = (await new CodexDriver(env).getSession(REAL)) as Session;
    const listedBefore = (await new CodexDriver(env).listSessions()).find((s) => s.id === REAL);
    const zst = await compress(plain);

    const driver = new CodexDriver(env);
    const listed = (await driver.listSessions()).filter((s) => s.id === REAL);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.path).toBe(zst);
    expect({ ...listed[0], path: undefined }).toEqual({ ...listedBefore, path: undefined });
    const after = (await driver.getSession(REAL)) as Session;
    expect(after.path).toBe(zst);
    expect(withoutPath(after)).toEqual(withoutPath(before));
    expect(after.entries.length).toBeGreaterThan(5);
    expect(await driver.getMessages(REAL)).toEqual(await new CodexDriver(env).getMessages(REAL));
  });

  it('reads the plain rollout when both are there, as codex does, and lists the session once', async () => {
    const { env, plain } = await homeWithReal();
    // an older compressed copy beside the plain one (the plain one was appended to since)
    const text = await fs.readFile(plain, 'utf8');
    const firstLines = Buffer.from(`${text.split('\n').slice(0, 3).join('\n')}\n`);
    await compress(plain, { keepPlain: true, bytes: firstLines });
    const driver = new CodexDriver(env);
    const listed = (await driver.listSessions()).filter((s) => s.id === REAL);
    expect(listed.map((s) => s.path)).toEqual([plain]);
    expect((await driver.getSession(REAL))?.path).toBe(plain);
    const units = (await driver.listUnits()).filter((u) => u.sessionId === REAL);
    expect(units.map((u) => u.path)).toEqual([plain]);
  });

  it('a sync indexes the compressed file as the session (read whole); search and stats find it as before', async () => {
    const { env, plain } = await homeWithReal();
    const cliEnv: DriverEnv = { home: env.home, env: { HOME: env.home, THREADBASE_HOME: join(env.home, '.threadbase') } };
    const run = (args: string[]) => runCliOk(cliEnv, args);
    await run(['sync']);
    const hits = async () =>
      (JSON.parse(await run(['search', 'hello-from-tool', '--json'])) as { sessionId: string }[]).map((h) => h.sessionId);
    const statsBefore = await run(['stats', '--by', 'model', '--json']);
    expect(await hits()).toContain(REAL);

    const zst = await compress(plain);
    const units = (await new CodexDriver(env).listUnits()).filter((u) => u.sessionId === REAL);
    expect(units).toEqual([expect.objectContaining({ key: zst, path: zst, sessionId: REAL })]);
    expect(units[0]?.appendOnly).toBeUndefined();
    await run(['sync']);
    expect(await hits()).toContain(REAL);
    expect(await run(['stats', '--by', 'model', '--json'])).toBe(statsBefore);
    const shown = JSON.parse(await run(['show', REAL, '--json'])) as { id: string; entries: unknown[] };
    expect(shown.id).toBe(REAL);
  });

  it('appending decompresses the rollout back to its .jsonl first, as codex does, and appends there', async () => {
    const { env, plain } = await homeWithReal();
    const original = await fs.readFile(plain);
    const zst = await compress(plain);
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(REAL)) as Session;
    await driver.appendEntries(REAL, [
      messageEntry('tb-append-1', null, '2026-12-01T00:00:00.000Z', textMessage('user', 'appended after compression')),
    ]);
    await expect(fs.stat(zst)).rejects.toMatchObject({ code: 'ENOENT' });
    const now = await fs.readFile(plain);
    expect(now.subarray(0, original.length).equals(original)).toBe(true);
    expect(now.subarray(original.length).toString()).toContain('appended after compression');
    const back = (await new CodexDriver(env).getSession(REAL)) as Session;
    expect(back.path).toBe(plain);
    expect(back.entries.slice(0, s.entries.length).map((e) => e.id)).toEqual(s.entries.map((e) => e.id));
    expect(JSON.stringify(back.entries.slice(s.entries.length))).toContain('appended after compression');
    // the same driver finds the plain rollout now (its kept one was the compressed file)
    expect((await driver.getSession(REAL))?.path).toBe(plain);
  });

  it('a driver that read the compressed file finds the plain one after codex decompressed it to resume', async () => {
    const { env, plain } = await homeWithReal();
    const original = await fs.readFile(plain);
    const zst = await compress(plain);
    const driver = new CodexDriver(env);
    expect((await driver.getSession(REAL))?.path).toBe(zst);
    // what codex's materialize_rollout_for_append leaves: the plain file, the .zst gone
    await fs.writeFile(plain, original);
    await fs.rm(zst);
    expect((await driver.getSession(REAL))?.path).toBe(plain);
  });

  it('a compressed rollout that does not decompress is reported by getSession and left out of the listing', async () => {
    const { env, plain } = await homeWithReal();
    await fs.writeFile(`${plain}.zst`, Buffer.from('not zstd at all'));
    await fs.rm(plain);
    const driver = new CodexDriver(env);
    expect((await driver.listSessions()).map((s) => s.id)).not.toContain(REAL);
    await expect(driver.getSession(REAL)).rejects.toThrow(/cannot decompress the codex rollout/);
  });
});
