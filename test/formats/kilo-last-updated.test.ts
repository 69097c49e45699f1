/**
 * A session's times in Kilo CLI: the time_updated Kilo's retention compares (sessions past
 * `retention.maxAgeDays` are deleted when it is on) is the time of the write, the session's own last time
 * kept in the row's `metadata.threadbase` and read back as updatedAt (listing, reading, the write's answer)
 * while time_updated is still the write's; a later one is Kilo's. OpenCode, which deletes nothing, is
 * written as before.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { KiloDriver, kiloDbPath } from '../../src/formats/kilo/index.js';
import { OpenCodeDriver } from '../../src/formats/opencode/index.js';
import type { Session } from '../../src/model/types.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2025, 4, 1, 10, 0, s)).toISOString();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function oldSession(project: string): Session {
  return {
    id: 's',
    source: 'pi',
    project,
    createdAt: t(1),
    updatedAt: t(4),
    messageCount: 2,
    entries: [
      messageEntry('u1', null, t(1), textMessage('user', 'first')),
      messageEntry('a1', 'u1', t(4), textMessage('assistant', 'one', { model: 'claude-sonnet-4-5' })),
    ],
  };
}

async function kiloHome() {
  const fx = await fixtureHome({ prefix: 'tb-kilo-updated-', fixtures: ['kilo'] });
  temps.push(fx.home);
  return fx;
}

function row(db: string, id: string): { time_created: number; time_updated: number; metadata: string | null } {
  const r = new Database(db, { readonly: true });
  try {
    return r.prepare('SELECT time_created, time_updated, metadata FROM session WHERE id = ?').get(id) as {
      time_created: number;
      time_updated: number;
      metadata: string | null;
    };
  } finally {
    r.close();
  }
}

describe("kilo: the time_updated Kilo's retention compares", () => {
  it('is the time of the write; the session is listed and read with its own times, until Kilo updates it', async () => {
    const { env } = await kiloHome();
    const before = Date.now();
    const driver = new KiloDriver(env);
    const written = await driver.writeSession(oldSession(join(env.home, 'project')));
    const db = kiloDbPath(env);
    const r = row(db, written.id);
    expect(r.time_updated).toBeGreaterThanOrEqual(before);
    expect(r.time_updated).toBeLessThanOrEqual(Date.now());
    expect(r.time_created).toBe(Date.parse(t(1)));
    expect(JSON.parse(r.metadata ?? 'null')).toEqual({
      threadbase: { lastUpdated: Date.parse(t(4)), writtenAt: r.time_updated },
    });

    expect([written.createdAt, written.updatedAt]).toEqual([t(1), t(4)]);
    const read = await new KiloDriver(env).getSession(written.id);
    expect([read?.createdAt, read?.updatedAt]).toEqual([t(1), t(4)]);
    const listed = (await new KiloDriver(env).listSessions()).find((s) => s.id === written.id);
    expect(listed?.updatedAt).toBe(t(4));

    // Kilo carrying the session on sets a later time_updated: that one is the session's updatedAt then
    const later = r.time_updated + 60_000;
    const w = new Database(db);
    w.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(later, written.id);
    w.close();
    expect((await new KiloDriver(env).getSession(written.id))?.updatedAt).toBe(new Date(later).toISOString());
    expect((await new KiloDriver(env).listSessions()).find((s) => s.id === written.id)?.updatedAt).toBe(
      new Date(later).toISOString(),
    );
  });

  it("a fork is its own session made now: it keeps no time of its original's", async () => {
    const { env } = await kiloHome();
    const driver = new KiloDriver(env);
    const written = await driver.writeSession(oldSession(join(env.home, 'project')));
    const before = Date.now();
    const fork = await driver.forkSession(written.id);
    const read = await new KiloDriver(env).getSession(fork.id);
    expect(Date.parse(read?.createdAt ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(read?.updatedAt ?? '')).toBeGreaterThanOrEqual(before);
  });
});

describe('opencode: a session written from an older one', () => {
  it('is written as before: time_updated the time of the write, read back as updatedAt, no metadata of ours', async () => {
    const { env, home } = await kiloHome();
    const ocDb = join(home, '.local', 'share', 'opencode', 'opencode.db');
    mkdirSync(join(ocDb, '..'), { recursive: true });
    copyFileSync(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), ocDb);
    const before = Date.now();
    const written = await new OpenCodeDriver(env).writeSession(oldSession(join(home, 'project')));
    const r = row(ocDb, written.id);
    expect(r.time_updated).toBeGreaterThanOrEqual(before);
    expect(r.metadata).toBeNull();
    expect((await new OpenCodeDriver(env).getSession(written.id))?.updatedAt).toBe(new Date(r.time_updated).toISOString());
  });
});
