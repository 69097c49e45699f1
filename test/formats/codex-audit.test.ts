/**
 * Rollouts the real codex-cli 0.169.0 wrote in the fidelity audit (test/fixtures/codex/README.md, `audit-home`),
 * read as codex itself reads them: what it counts, and the input it sent on resume.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { rolledBackTo } from '../../src/formats/codex/rollout.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pairToolCalls, pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { codexTempHomes } from '../helpers/codex-homes.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const AUDIT_HOME = resolve('test/fixtures/codex/audit-home');
const CUT_OFF = '01a21358-666b-7c82-921f-0c145035e213';
const ROLLED_BACK = '01a21354-a797-71c1-b74e-7a50f662eec7';
const TOOL_SEARCH = '01a21357-17c5-7c31-842a-b2bbe61459bd';

const auditEnv: DriverEnv = { home: '/nonexistent', env: { CODEX_HOME: AUDIT_HOME } };
const { tempHome } = codexTempHomes(AUDIT_HOME, 'tb-codex-audit-');

/** Items as compared: codex sends item ids and statuses we do not keep for foreign items. */
function normalize(items: unknown[]): unknown[] {
  return items.map((it) => {
    const { id: _id, status: _status, ...rest } = it as Record<string, unknown>;
    return rest;
  });
}

async function recordedRequest(name: string): Promise<unknown[]> {
  return JSON.parse(await fs.readFile(resolve('test/fixtures/codex', name), 'utf8')) as unknown[];
}

const texts = (ms: Message[]) => ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));

describe('codex audit: usage', () => {
  it('a response cut off before response.completed is not given the stale token_count codex repeats after it', async () => {
    const s = (await new CodexDriver(auditEnv).getSession(CUT_OFF)) as Session;
    // codex's own total_token_usage after the third turn: 4020 = 1000+10 and 3000+10; the cut-off one counts nothing.
    expect(s.usage).toMatchObject({ input: 4000, output: 20 });
    const partial = s.entries.find((e) => e.kind === 'message' && texts([e.message]).includes('partial answer'));
    expect(partial?.kind === 'message' ? partial.message.usage : 'missing').toBeUndefined();
  });
});

describe('codex audit: writing usage', () => {
  it('total_token_usage is the running thread total, on write and on append (codex resumes its total from it)', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const t = '2026-01-01T00:00:00.000Z';
    const usage = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const msg = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string): Entry =>
      messageEntry(id, parentId, t, textMessage(role, text, role === 'assistant' ? { usage } : {}));
    // two answers with the same counts: neither is taken for a repeated (stale) count
    const written = await driver.writeSession({
      id: 'foreign',
      source: 'claude',
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries: [
        msg('u1', null, 'user', 'one'),
        msg('a1', 'u1', 'assistant', 'A'),
        msg('u2', 'a1', 'user', 'two'),
        msg('a2', 'u2', 'assistant', 'B'),
      ],
    });
    await driver.appendEntries(written.id, [msg('u3', null, 'user', 'three'), msg('a3', 'u3', 'assistant', 'C')]);
    const totals = (await fs.readFile(written.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { payload?: { type?: string; info?: { total_token_usage: { total_tokens: number } } } })
      .flatMap((r) =>
        r.payload?.type === 'token_count' && r.payload.info ? [r.payload.info.total_token_usage.total_tokens] : [],
      );
    expect(totals).toEqual([1100, 2200, 3300]);
    const back = (await driver.getSession(written.id)) as Session;
    expect(back.usage).toMatchObject({ input: 3000, output: 300 });
  });
});

