/**
 * The Agent SDK's forkSession (2.1.332) marks EVERY copied record with `forkedFrom: {sessionId,
 * messageUuid}`, messageUuid being that record's own uuid in the original (the copy's uuids are new;
 * the REPL's own `/branch` marks them so too but keeps the uuids: test/agents/claude-branch-command.test.ts).
 * The fork point is the last one's: parentEntryId names it,
 * read whole and when `threadbase sync` reads only what the copy gained after Claude Code went on in it.
 * The records are in the shape test/agents/claude-sdk-branch.test.ts sees the real SDK write.
 * threadbase's own forkSession (every record marked with the fork point) still gives its fork point.
 */
import { appendFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import {
  type ClaudeRecordAt,
  claudeAssistantRecord,
  claudeForkHomeForFile,
  claudeProjectDir,
  claudeRecordBase,
  claudeUserRecord,
  jsonl,
  writeTranscript,
} from '../helpers/claude-fork-fixtures.js';

const fixture = claudeForkHomeForFile('tb-claude-branch-fork-point-');

const ORIGINAL = '803e561f-515f-4572-93ed-c9c7b89df2fc';
const BRANCH = '9592dc9d-4fd7-4944-b661-797ad3a09e55';
// the original's records
const U1 = 'e18f3094-1b80-4673-ae0b-02d60598f24a';
const ATT = '3a9f8f17-7450-46c5-8ab3-e87fc214389c';
const A1 = 'b9cf2760-5a00-48d9-831d-c61dcc605edc';
const U2 = '67e7229b-5b5d-4061-94a4-c2b50f36e631';
const A2 = 'bede3465-48c5-4181-a3f2-ff0c26f83cfd';

// each record a second after the one made before it
let second = 0;
const at = (sessionId: string, uuid: string, parentUuid: string | null): ClaudeRecordAt => ({
  sessionId,
  uuid,
  parentUuid,
  cwd: fixture.project,
  timestamp: `2026-11-27T10:00:${String(second++).padStart(2, '0')}.000Z`,
});
const user = (sessionId: string, uuid: string, parentUuid: string | null, text: string) =>
  claudeUserRecord(at(sessionId, uuid, parentUuid), text);
const attachment = (sessionId: string, uuid: string, parentUuid: string | null) => ({
  ...claudeRecordBase(at(sessionId, uuid, parentUuid)),
  type: 'attachment',
  attachment: { type: 'date_change', newDate: '2026-11-27' },
});
const assistant = (sessionId: string, uuid: string, parentUuid: string | null, text: string, id: string) =>
  claudeAssistantRecord(at(sessionId, uuid, parentUuid), text, id, `req_${id}`);
/** As the SDK's forkSession copies a record: a new uuid, the chain remapped, its own original uuid marked. */
const copied = (r: Record<string, unknown>, uuid: string, parentUuid: string | null) => ({
  ...r,
  uuid,
  parentUuid,
  sessionId: BRANCH,
  forkedFrom: { sessionId: ORIGINAL, messageUuid: r.uuid },
});

it('a /branch copy names the last copied record as its fork point, read whole and after it grew', async () => {
  const dir = await claudeProjectDir(fixture.home, fixture.project);
  const u1 = user(ORIGINAL, U1, null, 'first alpha');
  const att = attachment(ORIGINAL, ATT, U1);
  const a1 = assistant(ORIGINAL, A1, ATT, 'alpha back', 'msg_1');
  await writeTranscript(dir, ORIGINAL, [
    u1,
    att,
    a1,
    user(ORIGINAL, U2, A1, 'second bravo'),
    assistant(ORIGINAL, A2, U2, 'bravo back', 'msg_2'),
  ]);
  // branched at A1 (upToMessageId), with the trailing records the SDK adds after the copy
  const [c1, c2, c3] = [
    'eb6e5324-58f1-4637-aa3a-71df6b2d25a4',
    '290fb5cc-d38c-412b-88ef-6ce53ab48c7d',
    '7ec305f6-82b7-4caf-be95-4be06394bd80',
  ];
  const branchFile = await writeTranscript(dir, BRANCH, [
    copied(u1, c1, null),
    copied(att, c2, c1),
    copied(a1, c3, c2),
    { type: 'atis-latch', sessionId: BRANCH, atis: false },
    {
      type: 'custom-title',
      customTitle: 'first alpha (Branch)',
      sessionId: BRANCH,
      uuid: '01b270c6-b5ee-4e67-a8f5-2e941003b147',
    },
  ]);

  const reader = new ClaudeDriver(fixture.env);
  const listed = (await reader.listSessions()).find((s) => s.id === BRANCH);
  expect(listed).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });
  expect(await reader.getSession(BRANCH)).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });

  // Claude Code goes on in the branch: its new records carry no forkedFrom
  const unit = (await reader.listUnits()).find((u) => u.sessionId === BRANCH);
  if (!unit) throw new Error('no unit for the branch');
  const whole = await reader.readUnit(unit);
  if (whole?.offset === undefined) throw new Error('the branch was not read whole');
  expect(whole.session).toMatchObject({ parentEntryId: A1 });
  const u3 = '5d1c7b0e-2f47-4a8e-9c61-0b9e3f2a7d11';
  await appendFile(
    branchFile,
    jsonl([
      user(BRANCH, u3, c3, 'forked charlie'),
      assistant(BRANCH, '8a2e4f60-1c3d-4b7e-a5f9-2d6c0e8b1a33', u3, 'charlie back', 'msg_3'),
    ]),
  );
  const grown = (await reader.listUnits()).find((u) => u.sessionId === BRANCH);
  if (!grown) throw new Error('no unit for the grown branch');
  const more = await reader.readUnit(grown, { offset: whole.offset, state: whole.state });
  expect(more?.appended).toBe(true);
  expect(more?.session).toMatchObject({ parentId: ORIGINAL, parentEntryId: A1 });
  expect((await new ClaudeDriver(fixture.env).listSessions()).find((s) => s.id === BRANCH)).toMatchObject({ parentEntryId: A1 });
});

it("threadbase's own forkSession still names its fork point", async () => {
  const reader = new ClaudeDriver(fixture.env);
  const fork = await reader.forkSession(ORIGINAL, { at: U2 });
  expect(fork).toMatchObject({ parentId: ORIGINAL, parentEntryId: U2 });
  expect((await new ClaudeDriver(fixture.env).listSessions()).find((s) => s.id === fork.id)).toMatchObject({
    parentId: ORIGINAL,
    parentEntryId: U2,
  });
});
