/**
 * Claude Code 2.1.332 transcripts built record by record, in a temp home of their own, for the tests of
 * forks and their fork points (test/formats/claude-branch-fork-point, test/cli/sessions-json-parent-entry).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import type { DriverEnv } from '../../src/model/driver.js';

/** A temp HOME, its env (HOME and THREADBASE_HOME set, as the CLI wants them) and the project the records name. */
export interface ClaudeForkHome {
  home: string;
  env: DriverEnv;
  project: string;
}

/**
 * A home for this test file, made under the temp dir (`prefix` names it) before its tests and removed after
 * them; the object returned is filled in place, so a test reads it as it is then.
 */
export function claudeForkHomeForFile(prefix: string): ClaudeForkHome {
  const made = {} as ClaudeForkHome;
  beforeAll(() => {
    const home = mkdtempSync(join(tmpdir(), prefix));
    const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
    Object.assign(made, { home, env, project: join(home, 'project') });
  });
  afterAll(() => {
    if (made.home) rmSync(made.home, { recursive: true, force: true });
  });
  return made;
}

/** Where a record stands: its session, its uuid and parent's, the directory it names and its time. */
export interface ClaudeRecordAt {
  sessionId: string;
  uuid: string;
  parentUuid: string | null;
  cwd: string;
  timestamp: string;
}

/** The fields every conversation record carries. */
export const claudeRecordBase = (at: ClaudeRecordAt) => ({
  parentUuid: at.parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: at.cwd,
  sessionId: at.sessionId,
  version: '2.1.332',
  uuid: at.uuid,
  timestamp: at.timestamp,
});

/** A user record of one prompt. */
export const claudeUserRecord = (at: ClaudeRecordAt, text: string) => ({
  ...claudeRecordBase(at),
  type: 'user',
  message: { role: 'user', content: text },
});

/** An assistant record of one text ending its turn: API message `messageId`, of request `requestId`. */
export const claudeAssistantRecord = (at: ClaudeRecordAt, text: string, messageId: string, requestId: string) => ({
  ...claudeRecordBase(at),
  type: 'assistant',
  requestId,
  message: {
    id: messageId,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  },
});

/** Records as a JSONL file's text, a line break after each. */
export const jsonl = (records: readonly unknown[]): string => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** The folder Claude Code keeps `project`'s transcripts in, under `home`, made if missing. */
export async function claudeProjectDir(home: string, project: string): Promise<string> {
  const dir = join(home, '.claude', 'projects', encodeProjectPath(project));
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Writes `records` as session `sessionId`'s transcript in `dir`; its path. */
export async function writeTranscript(dir: string, sessionId: string, records: readonly unknown[]): Promise<string> {
  const file = join(dir, `${sessionId}.jsonl`);
  await writeFile(file, jsonl(records));
  return file;
}