describe('codex audit: thread_rolled_back', () => {
  it('the rolled-back turn is a branch off the path: our context is the input codex sent on resume', async () => {
    const driver = new CodexDriver(auditEnv);
    const s = (await driver.getSession(ROLLED_BACK)) as Session;
    const path = pathToLeaf(s);
    const onPath = texts(path.flatMap((e) => (e.kind === 'message' ? [e.message] : [])));
    expect(onPath).toContain('hello there');
    expect(onPath).toContain('after rollback');
    expect(onPath).not.toContain('again');
    expect(onPath).not.toContain('Second.');
    // the dropped turn is still in the tree (an abandoned branch), and the event is kept
    expect(texts(s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : [])))).toContain('again');
    expect(path.some((e) => e.kind === 'metadata' && e.type === 'event_msg:thread_rolled_back')).toBe(true);
    const input = await recordedRequest('request-rollback-01a21354.json');
    const ours = contextToResponses(await driver.getContext(ROLLED_BACK));
    expect(normalize(ours.input.slice(0, -1))).toEqual(normalize(input.slice(1)));
  });

  it('is written back line for line, and a fork of the leaf replays the same rollback', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(ROLLED_BACK)) as Session;
    const orig = (await fs.readFile(s.path as string, 'utf8')).trim().split('\n');
    const written = await driver.writeSession(s);
    expect(written.meta?.warnings).toBeUndefined();
    const lines = (await fs.readFile(written.path as string, 'utf8')).trim().split('\n');
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(orig.slice(1).map((l) => JSON.parse(l)));
    const fork = await driver.forkSession(ROLLED_BACK);
    const forkLines = (await fs.readFile(fork.path as string, 'utf8')).trim().split('\n');
    expect(forkLines.length).toBe(orig.length);
    expect(await driver.getContext(fork.id)).toEqual(await driver.getContext(ROLLED_BACK));
    // a fork inside the rolled-back turn keeps that turn, without the rollback
    const second = s.entries.find((e) => e.kind === 'message' && texts([e.message]).includes('Second.'));
    const inside = await driver.forkSession(ROLLED_BACK, { at: second?.id });
    const insideCtx = contextToResponses(await driver.getContext(inside.id));
    expect(JSON.stringify(insideCtx.input.at(-1))).toContain('Second.');
    expect(await fs.readFile(inside.path as string, 'utf8')).not.toContain('thread_rolled_back');
  });
});

describe('codex audit: appending after a rollback', () => {
  const user = (id: string, parentId: string | null, text: string): Entry =>
    messageEntry(id, parentId, '2026-12-01T00:00:00.000Z', textMessage('user', text));
  const entryWith = (s: Session, text: string) =>
    s.entries.find((e) => e.kind === 'message' && texts([e.message]).includes(text)) as Entry;

  it('refuses an entry whose parent is on the rolled-back branch (codex would read it as continuing the live one), naming the session and entry', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(ROLLED_BACK)) as Session;
    const before = await fs.readFile(s.path as string, 'utf8');
    const dropped = entryWith(s, 'Second.');
    expect(pathToLeaf(s)).not.toContain(dropped);
    const refused = driver.appendEntries(ROLLED_BACK, [user('x1', dropped.id, 'continue the dropped turn')]);
    await expect(refused).rejects.toMatchObject({ name: 'ThreadbaseError', code: 'not_linear', id: 'x1' });
    await expect(refused).rejects.toThrow(new RegExp(`${ROLLED_BACK}.*x1.*${dropped.id}.*rolled back`));
    // nothing written
    expect(await fs.readFile(s.path as string, 'utf8')).toBe(before);
    // a fork at that entry continues the dropped turn instead
    const fork = await driver.forkSession(ROLLED_BACK, { at: dropped.id });
    await driver.appendEntries(fork.id, [user('x1', dropped.id, 'continue the dropped turn')]);
    const forkCtx = texts((await driver.getContext(fork.id)).messages);
    expect(forkCtx.slice(-2)).toEqual(['Second.', 'continue the dropped turn']);
  });

  it('refuses a parent earlier on the live branch; takes the last message, with only events after it, or null', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(ROLLED_BACK)) as Session;
    const path = pathToLeaf(s);
    const first = entryWith(s, 'hello there');
    await expect(driver.appendEntries(ROLLED_BACK, [user('x1', first.id, 'from the start')])).rejects.toMatchObject({
      code: 'not_linear',
      id: 'x1',
    });
    // two entries that do not follow each other are refused too, before anything is written
    const lastMessage = path.findLast((e) => e.kind === 'message') as Entry;
    expect(path.slice(path.indexOf(lastMessage) + 1).every((e) => e.kind === 'metadata')).toBe(true);
    await expect(
      driver.appendEntries(ROLLED_BACK, [user('x1', lastMessage.id, 'one'), user('x2', lastMessage.id, 'two')]),
    ).rejects.toMatchObject({ code: 'not_linear', id: 'x2' });
    await driver.appendEntries(ROLLED_BACK, [user('x1', lastMessage.id, 'one'), user('x2', null, 'two')]);
    const after = texts((await driver.getContext(ROLLED_BACK)).messages);
    expect(after.slice(-2)).toEqual(['one', 'two']);
    expect(after).toContain('after rollback');
    expect(after).not.toContain('Second.');
  });
});

