/**
 * A reply with no response id written into Claude Code gets a `message.id` threadbase makes up from
 * its entry id (parse.ts madeUpResponseId). Claude Code takes records of one message.id for one
 * response and sends them joined, so every reply needs its own: Continue's entry ids
 * (`<session uuid>:<n>`) share their first 24 characters, which the id was once cut to, and a
 * converted Continue session was resumed with all its replies as one. Either form reads back as no
 * response id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';

let home: string;
let env: DriverEnv;
let project: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-claude-made-up-ids-'));
  env = { home, env: {} };
  project = join(home, 'project');
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const CONTINUE_SESSION = '3f1d2c4b-5a6e-4f70-8a9b-0c1d2e3f4a5b';

/** Four turns whose entry ids are Continue's (`<session uuid>:<n>`), replies without response ids. */
function continueLikeSession(): Session {
  const entries: Entry[] = [];
  for (let n = 0; n < 8; n++) {
    entries.push({
      kind: 'message',
      id: `${CONTINUE_SESSION}:${n}`,
      parentId: n === 0 ? null : `${CONTINUE_SESSION}:${n - 1}`,
      timestamp: `2026-11-28T02:00:${String(n).padStart(2, '0')}.000Z`,
      message:
        n % 2 === 0
          ? { role: 'user', parts: [{ type: 'text', text: `question ${n / 2}` }] }
          : { role: 'assistant', parts: [{ type: 'text', text: `answer ${(n - 1) / 2}` }], model: 'claude-sonnet-4-5' },
    });
  }
  return {
    id: CONTINUE_SESSION,
    source: 'continue',
    project,
    createdAt: '2026-11-28T02:00:00.000Z',
    updatedAt: '2026-11-28T02:00:07.000Z',
    messageCount: entries.length,
    entries,
  };
}

describe('a made-up response id', () => {
  it('is its own for every reply of ids alike in their first 24 characters, and reads back as none', async () => {
    const driver = new ClaudeDriver(env);
    const written = await driver.writeSession(continueLikeSession());
    const records = (await readFile(written.path as string, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; message?: { id?: string } });
    const ids = records.filter((r) => r.type === 'assistant').map((r) => r.message?.id);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^msg_tb_[0-9a-f]{24}$/);
    const back = (await driver.getSession(written.id)) as Session;
    const replies = back.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
    expect(replies.map((m) => m.parts)).toEqual([0, 1, 2, 3].map((n) => [{ type: 'text', text: `answer ${n}` }]));
    for (const m of replies) expect(m.responseId).toBeUndefined();
    // Claude Code's context keeps them apart: four replies, not one joined
    expect((await driver.getContext(written.id)).messages.filter((m) => m.role === 'assistant')).toHaveLength(4);
  });

  it('a UUID entry id keeps the form written before (its first 24 characters)', async () => {
    const driver = new ClaudeDriver(env);
    const s = continueLikeSession();
    const uuidIds = new Map(s.entries.map((e, i) => [e.id, `aaaaaaaa-bbbb-4ccc-8ddd-${String(i).padStart(12, '0')}`]));
    const entries = s.entries.map((e) => ({
      ...e,
      id: uuidIds.get(e.id) as string,
      parentId: e.parentId ? (uuidIds.get(e.parentId) as string) : null,
    }));
    const written = await driver.writeSession({ ...s, id: 'bbbbbbbb-0000-4000-8000-000000000001', entries });
    const text = await readFile(written.path as string, 'utf8');
    expect(text).toContain('"id":"msg_tb_aaaaaaaabbbb4ccc8ddd0000"');
  });

  it('in the form written before for a longer id (one id for every reply) also reads back as none', async () => {
    const id = 'cccccccc-0000-4000-8000-000000000002';
    const dir = join(home, '.claude', 'projects', encodeProjectPath(project));
    await mkdir(dir, { recursive: true });
    const base = { isSidechain: false, userType: 'external', cwd: project, sessionId: id, version: '2.1.332' };
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: `${CONTINUE_SESSION}:0`,
        parentUuid: null,
        timestamp: '2026-11-28T02:00:00.000Z',
        message: { role: 'user', content: 'q' },
      },
      {
        ...base,
        type: 'assistant',
        uuid: `${CONTINUE_SESSION}:1`,
        parentUuid: `${CONTINUE_SESSION}:0`,
        timestamp: '2026-11-28T02:00:01.000Z',
        message: {
          id: `msg_tb_${CONTINUE_SESSION.replace(/-/g, '').slice(0, 24)}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'a' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ];
    await writeFile(join(dir, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const back = (await new ClaudeDriver(env).getSession(id)) as Session;
    const reply = back.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    expect(reply?.kind === 'message' && reply.message.responseId).toBeUndefined();
  });
});
