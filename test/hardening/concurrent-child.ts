/**
 * Other processes for concurrent.test.ts:
 *   writer <db> <name> <sessions> <shared id>  — a threadbase writer on one SQLite store: new
 *     sessions, appends to its own sessions, and appends to one session both writers share;
 *   open <db>  — opens (creates and migrates) the store once;
 *   lock <db> <ms>  — holds SQLite's write lock that long (as another program might), then commits.
 * Run: node --import tsx test/hardening/concurrent-child.ts …
 */
import Database from 'better-sqlite3';
import type { Entry } from '../../src/model/types.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

const [mode, db, ...rest] = process.argv.slice(2);
if (!db) throw new Error('usage: concurrent-child.ts writer|lock <db> …');

function entry(id: string, parentId: string | null, text: string): Entry {
  return {
    id,
    parentId,
    kind: 'message',
    timestamp: new Date().toISOString(),
    message: { role: 'user', parts: [{ type: 'text', text }] },
  };
}

if (mode === 'pi-append') {
  // Appends n entries of 256 KiB to one pi session through the driver, each under the same parent.
  const [sessionId, parent, count, name] = rest as [string, string, string, string];
  const { PiDriver } = await import('../../src/formats/pi/index.js');
  const { homeEnv } = await import('../helpers/fixture-homes.js');
  const driver = new PiDriver(homeEnv(db));
  let failed = 0;
  for (let i = 0; i < Number(count); i++) {
    try {
      await driver.appendEntries(sessionId, [entry(`${name}-${i}`, parent, `${name} ${i} ${'z'.repeat(256 * 1024)}`)]);
    } catch (err) {
      failed++;
      process.stdout.write(`error ${(err as Error).message.slice(0, 200)}\n`);
    }
  }
  process.stdout.write(`done ${failed}\n`);
} else if (mode === 'sync') {
  // `threadbase sync` over a home, again and again, each time after the agent file named grew a line.
  const [file, rounds] = rest as [string, string];
  const { main } = await import('../../src/cli/main.js');
  const { homeEnv } = await import('../helpers/fixture-homes.js');
  const { appendFileSync } = await import('node:fs');
  const env = homeEnv(db);
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let stderr = '';
  process.stderr.write = ((s: string) => {
    stderr += s;
    return true;
  }) as typeof process.stderr.write;
  let failed = 0;
  const failures: string[] = [];
  for (let i = 0; i < Number(rounds); i++) {
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'custom', customType: 'tb-sync-probe', id: `p${process.pid}${i}`, parentId: null, timestamp: new Date().toISOString(), data: { i } })}\n`,
    );
    const before = stderr.length;
    const code = await main(['node', 'threadbase', 'sync', '--json'], env);
    if (code !== 0) {
      failed++;
      // what that sync said, whole: a failure that names no lock is otherwise unexplained
      failures.push(`exit ${code}: ${stderr.slice(before).trim().slice(0, 400)}`);
    }
  }
  write(`done ${failed} ${failures.slice(0, 3).join(' | ')}\n`);
} else if (mode === 'open') {
  // Opens (and so creates and migrates) the store, as every threadbase command does first.
  try {
    const store = openSqliteStore(db);
    await store.close();
    process.stdout.write('opened\n');
  } catch (err) {
    process.stdout.write(`error ${(err as Error).message}\n`);
  }
} else if (mode === 'lock') {
  const conn = new Database(db);
  conn.pragma('busy_timeout = 5000');
  conn.exec('BEGIN IMMEDIATE');
  conn.prepare('CREATE TABLE IF NOT EXISTS lock_probe (x)').run();
  process.stdout.write('locked\n');
  setTimeout(
    () => {
      conn.exec('COMMIT');
      conn.close();
      process.stdout.write('released\n');
    },
    Number(rest[0] ?? 1000),
  );
} else if (mode === 'writer') {
  const [name, count, shared] = rest as [string, string, string];
  const store = openSqliteStore(db);
  let errors = 0;
  for (let i = 0; i < Number(count); i++) {
    const sid = `${name}-s${i}`;
    try {
      await store.writeSession(
        {
          id: sid,
          source: 'threadbase',
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
          messageCount: 0,
          entries: [entry(`${sid}-e0`, null, `${name} ${i} start`)],
        },
        { keepId: true },
      );
      let parent = `${sid}-e0`;
      for (let k = 1; k <= 5; k++) {
        await store.appendEntries(sid, [entry(`${sid}-e${k}`, parent, `${name} ${i} ${k}`)]);
        parent = `${sid}-e${k}`;
      }
      // Both writers hang their own chain under the shared session's root.
      await store.appendEntries(shared, [
        entry(`${name}-shared-${i}`, i === 0 ? 'root' : `${name}-shared-${i - 1}`, `${name} shared ${i}`),
      ]);
    } catch (err) {
      errors++;
      process.stdout.write(`error ${(err as Error).message}\n`);
    }
  }
  await store.close();
  process.stdout.write(`done ${errors}\n`);
}