it('a rollback also drops the context codex injected right before the dropped turn, never above the first turn', () => {
  const t = '2026-01-01T00:00:00.000Z';
  const m = (id: string, role: Message['role'], injected?: string): Entry =>
    messageEntry(id, null, t, textMessage(role, id, injected ? { meta: { codexInjected: injected } } : {}));
  const turnContext: Entry = { id: 'tc', parentId: null, timestamp: t, kind: 'model_change', model: 'gpt-5' };
  const chain = [
    m('dev', 'system'),
    m('env', 'user', 'environment_context'),
    m('u1', 'user'),
    m('a1', 'assistant'),
    m('dev2', 'system'),
    turnContext,
    m('u2', 'user'),
    m('a2', 'assistant'),
  ];
  expect(rolledBackTo(chain, 1)).toBe('a1');
  expect(rolledBackTo(chain, 5)).toBe('env');
  expect(rolledBackTo(chain, 0)).toBe('a2');
});

describe('codex audit: tool_search and image_generation items', () => {
  it('a generated image is an image part, a tool search a paired call and result, all in the context codex sent', async () => {
    const driver = new CodexDriver(auditEnv);
    const s = (await driver.getSession(TOOL_SEARCH)) as Session;
    const messages = s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const image = messages.flatMap((m) => m.parts).find((p) => p.type === 'image');
    expect(image).toMatchObject({ type: 'image', mediaType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    const call = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool_call' && p.name === 'tool_search');
    expect(call).toMatchObject({ input: { query: 'find tools' } });
    const pairing = pairToolCalls(messages);
    expect(pairing.unanswered).toEqual([]);
    expect(pairing.answered.has('ts_1')).toBe(true);
    expect(pairing.orphanResults).toEqual([]);
    expect(s.entries.some((e) => e.kind === 'metadata' && e.type.startsWith('response_item:'))).toBe(false);
    const input = await recordedRequest('request-tool-search-01a21357.json');
    const ours = contextToResponses(await driver.getContext(TOOL_SEARCH));
    expect(normalize(ours.input.slice(0, -1))).toEqual(normalize(input.slice(1)));
    // the items' own ids go back too (codex sends them)
    expect(
      ours.input
        .filter((i) => ['tool_search_call', 'tool_search_output', 'image_generation_call'].includes(String(i.type)))
        .map((i) => i.id),
    ).toEqual(['ts_1', 'tso_1', 'ig_1']);
  });
});

it('a state database whose threads table is not the expected one is left as it was; the rollout is still written', async () => {
  const env = await tempHome();
  const home = join(env.home, '.codex');
  const db = openDatabase(join(home, 'state_9.sqlite'));
  db.exec(
    "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, surprise TEXT NOT NULL); INSERT INTO threads VALUES ('x', '/x', 's')",
  );
  db.close();
  const before = await fs.readFile(join(home, 'state_9.sqlite'));
  const t = '2026-01-01T00:00:00.000Z';
  const written = await new CodexDriver(env).writeSession({
    id: 'foreign',
    source: 'claude',
    createdAt: t,
    updatedAt: t,
    messageCount: 1,
    entries: [messageEntry('u', null, t, textMessage('user', 'hi'))],
  });
  expect(String(written.meta?.warnings)).toContain('unexpected threads schema');
  expect(await fs.readFile(join(home, 'state_9.sqlite'))).toEqual(before);
  expect(await fs.readFile(written.path as string, 'utf8')).toContain('"hi"');
});

it("an image in a tool's output keeps its detail, which codex sends back (view_image: high)", async () => {
  const env = await tempHome();
  const dir = join(env.home, '.codex', 'sessions', '2026', '01', '01');
  await fs.mkdir(dir, { recursive: true });
  const id = '0badc0de-0000-4000-8000-000000000001';
  const image = { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' };
  const rec = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type, payload });
  await fs.writeFile(
    join(dir, `rollout-2026-01-01T00-00-00-${id}.jsonl`),
    `${[
      rec('session_meta', { id, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/p' }),
      rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }] }),
      rec('response_item', { type: 'function_call', name: 'view_image', arguments: '{"path":"a.png"}', call_id: 'c1' }),
      rec('response_item', { type: 'function_call_output', call_id: 'c1', output: [image] }),
    ].join('\n')}\n`,
  );
  const ours = contextToResponses(await new CodexDriver(env).getContext(id));
  expect(ours.input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'c1', output: [image] });
});

