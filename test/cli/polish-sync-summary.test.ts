/**
 * sync's summary says what it did: a sync that found nothing changed said "indexed 20 sessions", as if
 * it had read them all again; it now says the index is up to date, and a sync that changed something
 * still counts what it read, appended, left and removed.
 */
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { syncSummary } from '../../src/cli/commands/sync.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root, env } = await fixtureHome({ prefix: 'tb-polish-sync-', agents: ['pi'] }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('a sync that finds nothing changed says the index is up to date; one that changed counts what it did', async () => {
  const first = await runCli(env, ['sync', '--source', 'pi']);
  expect(first.code, first.err).toBe(0);
  const indexed = /^indexed (\d+) sessions in [\d.]+ s: (\d+) read, 0 appended, 0 unchanged, 0 removed/m.exec(first.err);
  expect(indexed, first.err).not.toBeNull();
  const [, count, read] = indexed ?? [];
  expect(Number(count)).toBeGreaterThan(1);
  expect(read).toBe(count);

  const again = await runCli(env, ['sync', '--source', 'pi']);
  expect(again.code, again.err).toBe(0);
  expect(again.err).toMatch(new RegExp(`^index up to date: ${count} sessions, none changed \\(checked in [\\d.]+ s\\)\\n$`));

  await unlink(join(root, '.pi/agent/sessions/--work-proj--/v1-linear.jsonl'));
  const removed = await runCli(env, ['sync', '--source', 'pi']);
  expect(removed.err).toMatch(
    new RegExp(
      `^indexed ${Number(count) - 1} sessions in [\\d.]+ s: 0 read, 0 appended, ${Number(count) - 1} unchanged, 1 removed\\n$`,
    ),
  );
});

it('one session is a session', () => {
  const one = { units: 1, reread: 0, appended: 0, unchanged: 1, removed: 0, failed: 0, ms: 10 };
  expect(syncSummary(one)).toBe('index up to date: 1 session, none changed (checked in 0.01 s)');
  expect(syncSummary({ ...one, reread: 1, unchanged: 0 })).toBe(
    'indexed 1 session in 0.01 s: 1 read, 0 appended, 0 unchanged, 0 removed',
  );
});
