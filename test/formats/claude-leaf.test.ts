/**
 * The leaf Claude Code 2.1.332 resumes on (probed with the real binary resuming edited transcripts,
 * src/formats/claude/NOTES.md "Leaf"): the last record at or under the last `last-prompt`'s leafUuid.
 * threadbase's current leaf must be that one, and what appendEntries writes must move it.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { parseTranscript } from '../../src/formats/claude/parse.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-claude-leaf-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const SESSION = '5f1e7c2a-0000-4000-8000-000000000001';
type Rec = Record<string, unknown>;
const user = (uuid: string, parentUuid: string | null, text: string): Rec => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: text },
});
const reply = (uuid: string, parentUuid: string, text: string): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: '2026-01-01T00:00:01.000Z',
  message: { role: 'assistant', id: `msg_${uuid}`, model: 'claude-opus-5-5', content: [{ type: 'text', text }] },
});
const lastPrompt = (leafUuid: string | null): Rec => ({ type: 'last-prompt', lastPrompt: 'x', leafUuid, sessionId: SESSION });

/** u1 a1 u2 a2 (last-prompt a2): the transcript Claude Code leaves after two turns; a1 is where a branch starts. */
const twoTurns = [
  user('u1', null, 'one'),
  reply('a1', 'u1', 'one!'),
  user('u2', 'a1', 'two'),
  reply('a2', 'u2', 'two!'),
  lastPrompt('a2'),
];
const branch = (id: string) => [user(`${id}u`, 'a1', id), reply(`${id}a`, `${id}u`, `${id}!`)];

async function leafOf(records: Rec[]): Promise<string | undefined> {
  const file = join(dir, `${randomUUID()}.jsonl`);
  await fs.writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return (await parseTranscript(file)).leafId;
}

describe('Claude Code leaf', () => {
  it('records on another branch after the last-prompt do not move the leaf', async () => {
    expect(await leafOf([...twoTurns, ...branch('b')])).toBe('a2');
  });
  it('records under the named leaf after the last-prompt move it on', async () => {
    expect(await leafOf([...twoTurns, user('u3', 'a2', 'three'), reply('a3', 'u3', 'three!')])).toBe('a3');
  });
  it('a last-prompt naming an inner record: the last record written under it', async () => {
    expect(await leafOf([...twoTurns, lastPrompt('a1')])).toBe('a2');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('a1')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('a1'), user('u3', 'a2', 'three')])).toBe('u3');
  });
  it('the last last-prompt with a leaf counts; a null leafUuid does not', async () => {
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('ba'), user('u3', 'a2', 'three')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('ba'), lastPrompt(null)])).toBe('ba');
  });
  it('an explicit last-prompt (a rewind) cuts what was under its leaf before it, not what comes after', async () => {
    const rewind = (extra: Rec) => ({ ...lastPrompt('a1'), explicit: true, ...extra });
    expect(await leafOf([...twoTurns, rewind({})])).toBe('a1');
    expect(await leafOf([...twoTurns, rewind({ rewound: true, cutUuid: 'u2' })])).toBe('a1');
    expect(await leafOf([...twoTurns, rewind({ rewound: true }), ...branch('b')])).toBe('ba');
  });
  it('no last-prompt, or one naming a uuid not in the file: the last record', async () => {
    const none = twoTurns.filter((r) => r.type !== 'last-prompt');
    expect(await leafOf([...none, ...branch('b')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt(randomUUID())])).toBe('ba');
  });
});

describe('appendEntries on a branch', () => {
  it('ends with a last-prompt in Claude Code shape naming the new leaf, so the branch is current', async () => {
    const project = join(dir, 'project');
    const file = join(dir, '.claude', 'projects', encodeProjectPath(project), `${SESSION}.jsonl`);
    await fs.mkdir(join(file, '..'), { recursive: true });
    await fs.writeFile(file, twoTurns.map((r) => `${JSON.stringify({ ...r, cwd: project })}\n`).join(''));
    const driver = new ClaudeDriver({ home: dir, env: {} });
    const prompt = messageEntry('x1', 'a1', 10, textMessage('user', 'take the other road'));
    const answer = messageEntry('x2', 'x1', 11, textMessage('assistant', 'the other road it is'));
    await driver.appendEntries(SESSION, [prompt, answer]);
    const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1] as string) as Rec;
    const written = lines.map((l) => JSON.parse(l) as Rec).filter((r) => r.type === 'assistant');
    const newLeaf = written[written.length - 1]?.uuid;
    expect(Object.keys(last)).toEqual(['type', 'lastPrompt', 'leafUuid', 'sessionId']);
    expect(last).toEqual({ type: 'last-prompt', lastPrompt: 'take the other road', leafUuid: newLeaf, sessionId: SESSION });
    const session = await new ClaudeDriver({ home: dir, env: {} }).getSession(SESSION);
    expect(session?.leafId).toBe(newLeaf);
    expect(session?.leafId).not.toBe('a2');
  });
});