/**
 * Sessions converted into codex (the writer is deterministic but for ids and times) whose resume input the
 * real codex-cli 0.169.0 recorded in request-normalize-compaction.json (long texts there as sha256 and length).
 */
describe('codex audit: the input codex sends for written sessions', () => {
  const t = '2026-02-03T04:05:06.000Z';
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const msg = (id: string, parentId: string | null, role: Message['role'], parts: Message['parts']): Entry =>
    messageEntry(id, parentId, t, { role, parts });
  const text = (id: string, parentId: string | null, role: Message['role'], s: string) =>
    messageEntry(id, parentId, t, textMessage(role, s));
  // codex's own local compaction as older codex recorded it (no replacement history): codex rebuilds
  // the history from the user's messages before it (another agent's compaction gets one written)
  const compaction = (id: string, parentId: string, summary: string): Entry => ({
    id,
    parentId,
    timestamp: t,
    kind: 'compaction',
    summary,
    rawSource: 'codex',
    raw: { timestamp: t, type: 'compacted', payload: { message: `${SUMMARY_PREFIX}\n${summary}` } },
  });
  const image = { type: 'image', mediaType: 'image/png', data: png } as const;
  const scenarios: Record<string, Entry[]> = {
    dangling: [
      text('u1', null, 'user', 'first'),
      msg('a1', 'u1', 'assistant', [
        { type: 'text', text: 'calling' },
        { type: 'tool_call', id: 'toolu_dangling', name: 'Bash', input: { command: 'sleep 100' } },
        { type: 'tool_call', id: 'toolu_answered', name: 'Read', input: { file_path: 'a' } },
      ]),
      msg('t1', 'a1', 'tool', [{ type: 'tool_result', callId: 'toolu_answered', content: 'file a' }]),
      text('u2', 't1', 'user', 'interrupted; second'),
      msg('t2', 'u2', 'tool', [{ type: 'tool_result', callId: 'toolu_orphan', content: 'orphan output' }]),
      text('a2', 't2', 'assistant', 'answer'),
    ],
    // over the budget by bytes, not by characters; cut between whole characters
    multibyte: [
      text('u0', null, 'user', 'short first'),
      text('a0', 'u0', 'assistant', 'ok'),
      text('u1', 'a0', 'user', `HEAD ${'lörem ïpsüm '.repeat(6000)} TAIL`),
      text('a1', 'u1', 'assistant', 'read it'),
      compaction('c1', 'a1', 'SUMMARY'),
      text('u2', 'c1', 'user', 'after'),
      text('a2', 'u2', 'assistant', 'fine'),
    ],
    // the second compaction cuts what the first one kept (its marker included), not the original message
    twice: [
      text('u0', null, 'user', `HEAD ${'lorem ipsum '.repeat(8000)} TAIL`),
      text('a0', 'u0', 'assistant', 'read it'),
      compaction('c1', 'a0', 'FIRST SUMMARY'),
      text('u2', 'c1', 'user', 'mid'),
      text('a2', 'u2', 'assistant', 'ok'),
      compaction('c2', 'a2', 'SECOND SUMMARY'),
      text('u3', 'c2', 'user', 'after'),
      text('a3', 'u3', 'assistant', 'fine'),
    ],
    // a message of two text items stays two items; the budget runs out exactly before the oldest
    edge: [
      text('u0', null, 'user', '€'.repeat(30000)),
      text('a0', 'u0', 'assistant', 'ok'),
      msg('u1', 'a0', 'user', [
        { type: 'text', text: 'alpha' },
        { type: 'text', text: 'beta' },
      ]),
      text('a1', 'u1', 'assistant', 'ok'),
      text('u2', 'a1', 'user', 'x'.repeat(79987)),
      text('a2', 'u2', 'assistant', 'ok'),
      compaction('c1', 'a2', 'S'),
      text('u3', 'c1', 'user', 'after'),
      text('a3', 'u3', 'assistant', 'fine'),
    ],
    // images are left out; the texts around an image are cut as one
    edge2: [
      msg('u0', null, 'user', [{ type: 'text', text: 'look' }, image]),
      text('a0', 'u0', 'assistant', 'ok'),
      msg('u1', 'a0', 'user', [{ type: 'text', text: 'A'.repeat(50000) }, image, { type: 'text', text: 'B'.repeat(50000) }]),
      text('a1', 'u1', 'assistant', 'ok'),
      compaction('c1', 'a1', 'S'),
      text('u3', 'c1', 'user', 'after'),
      text('a3', 'u3', 'assistant', 'fine'),
    ],
    edge3: [
      msg('u0', null, 'user', [{ type: 'text', text: 'look' }, image]),
      text('a0', 'u0', 'assistant', 'ok'),
      compaction('c1', 'a0', 'S'),
      text('u3', 'c1', 'user', 'after'),
      text('a3', 'u3', 'assistant', 'fine'),
    ],
  };

  /** Long texts as the fixture keeps them. */
  function digest(v: unknown): unknown {
    if (Array.isArray(v)) return v.map(digest);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, digest(x)]));
    if (typeof v === 'string' && v.length > 1000)
      return { sha256: createHash('sha256').update(v).digest('hex'), length: v.length };
    return v;
  }

  async function compare(name: string): Promise<void> {
    const recorded = JSON.parse(
      await fs.readFile(resolve('test/fixtures/codex/request-normalize-compaction.json'), 'utf8'),
    ) as Record<string, unknown[]>;
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const entries = scenarios[name] as Entry[];
    const written = await driver.writeSession({
      id: name,
      source: 'pi',
      project: '/p',
      createdAt: t,
      updatedAt: t,
      messageCount: entries.length,
      entries,
    });
    const ours = contextToResponses(await driver.getContext(written.id)).input;
    // codex's own per-turn context (developer instructions, environment) and the new prompt are not ours
    const sent = (recorded[name] as Record<string, unknown>[])
      .filter((it) => it.role !== 'developer' && !JSON.stringify(it).includes('<environment_context>'))
      .slice(0, -1);
    expect(normalize(digest(ours) as unknown[])).toEqual(normalize(sent));
  }

  it('a call without an output gets the "aborted" output codex adds right after it, and an output without its call is left out', async () => {
    await compare('dangling');
  });

  it.each(['multibyte', 'twice', 'edge', 'edge2', 'edge3'])(
    'after a local compaction the user message over the 20k-token budget is cut as codex cuts it (%s)',
    async (name) => {
      await compare(name);
    },
  );
});

