/**
 * Another agent's session written into codex as codex 0.171's turns (turns.ts): `task_started`, its
 * prompt's UserMessage item, the AgentMessage items of the replies, `task_complete`, in a rollout
 * whose session_meta says `history_mode: "paginated"`, with the projection codex makes of it
 * (thread_history_<n>.sqlite) written by threadbase. The real codex (0.171, on the loopback Responses
 * stand-in) then:
 * - lists the session's turns and items from that projection before it ever ran the thread
 *   (app-server `thread/read` with turns, `thread/turns/list`);
 * - projects the same rollout as threadbase does (a second copy without threadbase's rows, resumed
 *   with `codex exec resume`: codex's rows for the written records are threadbase's, row for row), so
 *   the other model's thinking (an `agent_reasoning` event in a turn) and calls codex has no tool for
 *   are no rows to codex either;
 * - sends on resume the context threadbase gives for it (`getContext`, the CLI's `context`);
 * - and threadbase's appended exchange is a turn of codex's too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRollout } from '../../src/formats/codex/history-projection.js';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import type { Entry, Message } from '../../src/model/types.js';
import { type CodexAgentHome, resumedByCodex, setupCodexAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { codexAppServer } from '../helpers/codex-app-server.js';
import { expectCodexResumesAsWritten, threadHistoryRows } from '../helpers/codex-history.js';
import { itemLine, type ResponsesItem, withoutItemIds } from '../helpers/openai-responses-standin.js';
import { claudeListingSession, imagePrompt, startingWithCompaction } from '../helpers/sessions.js';
import '../../src/formats/all.js';

let home: CodexAgentHome;

beforeAll(async () => {
  home = await setupCodexAgentHome();
  // codex makes its state and thread history databases on its first run
  await home.codex(['hello']);
}, 180_000);
afterAll(async () => {
  await home?.close();
});

const where = () => ({ cwd: home.project, home: home.root, codexHome: home.codexHome });

const claudeSession = (firstPrompt?: Message) => claudeListingSession(home.project, firstPrompt);

/** The Claude Code session after a compaction: it starts with the compaction (and a kept reply). */
const compactedFirst = () => startingWithCompaction(claudeSession(), 'The user asked about the files.');

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The session with an image in its first prompt and a reply of two text parts. */
function imageAndParts() {
  const session = claudeSession(imagePrompt(PNG));
  const reply = session.entries[3] as Entry & { kind: 'message' };
  reply.message.parts.push({ type: 'text', text: ' And more.' });
  return session;
}

/** The session with an image with a detail level in its first prompt (codex's view_image sends one). */
function imageWithDetail() {
  return claudeSession(imagePrompt(PNG, { detail: 'high' }));
}

/** The session with another agent's compaction summary kept as a user message (meta.compactionSummary) before its second prompt. */
function summaryBeforeSecondPrompt() {
  const session = claudeSession();
  const at = session.entries.findIndex((e) => e.id === 'u2');
  const prompt = session.entries[at] as Entry;
  session.entries.splice(at, 0, {
    kind: 'message',
    id: 's1',
    parentId: prompt.parentId,
    timestamp: prompt.timestamp,
    message: {
      role: 'user',
      parts: [{ type: 'text', text: 'Summary: the user listed the files.' }],
      meta: { compactionSummary: true },
    },
  });
  prompt.parentId = 's1';
  return session;
}

/** The session whose first reply also has a content item of codex's that is no output text (`meta.codexContent`). */
function replyWithContent(codexContent: Record<string, unknown>) {
  return () => {
    const session = claudeSession();
    const reply = session.entries[3] as Entry & { kind: 'message' };
    reply.message.parts.push({ type: 'text', text: '', meta: { codexContent } });
    return session;
  };
}
const replyWithInputText = replyWithContent({ type: 'input_text', text: ' Input text.' });
const replyWithImage = replyWithContent({ type: 'input_image', image_url: `data:image/png;base64,${PNG}` });

/** The thread's projection rows (thread_history_<n>.sqlite). */
const projection = (id: string) => threadHistoryRows(home.codexHome, id);

function historyModeRow(id: string): string | undefined {
  const file = readdirSync(home.codexHome).find((f) => /^state_\d+\.sqlite$/.test(f));
  const db = openDatabase(join(home.codexHome, file as string), { readonly: true });
  try {
    return (db.prepare('SELECT history_mode FROM threads WHERE id = ?').get(id) as { history_mode: string } | undefined)
      ?.history_mode;
  } finally {
    db.close();
  }
}

interface ReadThread {
  historyMode: string;
  turns: { status: string; items: { type: string; text?: string }[] }[];
}

async function readThread(id: string): Promise<ReadThread> {
  return ((await codexAppServer(where(), [['thread/read', { threadId: id, includeTurns: true }]])) as [{ thread: ReadThread }])[0]
    .thread;
}

const shape = (t: ReadThread) => t.turns.map((turn) => [turn.status, turn.items.map((i) => i.type)]);

