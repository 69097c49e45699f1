/**
 * Claude Code's notices in a user's place, written into codex: the `<local-command-caveat>` it adds
 * (isMeta), its records of a command the user ran in Claude Code itself and of its output
 * (`<command-name>/compact…`, `<local-command-stdout>`), and a background task's notification are no
 * prompt the user typed, so they get no `user_message` event and no turn of their own (driver.ts
 * isTypedPrompt): they stay in the turn before them, as codex keeps the context it injects itself,
 * and the model still gets them. The session is the real Claude Code 2.1.330 transcript that ran
 * `/compact` (agents test codex-claude-notices checks codex's listing of it).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import { projectRollout } from '../../src/formats/codex/history-projection.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import '../../src/formats/all.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/claude/real');
/** The real transcript: two prompts, a background task's notification, /compact, a prompt after it. */
const COMPACTED = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-codex-claude-notices-'));
  cpSync(FIXTURE, join(home, '.claude'), { recursive: true });
  mkdirSync(join(home, '.codex'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

type Event = { type?: string; message?: string };
type Rec = { type: string; payload: Event & { role?: string; content?: { text?: string }[]; legacy_event?: Event } };
/** A `user_message` event, or the turn record standing for one (turns.ts legacy_event). */
const userMessageOf = (r: Rec): Event | undefined =>
  r.payload.type === 'user_message'
    ? r.payload
    : r.payload.legacy_event?.type === 'user_message'
      ? r.payload.legacy_event
      : undefined;

describe("Claude Code's notices written into codex", () => {
  it('are no prompt: no user_message event, no turn of their own, still response items the model gets', async () => {
    const session = await new ClaudeDriver({ home, env: {} }).getSession(COMPACTED);
    if (!session) throw new Error('no fixture session');
    const written = await new CodexDriver({ home, env: { CODEX_HOME: join(home, '.codex') } }).writeSession(session);
    const bytes = readFileSync(written.path as string);
    const recs = bytes
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec);
    const prompts = recs.map(userMessageOf).flatMap((e) => (e ? [e.message] : []));
    expect(prompts).toEqual(['RUN: echo hi > out.txt', 'AGENT: say hello', 'after compact']);
    const userItems = recs
      .filter((r) => r.type === 'response_item' && r.payload.role === 'user')
      .map((r) => r.payload.content?.[0]?.text ?? '');
    for (const notice of ['<task-notification>', '<local-command-caveat>', '<command-name>/compact', '<local-command-stdout>'])
      expect(userItems.some((t) => t.trimStart().startsWith(notice))).toBe(true);
    const projected = projectRollout(written.id, bytes);
    if (typeof projected === 'string') throw new Error(projected);
    expect(projected.turns).toHaveLength(3);
    const users = projected.items.filter((i) => i.item_type === 'userMessage');
    expect(users.map((i) => JSON.parse(i.item_json as string).content[0].text)).toEqual(prompts);
  });
});
