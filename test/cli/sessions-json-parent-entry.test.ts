/**
 * `sessions --json` gives a fork's row the entry of its parent it starts from (parentEntryId, as
 * `show --json` has it), listed from the files and through the index; rows of sessions that are no
 * fork keep their shape (no parentEntryId key).
 */
import { expect, it } from 'vitest';
import {
  type ClaudeRecordAt,
  claudeAssistantRecord,
  claudeForkHomeForFile,
  claudeProjectDir,
  claudeUserRecord,
  writeTranscript,
} from '../helpers/claude-fork-fixtures.js';
import { runCliOk } from '../helpers/cli.js';

const fixture = claudeForkHomeForFile('tb-sessions-json-parent-entry-');

const ORIGINAL = '1f0b7c3e-9a24-4d5e-8b61-3c2d4e5f6a70';
const U1 = 'a1111111-1111-4111-8111-111111111111';
const A1 = 'a2222222-2222-4222-8222-222222222222';
const U2 = 'a3333333-3333-4333-8333-333333333333';
const A2 = 'a4444444-4444-4444-8444-444444444444';

const at = (uuid: string, parentUuid: string | null, second: number): ClaudeRecordAt => ({
  sessionId: ORIGINAL,
  uuid,
  parentUuid,
  cwd: fixture.project,
  timestamp: `2026-11-27T09:00:0${second}.000Z`,
});
const user = (uuid: string, parentUuid: string | null, second: number, text: string) =>
  claudeUserRecord(at(uuid, parentUuid, second), text);
const assistant = (uuid: string, parentUuid: string, second: number, text: string) =>
  claudeAssistantRecord(at(uuid, parentUuid, second), text, `msg_${second}`, `req_${second}`);

type Row = Record<string, unknown> & { id: string };

it('a fork row carries parentEntryId, from the files and through the index; other rows do not', async () => {
  await writeTranscript(await claudeProjectDir(fixture.home, fixture.project), ORIGINAL, [
    user(U1, null, 1, 'first'),
    assistant(A1, U1, 2, 'one'),
    user(U2, A1, 3, 'second'),
    assistant(A2, U2, 4, 'two'),
  ]);

  const before = JSON.parse(await runCliOk(fixture.env, ['sessions', '--json', '--no-index'])) as Row[];
  const originalKeys = Object.keys(before.find((r) => r.id === ORIGINAL) ?? {});
  expect(originalKeys).toEqual(['id', 'source', 'project', 'title', 'createdAt', 'updatedAt', 'messageCount', 'parentId']);

  const fork = JSON.parse(await runCliOk(fixture.env, ['fork', ORIGINAL, '--at', A1, '--json'])) as Row;
  const shown = JSON.parse(await runCliOk(fixture.env, ['show', String(fork.id), '--json'])) as Row;
  expect(shown).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });

  const check = (rows: Row[]) => {
    expect(rows.find((r) => r.id === fork.id)).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });
    const original = rows.find((r) => r.id === ORIGINAL);
    expect(Object.keys(original ?? {})).toEqual(originalKeys);
  };
  check(JSON.parse(await runCliOk(fixture.env, ['sessions', '--json', '--no-index'])) as Row[]);
  await runCliOk(fixture.env, ['sync']);
  check(JSON.parse(await runCliOk(fixture.env, ['sessions', '--json'])) as Row[]);
});