describe("another agent's session written into codex as codex's turns", () => {
  it("codex's app-server lists its turns and items before codex ever ran it", async () => {
    const driver = new CodexDriver(home.env);
    const written = await driver.writeSession(claudeSession());
    const lines = readFileSync(written.path as string, 'utf8')
      .trim()
      .split('\n');
    expect((JSON.parse(lines[0] as string) as { payload: { history_mode?: string } }).payload.history_mode).toBe('paginated');
    expect(historyModeRow(written.id)).toBe('paginated');
    const read = await readThread(written.id);
    expect(read.historyMode).toBe('paginated');
    // the thinking and the call codex has no tool for are no items; the replies are
    expect(shape(read)).toEqual([
      ['completed', ['userMessage', 'agentMessage', 'agentMessage']],
      ['completed', ['userMessage', 'agentMessage']],
    ]);
    expect(read.turns[0]?.items.map((i) => i.text ?? '')).toEqual(['', 'Listing.', 'One file: a.txt']);
    const listed = (await codexAppServer(where(), [['thread/turns/list', { threadId: written.id }]])) as [{ data: unknown[] }];
    expect(listed[0].data).toHaveLength(2);
    expect(projection(written.id).state?.next_rollout_byte_offset).toBe(readFileSync(written.path as string).length);
  }, 180_000);

  it.each([
    ['', claudeSession, 2],
    [' (a compaction before its first prompt: a turn of its own)', compactedFirst, 3],
    [' (an image in a prompt, a reply of two text parts)', imageAndParts, 2],
    [' (an image with a detail level in a prompt)', imageWithDetail, 2],
    [" (another agent's compaction summary as a user message: no turn of its own)", summaryBeforeSecondPrompt, 2],
    [' (a reply with an input text item, which codex projects as its text)', replyWithInputText, 2],
    [' (a reply with an image input, which codex projects without it)', replyWithImage, 2],
  ])(
    "codex projects the written rollout as threadbase does, and resumes it with threadbase's context%s",
    async (_name, make, turns) => {
      const driver = new CodexDriver(home.env);
      const written = await driver.writeSession(make());
      expect(readFileSync(written.path as string, 'utf8')).toContain('"history_mode":"paginated"');
      const listed = shape(await readThread(written.id));
      expect(listed).toHaveLength(turns);
      if (make === compactedFirst) expect(listed[0]).toEqual(['completed', ['contextCompaction']]);
      const bytes = readFileSync(written.path as string);
      const ours = projectRollout(written.id, bytes);
      if (typeof ours === 'string') throw new Error(ours);
      if (make === imageWithDetail) expect(JSON.stringify(ours.items)).toContain('\\"detail\\":\\"high\\"');
      if (make === replyWithInputText) expect(JSON.stringify(ours.items)).toContain('Input text.');
      const context = contextToResponses(await new Sources(home.env).driver('codex').getContext(written.id)).input;
      const printed = JSON.parse(await runCliOk(home.env, ['context', written.id, '--format', 'openai-responses'])) as {
        input: ResponsesItem[];
      };
      expect(withoutItemIds(printed.input)).toEqual(withoutItemIds(context));

      // codex's own projection of it: threadbase's rows taken away, codex makes its own on a resume, and its own turn after them
      expect(await expectCodexResumesAsWritten(home, written.id, ours, context)).toHaveLength(1);
    },
    180_000,
  );

  it("an exchange threadbase appends to it is a turn of codex's too", async () => {
    const driver = new CodexDriver(home.env);
    const written = await driver.writeSession(claudeSession());
    const s = await driver.getSession(written.id);
    const leaf = s?.leafId ?? null;
    await driver.appendEntries(written.id, [
      {
        kind: 'message',
        id: 'u3',
        parentId: leaf,
        timestamp: '2026-01-01T00:01:00.000Z',
        message: { role: 'user', parts: [{ type: 'text', text: 'one more' }] },
      },
      {
        kind: 'message',
        id: 'a4',
        parentId: 'u3',
        timestamp: '2026-01-01T00:01:01.000Z',
        message: { role: 'assistant', model: 'claude-x', provider: 'anthropic', parts: [{ type: 'text', text: 'Sure.' }] },
      },
    ]);
    const read = await readThread(written.id);
    expect(shape(read).at(-1)).toEqual(['completed', ['userMessage', 'agentMessage']]);
    expect(read.turns.at(-1)?.items.map((i) => i.text ?? '')).toEqual(['', 'Sure.']);
    expect(projection(written.id).state?.next_rollout_byte_offset).toBe(readFileSync(written.path as string).length);
    // codex resumes it with the appended exchange in its context
    const sent = await resumedByCodex(home, written.id, 'last one');
    expect(sent.map(itemLine).slice(-3)).toEqual(['user one more', 'assistant Sure.', 'user last one']);
    expect(shape(await readThread(written.id)).at(-1)?.[0]).toBe('completed');
  }, 180_000);
});
