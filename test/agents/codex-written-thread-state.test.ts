/**
 * Threads threadbase writes into a CODEX_HOME whose state database the real codex (0.171) made, read
 * and resumed by the real codex:
 * - a copy of a codex thread gets the row's `history_mode` codex gives its own ('paginated', as the
 *   rollout's session_meta says; with 'legacy' codex refused "list_turns is not supported yet" until a
 *   resume rewrote the row), and the rows of codex's paginated-history projection
 *   (thread_history_<n>.sqlite) that codex wrote for the original's records: its app-server lists the
 *   copy's turns (`thread/read` with turns, `thread/turns/list`) before codex ever ran it, and codex
 *   continues that projection when it resumes the copy; a copy with records whose projection
 *   threadbase does not write (a rollback) gets none and shows its turns after a resume;
 * - another agent's session converted into codex is codex's turns (turns.ts), paginated, with the
 *   projection threadbase makes of them: the app-server lists them before codex ran the thread, and
 *   codex's own projection of the same records (made on a resume) is threadbase's;
 * - a sub-agent thread copied without its parent is a top thread of its own, as codex forks one: codex
 *   lists it under no parent, resumes it in its own session (the `session-id` header and
 *   `prompt_cache_key`), and archiving the original parent (app-server `thread/archive`, which takes
 *   the parent's sub-agents along) leaves it. Named as the original parent's sub-agent, it was linked
 *   to that parent by codex (the thread_spawn_edges row codex adds on a resume) and archived with it.
 */
import { existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { ALL_SOURCES, codexAppServer, codexThreadList } from '../helpers/codex-app-server.js';
import { forgetThreadHistory, threadHistoryRows } from '../helpers/codex-history.js';
import { addCodexMcpProbe } from '../helpers/codex-mcp-probe.js';
import { PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';
import { itemText, type ResponsesRequest } from '../helpers/openai-responses-standin.js';
import type { ConvertedRow } from '../helpers/sub-agents.js';

const AUDIT = 'test/fixtures/codex/audit-home/sessions/2026/11/25';
/** codex 0.169 (audit home): a top thread with several turns (one rolled back) */
const TOP = '01a21354-a797-71c1-b74e-7a50f662eec7';
/** the sub-agent "Cicero" of the thread 01a21356-25ea-… (whose rollout the second test puts into this home) */
const CHILD = '01a21356-267a-73e0-9768-3144907e69c8';
const ROOT_OF_CHILD = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';

let home: CodexAgentHome;

beforeAll(async () => {
  home = await setupCodexAgentHome({
    responsesRules: [
      (req) => (itemText(req.input.at(-1)).includes('THINK') ? { reasoning: 'Weighing it.', text: 'Thought.' } : undefined),
      (req) =>
        itemText(req.input.at(-1)).startsWith('SEARCH:')
          ? { webSearch: { query: 'threadbase codex' }, text: 'Found.' }
          : undefined,
      // a heredoc, an image viewed, and tools codex records no item for (its own get_goal, one it does not have)
      (req) => {
        const text = req.input.at(-1)?.type === 'message' ? itemText(req.input.at(-1)) : '';
        if (text.startsWith('HEREDOC:'))
          return { functionCall: { name: 'exec_command', arguments: { cmd: 'cat <<EOF\nx y\nEOF' } } };
        if (text.startsWith('VIEW:'))
          return { functionCall: { name: 'view_image', arguments: { path: join(home.project, 'dot.png') } } };
        if (text.startsWith('GOAL:')) return { functionCall: { name: 'get_goal', arguments: {} } };
        const patch = {
          'PATCH: add': '*** Add File: patched.txt\n+hi',
          'PATCH: update': '*** Update File: patched.txt\n@@\n-hi\n+hello',
          'PATCH: delete': '*** Delete File: patched.txt',
        }[text];
        if (patch)
          return {
            functionCall: {
              name: 'exec_command',
              arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n${patch}\n*** End Patch\nEOF` },
            },
          };
        if (text.startsWith('NOSUCH:')) return { functionCall: { name: 'no_such_tool', arguments: { a: 1 } } };
        if (text.startsWith('MCP:'))
          return { functionCall: { name: 'echo', namespace: 'mcp__probe', arguments: { text: 'hi' } } };
        return undefined;
      },
    ],
  });
  // an MCP server codex starts, for a thread that calls its tool
  await addCodexMcpProbe(home.codexHome, home.root);
  // codex makes its state database on its first run; its thread reasons before it answers
  await home.codex(['THINK: a thread of codex its own']);
  const dir = join(home.codexHome, 'sessions', '2026', '11', '25');
  await fs.mkdir(dir, { recursive: true });
  for (const f of readdirSync(AUDIT).filter((n) => n.includes(TOP) || n.includes(CHILD)))
    await fs.copyFile(join(AUDIT, f), join(dir, f));
}, 180_000);
afterAll(async () => {
  await home?.close();
});

/** The audit fixture's rollout file name of thread `id`. */
const rolloutOf = (id: string): string => readdirSync(AUDIT).find((n) => n.includes(id)) as string;

const where = () => ({ cwd: home.project, home: home.root, codexHome: home.codexHome });

async function copyOf(id: string): Promise<ConvertedRow> {
  return JSON.parse(
    await runCliOk(home.env, ['convert', id, '--source', 'codex', '--to', 'codex', '--json', '--no-index']),
  ) as ConvertedRow;
}

function rows(): { id: string; source: string; history_mode: string }[] {
  const file = readdirSync(home.codexHome).find((f) => /^state_\d+\.sqlite$/.test(f));
  const db = openDatabase(join(home.codexHome, file as string), { readonly: true });
  try {
    return db.prepare('SELECT id, source, history_mode FROM threads').all() as {
      id: string;
      source: string;
      history_mode: string;
    }[];
  } finally {
    db.close();
  }
}

interface ReadThread {
  historyMode: string;
  turns: { status: string; items: { type: string }[] }[];
}

const shape = (t: ReadThread) => t.turns.map((turn) => [turn.status, turn.items.map((i) => i.type)]);

interface Projection {
  turns: (Record<string, unknown> & {
    thread_id: string;
    turn_id: string;
    rollout_ordinal: number;
    rollout_byte_offset: number;
    rollout_end_ordinal: number;
    rollout_end_byte_offset: number;
  })[];
  items: (Record<string, unknown> & { thread_id: string })[];
  state: { next_rollout_byte_offset: number; next_rollout_ordinal: number } | undefined;
}

/** The rows of codex's paginated-history projection (thread_history_<n>.sqlite) for thread `id`. */
function projection(id: string): Projection {
  return threadHistoryRows(home.codexHome, id) as Projection;
}

/** The thread as codex's app-server reads it with its turns (`thread/read`). */
async function readThread(id: string): Promise<ReadThread> {
  return ((await codexAppServer(where(), [['thread/read', { threadId: id, includeTurns: true }]])) as [{ thread: ReadThread }])[0]
    .thread;
}

/** The thread's turns as codex's app-server lists them (`thread/turns/list`). */
async function listedTurns(id: string): Promise<unknown[]> {
  return ((await codexAppServer(where(), [['thread/turns/list', { threadId: id }]])) as [{ data: unknown[] }])[0].data;
}

/** Projection rows without what differs between a thread and its copy: the thread id and the byte offsets. */
const placeless = (p: Projection) => ({
  turns: p.turns.map(({ thread_id, rollout_byte_offset, rollout_end_byte_offset, ...t }) => t),
  items: p.items.map(({ thread_id, ...i }) => i),
  nextOrdinal: p.state?.next_rollout_ordinal,
});

/**
 * The copy as codex's app-server reads and lists it and as its projection holds it is the original
 * (`original`, read): the same turns and rows, at the copy's own places, up to its rollout's end.
 */
async function expectProjectedAsOriginal(ownId: string, original: ReadThread, copy: ConvertedRow): Promise<void> {
  expect((await readThread(copy.id)).turns).toEqual(original.turns);
  expect(await listedTurns(copy.id)).toEqual(await listedTurns(ownId));
  expect(placeless(projection(copy.id))).toEqual(placeless(projection(ownId)));
  expect(projection(copy.id).state?.next_rollout_byte_offset).toBe(readFileSync(copy.path as string).length);
}

describe('real codex reads and resumes the threads threadbase wrote as its own', () => {
  it("a copy's row says the history mode of codex's own rows, and codex's app-server lists its turns as the original's before and after a resume", async () => {
    // the thread codex recorded in this home (its row codex's own)
    const own = rows().find((r) => r.source === 'exec' && r.id !== TOP);
    if (!own) throw new Error('codex recorded no thread of its own');
    expect(own.history_mode).toBe('paginated');
    const copy = await copyOf(own.id);
    expect(rows().find((r) => r.id === copy.id)?.history_mode).toBe(own.history_mode);
    // and a copy of a thread codex wrote earlier (the audit fixture)
    const audit = await copyOf(TOP);
    expect(rows().find((r) => r.id === audit.id)?.history_mode).toBe('paginated');

    // read with turns (refused for a 'legacy' row of a paginated rollout): codex reads a paginated
    // thread's turns from its projection in thread_history_<n>.sqlite, which threadbase wrote as codex
    // does for its own records, so the copy shows the original's turns before codex ever ran it
    const original = await readThread(own.id);
    expect(shape(original)).toEqual([['completed', ['userMessage', 'reasoning', 'agentMessage']]]);
    expect((await readThread(copy.id)).historyMode).toBe('paginated');
    // its turns, its listing and the rows themselves: codex's for the same records, at the copy's own places in its rollout are codex's for the same records, at the copy's own places in its rollout
    await expectProjectedAsOriginal(own.id, original, copy);
    const copyRows = projection(copy.id);
    const copyBytes = readFileSync(copy.path as string);
    for (const t of copyRows.turns) {
      const started = JSON.parse(copyBytes.subarray(t.rollout_byte_offset).toString('utf8').split('\n')[0] as string);
      expect(started).toMatchObject({ ordinal: t.rollout_ordinal, payload: { type: 'task_started', turn_id: t.turn_id } });
      const ended = copyBytes.subarray(0, t.rollout_end_byte_offset).toString('utf8').trimEnd().split('\n').at(-1) as string;
      expect(JSON.parse(ended)).toMatchObject({ ordinal: t.rollout_end_ordinal, payload: { type: 'task_complete' } });
    }
    // a copy with records whose projection threadbase does not know (the audit thread: a rollback)
    // gets none, and shows its turns once codex first resumes it
    expect(projection(audit.id).state).toBeUndefined();
    expect(await readThread(audit.id)).toMatchObject({ historyMode: 'paginated', turns: [] });

    await home.codex(['resume', copy.id, 'probe the copy']);
    expect(rows().find((r) => r.id === copy.id)?.history_mode).toBe('paginated');
    // codex continued the projection threadbase wrote: the copied turn, then its own
    expect(shape(await readThread(copy.id))).toEqual([...shape(original), ['completed', ['userMessage', 'agentMessage']]]);
    expect((await readThread(copy.id)).turns[0]).toEqual(original.turns[0]);
  }, 180_000);

  it("a copy of codex's thread with shell commands, patches and a web search gets codex's rows for them: the app-server lists its turns and items as the original's", async () => {
    await fs.writeFile(join(home.project, 'hello.txt'), 'hi there\n');
    const before = new Set(rows().map((r) => r.id));
    // commands codex parses as a read, a listing, a search and one it does not (a quote, a failure)
    await home.codex(['RUN: cat hello.txt']);
    const own = rows().find((r) => !before.has(r.id));
    if (!own) throw new Error('codex recorded no thread');
    for (const prompt of ['RUN: ls', 'RUN: rg there', `RUN: printf '%s\\n' "it's"; exit 3`, 'SEARCH: threadbase'])
      await home.codex(['resume', own.id, prompt]);
    // patches codex applies (apply_patch run as a command): a file added, updated, deleted
    for (const prompt of ['PATCH: add', 'PATCH: update', 'PATCH: delete']) await home.codex(['resume', own.id, prompt]);
    const copy = await copyOf(own.id);
    const original = await readThread(own.id);
    expect(shape(original)).toEqual([
      ...Array(4).fill(['completed', ['userMessage', 'commandExecution', 'agentMessage']]),
      ['completed', ['userMessage', 'webSearch', 'agentMessage']],
      ...Array(3).fill(['completed', ['userMessage', 'fileChange', 'agentMessage']]),
    ]);
    await expectProjectedAsOriginal(own.id, original, copy);
  }, 180_000);

  it("a copy of codex's thread with an image viewed, calls codex makes no item of, an MCP call, an interrupted turn and codex's compaction gets codex's rows for them", async () => {
    // a 1x1 PNG
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await fs.writeFile(join(home.project, 'dot.png'), Buffer.from(png, 'base64'));
    const before = new Set(rows().map((r) => r.id));
    await home.codex(['HEREDOC: please']);
    const own = rows().find((r) => !before.has(r.id));
    if (!own) throw new Error('codex recorded no thread');
    for (const prompt of ['VIEW: please', 'GOAL: please', 'NOSUCH: please', 'MCP: please'])
      await home.codex(['resume', own.id, prompt]);
    // the command interrupts codex (SIGINT to its parent, the codex exec running it): an interrupted turn
    const stopped = await home.codex(['resume', own.id, 'RUN: kill -INT $PPID; sleep 5']).catch((e: Error) => e.message);
    expect(stopped).toContain('turn interrupted');
    // every request is far over 2000 tokens: codex compacts before this turn
    await home.codex(['resume', own.id, '-c', 'model_auto_compact_token_limit=2000', 'after the compaction']);
    const copy = await copyOf(own.id);
    const original = await readThread(own.id);
    expect(shape(original)).toEqual([
      ['completed', ['userMessage', 'commandExecution', 'agentMessage']],
      ['completed', ['userMessage', 'imageView', 'agentMessage']],
      ['completed', ['userMessage', 'agentMessage']],
      ['completed', ['userMessage', 'agentMessage']],
      ['completed', ['userMessage', 'mcpToolCall', 'agentMessage']],
      ['interrupted', ['userMessage']],
      ['completed', ['contextCompaction', 'userMessage', 'agentMessage']],
    ]);
    await expectProjectedAsOriginal(own.id, original, copy);
  }, 180_000);

  it("another agent's session with a tool call converted into codex (pi) is codex's turns: the app-server lists them before a resume, from the projection codex makes of them", async () => {
    // written as codex's turns (turns.ts) in a paginated rollout, with the projection threadbase makes
    const dir = join(home.root, '.pi', 'agent', 'sessions', '--proj--');
    await fs.mkdir(dir, { recursive: true });
    await fs.copyFile('test/fixtures/pi/real-tool-call.jsonl', join(dir, `2026-11-22T19-09-17-237Z_${PI_TOOL_CALL_ID}.jsonl`));
    const convert = async () =>
      JSON.parse(
        await runCliOk(home.env, ['convert', PI_TOOL_CALL_ID, '--source', 'pi', '--to', 'codex', '--json', '--no-index']),
      ) as ConvertedRow;
    const copy = await convert();
    expect(rows().find((r) => r.id === copy.id)?.history_mode).toBe('paginated');
    const read = (
      (await codexAppServer(where(), [['thread/read', { threadId: copy.id, includeTurns: true }]])) as [
        { thread: ReadThread & { turns: { items: { type: string; text?: string }[] }[] } },
      ]
    )[0].thread;
    expect(read.historyMode).toBe('paginated');
    expect(shape(read)).toEqual([['completed', ['userMessage', 'agentMessage']]]);
    expect(read.turns[0]?.items[1]?.text).toBe('Tool finished: (no output)');
    const listed = (await codexAppServer(where(), [['thread/turns/list', { threadId: copy.id }]])) as [{ data: unknown[] }];
    expect(listed[0].data).toHaveLength(1);
    const ours = projection(copy.id);
    expect(ours.state?.next_rollout_byte_offset).toBe(readFileSync(copy.path as string).length);

    // codex's own projection of such a rollout: a second copy's rows taken away, codex makes its own on a resume
    const again = await convert();
    const mine = projection(again.id);
    forgetThreadHistory(home.codexHome, again.id);
    await home.codex(['resume', again.id, 'probe']);
    const theirs = projection(again.id);
    const written = (r: Record<string, unknown>) => (r.rollout_ordinal as number) < (mine.state?.next_rollout_ordinal ?? 0);
    expect({ turns: theirs.turns.filter(written), items: theirs.items.filter(written) }).toEqual({
      turns: mine.turns,
      items: mine.items,
    });
    expect(theirs.turns.filter((t) => !written(t))).toHaveLength(1);
    // the two copies' rows are alike but for their ids and places
    expect(placeless(ours).turns.map((t) => t.status)).toEqual(placeless(mine).turns.map((t) => t.status));
  }, 180_000);

  it('a sub-agent thread copied without its parent is a thread of its own: its own session, and archiving the original parent leaves it', async () => {
    // the original parent is in this home too, as where a user copies a sub-agent thread out of its parent
    const dir = join(home.codexHome, 'sessions', '2026', '11', '25');
    for (const f of readdirSync(AUDIT).filter((n) => n.includes(ROOT_OF_CHILD))) await fs.copyFile(join(AUDIT, f), join(dir, f));
    const copy = await copyOf(CHILD);
    const metaOf = () =>
      (JSON.parse(readFileSync(copy.path as string, 'utf8').split('\n')[0] as string) as { payload: Record<string, unknown> })
        .payload;

    // codex lists it as a thread of its own, the original sub-agent under its parent
    const listed = await codexThreadList(where(), { sourceKinds: [...ALL_SOURCES, 'subAgentThreadSpawn'] });
    expect(listed.find((t) => t.id === copy.id)).toMatchObject({ parentThreadId: null, agentNickname: null });
    expect(listed.find((t) => t.id === CHILD)).toMatchObject({ parentThreadId: ROOT_OF_CHILD, agentNickname: 'Cicero' });

    await home.codex(['resume', copy.id, 'probe the sub-agent copied alone']);
    const last = home.responses.requests.filter((r) => r.method === 'POST' && /\/responses$/.test(r.path)).at(-1);
    if (!last) throw new Error('codex sent no request');
    const body = last.body as ResponsesRequest;
    expect(itemText(body.input.at(-1))).toBe('probe the sub-agent copied alone');
    expect(body.input.some((i) => itemText(i) === 'CHILDTASK')).toBe(true);
    // in its own session, as a top thread, not as the original parent's sub-agent
    expect(last.headers).toMatchObject({ 'session-id': copy.id, 'thread-id': copy.id });
    expect(last.headers).not.toHaveProperty('x-codex-parent-thread-id');
    expect(body.prompt_cache_key).toBe(copy.id);

    // codex archives a thread's sub-agents with it; the copy is none of the original parent's
    await codexAppServer(where(), [['thread/archive', { threadId: ROOT_OF_CHILD }]]);
    const archived = (id: string) => existsSync(join(home.codexHome, 'archived_sessions', basename(rolloutOf(id))));
    expect(archived(CHILD)).toBe(true);
    expect(existsSync(copy.path as string)).toBe(true);
    // its session_meta names no parent (the original spawn is kept in threadbase's own field)
    expect(metaOf()).toMatchObject({
      session_id: copy.id,
      source: 'cli',
      threadbase: { threadSpawn: { parent_thread_id: ROOT_OF_CHILD } },
    });
    expect(metaOf()).not.toHaveProperty('parent_thread_id');
  }, 180_000);
});