describe('codex audit: a sub-agent forked with its parent context', () => {
  const PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';
  const CHILD = '01a21356-267a-73e0-9768-3144907e69c8';

  it('is titled and counted by its own part (from subagent_history_start_ordinal), the copied history kept', async () => {
    const driver = new CodexDriver(auditEnv);
    const child = (await driver.getSession(CHILD)) as Session;
    // codex names the thread by the sub-agent's own first prompt, not the parent's "SPAWN"
    expect(child.title).toBe('CHILDTASK');
    expect(child).toMatchObject({ parentId: PARENT, parentToolCallId: 'call_spawn', meta: { copiedEntries: 7 } });
    const own = child.entries.slice(7);
    expect(child.messageCount).toBe(own.filter((e) => e.kind === 'message').length);
    // the parent's copied prompt is still an entry of the child, and in the context codex replays
    expect(texts(child.entries.slice(0, 7).flatMap((e) => (e.kind === 'message' ? [e.message] : [])))).toContain('SPAWN');
    expect(texts((await driver.getContext(CHILD)).messages)).toEqual(expect.arrayContaining(['SPAWN', 'CHILDTASK']));
    const listed = (await driver.listSessions()).find((s) => s.id === CHILD);
    expect(listed).toMatchObject({ title: 'CHILDTASK', messageCount: child.messageCount });
  });
});
