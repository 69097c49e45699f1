/**
 * `sessions --json` gives a fork's row the entry of its parent it starts from (parentEntryId, as
 * `show --json` has it), listed from the files and through the index; rows of sessions that are no
 * fork keep their shape (no parentEntryId key).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';

let home: string;
let env: DriverEnv;
let project: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-sessions-json-parent-entry-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  project = join(home, 'project');
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const ORIGINAL = '1f0b7c3e-9a24-4d5e-8b61-3c2d4e5f6a70';
const U1 = 'a1111111-1111-4111-8111-111111111111';
const A1 = 'a2222222-2222-4222-8222-222222222222';
const U2 = 'a3333333-3333-4333-8333-333333333333';
const A2 = 'a4444444-4444-4444-8444-444444444444';

const record = (uuid: string, parentUuid: string | null, second: number) => ({
  parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: project,
  sessionId: ORIGINAL,
  version: '2.1.332',
  uuid,
  timestamp: `2026-11-27T09:00:0${second}.000Z`,
});
const user = (uuid: string, parentUuid: string | null, second: number, text: string) => ({
  ...record(uuid, parentUuid, second),
  type: 'user',
  message: { role: 'user', content: text },
});
const assistant = (uuid: string, parentUuid: string, second: number, text: string) => ({
  ...record(uuid, parentUuid, second),
  type: 'assistant',
  requestId: `req_${second}`,
  message: {
    id: `msg_${second}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  },
});

type Row = Record<string, unknown> & { id: string };

it('a fork row carries parentEntryId, from the files and through the index; other rows do not', async () => {
  const dir = join(home, '.claude', 'projects', encodeProjectPath(project));
  await mkdir(dir, { recursive: true });
  const records = [
    user(U1, null, 1, 'first'),
    assistant(A1, U1, 2, 'one'),
    user(U2, A1, 3, 'second'),
    assistant(A2, U2, 4, 'two'),
  ];
  await writeFile(join(dir, `${ORIGINAL}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);

  const before = JSON.parse(await runCliOk(env, ['sessions', '--json', '--no-index'])) as Row[];
  const originalKeys = Object.keys(before.find((r) => r.id === ORIGINAL) ?? {});
  expect(originalKeys).toEqual(['id', 'source', 'project', 'title', 'createdAt', 'updatedAt', 'messageCount', 'parentId']);

  const fork = JSON.parse(await runCliOk(env, ['fork', ORIGINAL, '--at', A1, '--json'])) as Row;
  const shown = JSON.parse(await runCliOk(env, ['show', String(fork.id), '--json'])) as Row;
  expect(shown).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });

  const check = (rows: Row[]) => {
    expect(rows.find((r) => r.id === fork.id)).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });
    const original = rows.find((r) => r.id === ORIGINAL);
    expect(Object.keys(original ?? {})).toEqual(originalKeys);
  };
  check(JSON.parse(await runCliOk(env, ['sessions', '--json', '--no-index'])) as Row[]);
  await runCliOk(env, ['sync']);
  check(JSON.parse(await runCliOk(env, ['sessions', '--json'])) as Row[]);
});
