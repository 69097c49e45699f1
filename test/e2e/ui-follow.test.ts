/**
 * `threadbase ui` on the local index keeps the index up to date: what an agent wrote after the last
 * `sync` is listed when the viewer starts, and what it writes while the viewer runs shows up in the
 * list; `--no-sync` serves the index as it is. A real `threadbase ui` process, its JSON routes.
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { runCliOk } from '../helpers/cli.js';
import { startUi, type UiProcess } from './ui-process.js';

let home: string;
let env: DriverEnv;
let procEnv: NodeJS.ProcessEnv;
let ui: UiProcess | undefined;

const write = async (agent: string): Promise<SessionInfo> => {
  const sources = new Sources(env);
  try {
    const info = await sources.driver(agent).writeSession?.(sampleSession());
    if (!info) throw new Error(`${agent} wrote nothing`);
    return info;
  } finally {
    await sources.close();
  }
};
const listed = async (url: string): Promise<{ id: string; title: string | null }[]> =>
  ((await (await fetch(`${url}api/v1/web/sessions?limit=500`)).json()) as { sessions: { id: string; title: string | null }[] })
    .sessions;
/** Polls the list until `ok` holds; a bound so that a viewer that never sees the change fails, not a timed assertion. */
async function until(url: string, ok: (rows: { id: string; title: string | null }[]) => boolean): Promise<boolean> {
  const end = Date.now() + 45_000;
  while (Date.now() < end) {
    if (ok(await listed(url))) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'threadbase-ui-follow-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  procEnv = { PATH: process.env.PATH, HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
  await write('claude');
  await runCliOk(env, ['sync']);
});
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
  await rm(home, { recursive: true, force: true });
});

describe('threadbase ui keeps the local index up to date', () => {
  it('lists at once what was written after the last sync, and what is written while it runs', { timeout: 120_000 }, async () => {
    const before = await write('pi');
    ui = await startUi(['--port', '0', '--no-open'], procEnv);
    expect((await listed(ui.url)).map((s) => s.id)).toContain(before.id);
    const during = await write('claude');
    expect(await until(ui.url, (rows) => rows.some((s) => s.id === during.id))).toBe(true);
    // an append to a session the index holds: its new title is listed
    await appendFile(
      during.path as string,
      `${JSON.stringify({ type: 'custom-title', customTitle: 'renamed while watched', sessionId: during.id })}\n`,
    );
    expect(await until(ui.url, (rows) => rows.some((s) => s.id === during.id && s.title === 'renamed while watched'))).toBe(true);
    expect(await ui.stop()).toBe(0);
    ui = undefined;
  });

  it('while another sync holds the index it serves at once, quietly, and catches up once it is free', {
    timeout: 120_000,
  }, async () => {
    const other = new Database(indexPath(env));
    other.exec('BEGIN IMMEDIATE');
    let locked = true;
    try {
      const meanwhile = await write('pi');
      // startUi gives up after 60 s, well under the 2 minutes a sync waits for a lock by default
      ui = await startUi(['--port', '0', '--no-open'], procEnv);
      expect((await listed(ui.url)).map((s) => s.id)).not.toContain(meanwhile.id);
      other.exec('ROLLBACK');
      locked = false;
      expect(await until(ui.url, (rows) => rows.some((s) => s.id === meanwhile.id))).toBe(true);
      expect(ui.stderr()).not.toMatch(/could not be synced|locked/);
    } finally {
      if (locked) other.exec('ROLLBACK');
      other.close();
    }
  });

  it('--no-sync serves the index as it is', { timeout: 60_000 }, async () => {
    const after = await write('pi');
    ui = await startUi(['--port', '0', '--no-open', '--no-sync'], procEnv);
    const ids = (await listed(ui.url)).map((s) => s.id);
    expect(ids).toHaveLength(1);
    expect(ids).not.toContain(after.id);
  });
});
