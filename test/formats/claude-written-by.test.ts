/**
 * Every Claude Code transcript threadbase writes says so (its first record's `threadbase.writtenBy`,
 * read back as SessionInfo.writtenBy), whatever that first record is: a Claude Code API-error record
 * (`isApiErrorMessage`, which with a plain `threadbase` field would read as another agent's failed
 * turn), a `system` api_error, a sub-agent's. The API error still reads as Claude Code's own, and the
 * mark stays when `threadbase sync` reads only what was appended to the transcript since.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';

let home: string;
let env: DriverEnv;
let project: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-claude-written-by-'));
  env = { home, env: {} };
  project = join(home, 'project');
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const SESSION = '5b0c56f2-4f0e-4a52-9d2b-6c1d0e3f7a10';
const common = (uuid: string, parentUuid: string | null, second: number) => ({
  parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: project,
  sessionId: SESSION,
  version: '2.1.332',
  uuid,
  timestamp: `2026-11-25T16:10:${String(second).padStart(2, '0')}.000Z`,
});

/** Claude Code 2.1.332's record of a failed request (fixture claude/resume, line 34) */
const apiErrorRecord = (uuid: string, parentUuid: string | null) => ({
  ...common(uuid, parentUuid, 1),
  type: 'assistant',
  message: {
    id: 'f1f520ae-4d61-44ca-9618-b93e00d97d6a',
    model: '<synthetic>',
    role: 'assistant',
    stop_reason: 'stop_sequence',
    stop_sequence: '',
    type: 'message',
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    content: [{ type: 'text', text: 'API Error: 400 boom' }],
  },
  requestId: 'req_standin_7',
  error: 'unknown',
  isApiErrorMessage: true,
  apiErrorStatus: 400,
  failedResponseHadNoToolCall: true,
});

/** Claude Code's record of a request it retries */
const systemApiErrorRecord = (uuid: string, parentUuid: string | null) => ({
  ...common(uuid, parentUuid, 1),
  type: 'system',
  subtype: 'api_error',
  level: 'error',
  error: { status: 529, error: { type: 'overloaded_error' } },
  retryInMs: 500,
  retryAttempt: 1,
  maxRetries: 10,
});

const prompt = (uuid: string, parentUuid: string | null) => ({
  ...common(uuid, parentUuid, 2),
  type: 'user',
  message: { role: 'user', content: 'try again' },
});
const reply = (uuid: string, parentUuid: string) => ({
  ...common(uuid, parentUuid, 3),
  type: 'assistant',
  requestId: 'req_2',
  message: {
    id: 'msg_ok',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'done' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  },
});

/** A Claude Code transcript of `records` in the temp HOME, read by a new driver. */
async function claudeSession(id: string, records: object[]): Promise<{ driver: ClaudeDriver; session: Session }> {
  const dir = join(home, '.claude', 'projects', encodeProjectPath(project));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${id}.jsonl`), `${records.map((r) => JSON.stringify({ ...r, sessionId: id })).join('\n')}\n`);
  const driver = new ClaudeDriver(env);
  const session = await driver.getSession(id);
  if (!session) throw new Error(`session ${id} not read`);
  return { driver, session };
}

const messagesOf = (s: Session): Message[] => s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
/** a message as the model has it, without Claude Code's record fields */
const plain = ({ meta: _m, ...m }: Message) => m;

describe('a transcript threadbase writes for Claude Code is marked', () => {
  it('when its first record is a Claude Code API-error record, which still reads as Claude Code’s own error', async () => {
    const { driver, session } = await claudeSession('a0000000-0000-4000-8000-000000000001', [
      apiErrorRecord('u1', null),
      prompt('u2', 'u1'),
      reply('u3', 'u2'),
    ]);
    expect(session.writtenBy).toBeUndefined();
    const failed = messagesOf(session)[0] as Message;
    expect(failed).toMatchObject({ role: 'assistant', stopReason: 'error', error: 'API Error: 400 boom' });
    const info = await driver.writeSession(session);
    expect(info.writtenBy).toBe('threadbase');
    const back = await new ClaudeDriver(env).getSession(info.id);
    expect(back?.writtenBy).toBe('threadbase');
    expect(messagesOf(back as Session).map(plain)).toEqual(messagesOf(session).map(plain));
    // listed (and indexed) so too
    const listed = (await new ClaudeDriver(env).listSessions()).find((s) => s.id === info.id);
    expect(listed?.writtenBy).toBe('threadbase');
  });

  it('when its first record is a system api_error', async () => {
    const { driver, session } = await claudeSession('a0000000-0000-4000-8000-000000000002', [
      systemApiErrorRecord('v1', null),
      prompt('v2', 'v1'),
      reply('v3', 'v2'),
    ]);
    const info = await driver.writeSession(session);
    expect((await new ClaudeDriver(env).getSession(info.id))?.writtenBy).toBe('threadbase');
  });

  it('when a sub-agent transcript it writes starts with an API-error record', async () => {
    const { driver, session } = await claudeSession('a0000000-0000-4000-8000-000000000003', [
      apiErrorRecord('w1', null),
      prompt('w2', 'w1'),
      reply('w3', 'w2'),
    ]);
    const parent = await driver.writeSession(session);
    const child = await driver.writeChildSession(parent, { ...session, id: 'child' });
    expect(child.writtenBy).toBe('threadbase');
    const back = await new ClaudeDriver(env).getSession(child.id);
    expect(back?.writtenBy).toBe('threadbase');
    expect(messagesOf(back as Session)[0]).toMatchObject({ stopReason: 'error', error: 'API Error: 400 boom' });
  });

  it('after Claude Code appends to it, as sync reads only what was appended', async () => {
    const { driver, session } = await claudeSession('a0000000-0000-4000-8000-000000000004', [
      prompt('x1', null),
      reply('x2', 'x1'),
      // a later prompt: the read of what is appended starts here, past the first record
      prompt('x3', 'x2'),
      reply('x4', 'x3'),
    ]);
    const info = await driver.writeSession(session);
    const reader = new ClaudeDriver(env);
    const unit = (await reader.listUnits()).find((u) => u.sessionId === info.id);
    if (!unit) throw new Error('no unit');
    const whole = await reader.readUnit(unit);
    expect(whole?.session.writtenBy).toBe('threadbase');
    // Claude Code resumes it: a prompt and a reply appended
    await appendFile(
      info.path as string,
      `${[prompt('x5', 'x4'), reply('x6', 'x5')].map((r) => JSON.stringify({ ...r, sessionId: info.id })).join('\n')}\n`,
    );
    const grown = (await reader.listUnits()).find((u) => u.sessionId === info.id);
    if (!grown || whole?.offset === undefined) throw new Error('no unit');
    const more = await reader.readUnit(grown, { offset: whole.offset, state: whole.state });
    expect(more?.appended).toBe(true);
    expect(more?.fromLine).toBeGreaterThan(1);
    expect(more?.session.writtenBy).toBe('threadbase');
  });
});
