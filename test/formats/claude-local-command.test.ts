/**
 * A command typed into Claude Code's REPL (`/branch`, `/model`) is recorded as `system` records of
 * subtype `local_command`: the command line, then its output. Claude Code 2.1.332 sends them as the
 * user's text (joined to the user turn before it), and on resume it passes over them when it decides
 * whether the chain ends on the user's side (its "No response requested." goes before them). The
 * reader gives them as user messages, so the context has them; written back they stay system records.
 * The records are in the shape test/agents/claude-branch-command.test.ts sees the real `/branch` write.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import {
  type ClaudeRecordAt,
  claudeAssistantRecord,
  claudeForkHomeForFile,
  claudeProjectDir,
  claudeRecordBase,
  claudeUserRecord,
  writeTranscript,
} from '../helpers/claude-fork-fixtures.js';
import { runCliOk } from '../helpers/cli.js';

const fixture = claudeForkHomeForFile('tb-claude-local-command-');

const ANSWERED = '5b0f8f0e-34a1-4d55-9f3c-1f7f7c1d2a01';
const UNANSWERED = '5b0f8f0e-34a1-4d55-9f3c-1f7f7c1d2a02';
const U1 = 'c0a1d9f2-7e55-4b1c-8f0e-6a3b2c1d0e01';
const A1 = 'c0a1d9f2-7e55-4b1c-8f0e-6a3b2c1d0e02';
const CMD = 'c0a1d9f2-7e55-4b1c-8f0e-6a3b2c1d0e03';
const OUT = 'c0a1d9f2-7e55-4b1c-8f0e-6a3b2c1d0e04';

const COMMAND =
  '<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>sonnet</command-args>';
const OUTPUT = '<local-command-stdout>Set model to sonnet</local-command-stdout>';

let second = 0;
const at = (sessionId: string, uuid: string, parentUuid: string | null): ClaudeRecordAt => ({
  sessionId,
  uuid,
  parentUuid,
  cwd: fixture.project,
  timestamp: `2026-11-27T11:00:${String(second++).padStart(2, '0')}.000Z`,
});
/** A `local_command` record as Claude Code 2.1.332 writes one. */
const localCommand = (sessionId: string, uuid: string, parentUuid: string, content: string) => ({
  ...claudeRecordBase(at(sessionId, uuid, parentUuid)),
  type: 'system',
  subtype: 'local_command',
  content,
  level: 'info',
  isMeta: false,
});

interface Sent {
  role: string;
  content: { type: string; text?: string }[];
}
/** The context's messages as role and texts. */
const said = (messages: Sent[]) => messages.map((m) => [m.role, m.content.map((b) => b.text ?? b.type)]);

async function contextOf(id: string): Promise<Sent[]> {
  const out = await runCliOk(fixture.env, ['context', id, '--source', 'claude', '--json', '--no-index']);
  return (JSON.parse(out) as { messages: Sent[] }).messages;
}

it("a REPL command and its output after a reply are the user's messages in the context, no reply made up after them", async () => {
  const dir = await claudeProjectDir(fixture.home, fixture.project);
  await writeTranscript(dir, ANSWERED, [
    claudeUserRecord(at(ANSWERED, U1, null), 'say alpha'),
    claudeAssistantRecord(at(ANSWERED, A1, U1), 'answer alpha', 'msg_1', 'req_1'),
    localCommand(ANSWERED, CMD, A1, COMMAND),
    localCommand(ANSWERED, OUT, CMD, OUTPUT),
  ]);
  const session = await new ClaudeDriver(fixture.env).getSession(ANSWERED);
  const commands = session?.entries.filter((e) => e.id === CMD || e.id === OUT);
  expect(commands?.map((e) => (e.kind === 'message' ? [e.message.role, e.message.parts] : e.kind))).toEqual([
    ['user', [{ type: 'text', text: COMMAND }]],
    ['user', [{ type: 'text', text: OUTPUT }]],
  ]);
  expect(session?.leafId).toBe(OUT);
  // one user turn, as Claude Code joins them (a newline after the earlier record's text)
  expect(said(await contextOf(ANSWERED))).toEqual([
    ['user', ['say alpha']],
    ['assistant', ['answer alpha']],
    ['user', [`${COMMAND}\n`, OUTPUT]],
  ]);

  // written back (a fork of it) they are Claude Code's system records again
  const fork = await new ClaudeDriver(fixture.env).forkSession(ANSWERED, { at: OUT });
  const written = (await readFile(fork.path as string, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.type === 'system');
  expect(written.map((r) => [r.subtype, r.content])).toEqual([
    ['local_command', COMMAND],
    ['local_command', OUTPUT],
  ]);
});

it('after an unanswered prompt, the made-up reply goes between the prompt and the command records', async () => {
  const dir = await claudeProjectDir(fixture.home, fixture.project);
  const [u, cmd, out] = [
    'd1e2f3a4-0b1c-4d2e-8f3a-4b5c6d7e8f01',
    'd1e2f3a4-0b1c-4d2e-8f3a-4b5c6d7e8f02',
    'd1e2f3a4-0b1c-4d2e-8f3a-4b5c6d7e8f03',
  ];
  await writeTranscript(dir, UNANSWERED, [
    claudeUserRecord(at(UNANSWERED, u, null), 'say bravo'),
    localCommand(UNANSWERED, cmd, u, COMMAND),
    localCommand(UNANSWERED, out, cmd, OUTPUT),
  ]);
  expect(said(await contextOf(UNANSWERED))).toEqual([
    ['user', ['say bravo']],
    ['assistant', ['No response requested.']],
    ['user', [`${COMMAND}\n`, OUTPUT]],
  ]);
});
