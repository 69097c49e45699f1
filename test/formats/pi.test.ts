/** The pi format: every entry type, migration of old versions, bad input, writing, branching, forking, labels. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { PiDriver, sessionDirName } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { branches, currentLeaf, messageText } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { contextsAtEveryEntry } from '../fixtures/pi/compare.js';
import { DETAIL_IMAGE, imageDetailSession, messageEntry, textMessage } from '../helpers/sessions.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pi');

async function home(): Promise<DriverEnv> {
  return { home: await fs.mkdtemp(join(tmpdir(), 'tb-pi-')), env: {} };
}

/** Copies a fixture into the env's pi session dir under pi's file name; returns its path and id. */
async function install(env: DriverEnv, fixture: string, cwd = '/work/x'): Promise<{ file: string; id: string }> {
  const text = await fs.readFile(join(fixtures, fixture), 'utf8');
  const id = (JSON.parse(text.split('\n')[0] as string) as { id: string }).id;
  const dir = join(env.home, '.pi', 'agent', 'sessions', sessionDirName(cwd));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  await fs.writeFile(file, text);
  return { file, id };
}

async function write(env: DriverEnv, name: string, lines: (string | object)[]): Promise<string> {
  const dir = join(env.home, '.pi', 'agent', 'sessions', sessionDirName('/work/bad'));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await fs.writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return file;
}

const byId = (s: Session, id: string) => s.entries.find((e) => e.id === id) as Entry;

async function expectSameAsPi(file: string, env: DriverEnv, id: string) {
  const sides = await contextsAtEveryEntry(file, env, id);
  expect(sides.length).toBeGreaterThan(0);
  for (const side of sides) expect(side.ours, `leaf ${side.leafId}`).toEqual(side.pi);
}

describe('reading pi v3', () => {
  it('maps every entry type and keeps the rest raw', async () => {
    const env = await home();
    const { id, file } = await install(env, 'v3-all-types.jsonl', '/work/all');
    const driver = new PiDriver(env);
    const s = (await driver.getSession(id)) as Session;
    expect(s.source).toBe('pi');
    expect(s.project).toBe('/work/all');
    expect(s.title).toBe('All the types');
    expect(s.path).toBe(file);
    expect(s.leafId).toBe('e0000017');
    expect(s.warnings?.map((w) => [w.line, w.message])).toEqual([[18, 'unknown entry type "future_thing"; kept raw']]);

    expect(byId(s, 'e0000001')).toMatchObject({ kind: 'model_change', provider: 'anthropic', model: 'claude-opus-4-5' });
    expect(byId(s, 'e0000002')).toMatchObject({ kind: 'model_change', thinkingLevel: 'high' });
    expect(byId(s, 'e0000003')).toMatchObject({
      kind: 'message',
      message: {
        role: 'user',
        parts: [
          { type: 'text', text: 'look at this' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      },
    });
    const a = byId(s, 'e0000004');
    expect(a).toMatchObject({
      kind: 'message',
      rawSource: 'pi',
      message: {
        role: 'assistant',
        model: 'claude-opus-4-5',
        provider: 'anthropic',
        api: 'anthropic-messages',
        stopReason: 'toolUse',
        responseId: 'msg_1',
        cost: 0.33,
        usage: { input: 100, output: 20, cacheRead: 50, cacheWrite: 30, reasoning: 0 },
        parts: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'running it' },
          { type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
        ],
      },
    });
    expect(byId(s, 'e0000005')).toMatchObject({
      kind: 'message',
      message: {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            name: 'bash',
            isError: false,
            content: [{ type: 'text', text: 'a.txt\nb.txt' }],
          },
        ],
        meta: { details: { exit: 0 } },
      },
    });
    expect(messageText((byId(s, 'e0000007') as Extract<Entry, { kind: 'message' }>).message)).toBe(
      'Ran `git status`\n```\nclean\n```',
    );
    expect(byId(s, 'e0000008')).toMatchObject({ kind: 'metadata', type: 'message:bashExecution' });
    expect(byId(s, 'e0000009')).toMatchObject({
      kind: 'metadata',
      type: 'custom',
      data: { customType: 'my-ext', data: { count: 42 } },
    });
    expect(byId(s, 'e0000010')).toMatchObject({
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: 'injected context' }] },
    });
    expect(byId(s, 'e0000011')).toMatchObject({ kind: 'label', targetId: 'e0000004', label: 'tool-run' });
    expect(byId(s, 'e0000012')).toMatchObject({
      kind: 'compaction',
      summary: 'Listed files.',
      firstKeptEntryId: 'e0000006',
      tokensBefore: 5000,
    });
    expect(byId(s, 'e0000014')).toMatchObject({ kind: 'branch_summary', summary: 'Tried compacting.', fromId: 'e0000013' });
    expect(byId(s, 'e0000017')).toMatchObject({ kind: 'metadata', type: 'future_thing', raw: { payload: { x: 1 } } });
    expect(s.usage).toEqual({ input: 250, output: 25, cacheRead: 50, cacheWrite: 30, reasoning: 0 });
    expect(s.cost).toBeCloseTo(0.38);
    expect(s.models).toEqual(['claude-opus-4-5']);
    expect(branches(s)).toHaveLength(2);
    await expectSameAsPi(file, env, id);
  });

  it('words compaction and branch summaries as pi does', async () => {
    const env = await home();
    const { id } = await install(env, 'v3-all-types.jsonl');
    const driver = new PiDriver(env);
    const compacted = await driver.getContext(id, { leafId: 'e0000013' });
    expect(compacted.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user', 'user']);
    expect(messageText(compacted.messages[0] as never)).toBe(
      'The conversation history before this point was compacted into the following summary:\n\n<summary>\nListed files.\n</summary>',
    );
    expect(compacted.thinkingLevel).toBe('high');
    const other = await driver.getContext(id);
    expect(messageText(other.messages[other.messages.length - 2] as never)).toBe(
      'The following is a summary of a branch that this conversation came back from:\n\n<summary>\nTried compacting.</summary>',
    );
  });

  it('matches pi on a session recorded by the real pi', async () => {
    const env = await home();
    const { id, file } = await install(env, 'real-tool-call.jsonl');
    const s = (await new PiDriver(env).getSession(id)) as Session;
    expect(s.warnings).toEqual([]);
    expect(s.messageCount).toBe(4);
    await expectSameAsPi(file, env, id);
  });

  it.each([
    // continued with -c, then branched in place by threadbase and resumed by pi on the new branch
    ['real-branched.jsonl', 2],
    // pi --fork of a session, then one more turn in the fork
    ['real-fork.jsonl', 1],
    // two turns, a compaction through pi's RPC `compact`, one more turn
    ['real-compacted.jsonl', 1],
  ])('matches pi at every entry of the recorded %s', async (fixture, branchCount) => {
    const env = await home();
    const { id, file } = await install(env, fixture);
    const s = (await new PiDriver(env).getSession(id)) as Session;
    expect(s.warnings).toEqual([]);
    expect(branches(s)).toHaveLength(branchCount);
    await expectSameAsPi(file, env, id);
  });
});

describe('older versions', () => {
  it('migrates v1 in memory with stable ids and never rewrites the file', async () => {
    const env = await home();
    const { id, file } = await install(env, 'v1-linear.jsonl');
    const before = await fs.readFile(file);
    const s1 = (await new PiDriver(env).getSession(id)) as Session;
    const s2 = (await new PiDriver(env).getSession(id)) as Session;
    expect(s1.entries.map((e) => e.id)).toEqual(s2.entries.map((e) => e.id));
    expect(new Set(s1.entries.map((e) => e.id)).size).toBe(6);
    expect(s1.entries.map((e) => e.parentId)).toEqual([null, ...s1.entries.slice(0, -1).map((e) => e.id)]);
    const comp = s1.entries[4] as Extract<Entry, { kind: 'compaction' }>;
    expect(comp.kind).toBe('compaction');
    expect(comp.firstKeptEntryId).toBe(s1.entries[2]?.id);
    const ctx = await new PiDriver(env).getContext(id);
    expect(ctx.messages.map((m) => messageText(m).slice(0, 20))).toEqual([
      'The conversation his',
      'second question',
      'second answer',
      'third question',
    ]);
    expect(await fs.readFile(file)).toEqual(before);
    await expectSameAsPi(file, env, id);
  });

  it('migrates the v2 hookMessage role to custom', async () => {
    const env = await home();
    const { id, file } = await install(env, 'v2-hook.jsonl');
    const s = (await new PiDriver(env).getSession(id)) as Session;
    expect(byId(s, 'a0000002')).toMatchObject({
      kind: 'message',
      message: { role: 'user', meta: { piRole: 'custom', customType: 'reminder' } },
    });
    await expectSameAsPi(file, env, id);
  });
});

describe('bad input', () => {
  it('reports damaged lines, unknown types, missing parents and cycles with file and line, and loads the rest', async () => {
    const env = await home();
    const id = '0190dddd-4444-7000-8000-000000000004';
    const msg = (mid: string, parentId: string | null, text: string) => ({
      type: 'message',
      id: mid,
      parentId,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: text, timestamp: 1 },
    });
    const file = await write(env, `2026-01-01T00-00-00-000Z_${id}.jsonl`, [
      { type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work/bad' },
      msg('b1', null, 'one'),
      '{"type":"message", broken',
      msg('b2', 'b1', 'two'),
      { type: 'mystery', id: 'b3', parentId: 'b2', timestamp: '2026-01-01T00:00:00.000Z' },
      msg('b4', 'gone', 'orphan'),
      msg('c1', 'c2', 'cycle a'),
      msg('c2', 'c1', 'cycle b'),
      msg('s1', 's1', 'self'),
      { type: 'message', parentId: 'b2', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'no id' } },
      msg('b5', 'b2', 'last good'),
      '{"type":"message","id":"torn","parentId":"b5","mess',
    ]);
    await fs.appendFile(file, Buffer.from([0x0a, 0xff, 0xfe, 0x0a]));
    await fs.appendFile(file, `${JSON.stringify(msg('b6', 'b5', 'after binary'))}\n`);
    const s = (await new PiDriver(env).getSession(id)) as Session;
    const w = (s.warnings ?? []).map((x) => `${basename(x.file)}:${x.line} ${x.message}`);
    const name = basename(file);
    expect(w).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${name}:3 malformed JSON`)),
        `${name}:5 unknown entry type "mystery"; kept raw`,
        `${name}:10 message record without an id; skipped`,
        `${name}:9 entry is its own parent; made a root`,
        `${name}:6 parent gone not found; entry treated as a root`,
        expect.stringMatching(new RegExp(`^${name}:8 parentId cycle`)),
        expect.stringMatching(new RegExp(`^${name}:12 malformed JSON`)),
        `${name}:13 line is not valid UTF-8`,
      ]),
    );
    for (const x of s.warnings ?? []) expect(x.file).toBe(file);
    expect(s.entries.map((e) => e.id)).toEqual(['b1', 'b2', 'b3', 'b4', 'c1', 'c2', 's1', 'b5', 'b6']);
    expect(byId(s, 'c2').parentId).toBeNull();
    expect(s.leafId).toBe('b6');
    const driver = new PiDriver(env);
    expect((await driver.getContext(id)).messages.map((m) => messageText(m))).toEqual([
      'one',
      'two',
      'last good',
      'after binary',
    ]);
    expect((await driver.getContext(id, { leafId: 'c1' })).messages.map((m) => messageText(m))).toEqual(['cycle b', 'cycle a']);
    // The listing still carries the session, with its warnings.
    const list = await driver.listSessions();
    expect(list.map((l) => l.id)).toEqual([id]);
    expect(list[0]?.meta?.warnings as unknown[]).toHaveLength(s.warnings?.length ?? -1);
  });

  it('loads a file without a header and says so', async () => {
    const env = await home();
    const file = await write(env, '2026-01-01T00-00-00-000Z_0190eeee-5555-7000-8000-000000000005.jsonl', [
      {
        type: 'message',
        id: 'x1',
        parentId: null,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: 'hi' },
      },
    ]);
    const s = (await new PiDriver(env).getSession('0190eeee-5555-7000-8000-000000000005')) as Session;
    expect(s.warnings?.[0]).toMatchObject({ file, line: 1, message: 'no pi session header on the first line' });
    expect(s.entries).toHaveLength(1);
  });
});

describe('writing', () => {
  const foreign = (): Session => ({
    id: 'claude-session-1',
    source: 'claude',
    project: '/work/conv',
    createdAt: '2026-02-01T00:00:00.000Z',
    updatedAt: '2026-02-01T00:00:09.000Z',
    messageCount: 5,
    entries: [
      {
        id: 'u1',
        parentId: null,
        timestamp: '2026-02-01T00:00:01.000Z',
        kind: 'message',
        rawSource: 'claude',
        raw: { any: 1 },
        message: {
          role: 'user',
          parts: [
            { type: 'text', text: 'list files' },
            { type: 'image', mediaType: 'image/png', data: 'AAAA' },
          ],
        },
      },
      {
        id: 'a1',
        parentId: 'u1',
        timestamp: '2026-02-01T00:00:02.000Z',
        kind: 'message',
        rawSource: 'claude',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          responseId: 'r1',
          parts: [{ type: 'thinking', thinking: 'plan', signature: 'S' }],
        },
      },
      {
        id: 'a2',
        parentId: 'a1',
        timestamp: '2026-02-01T00:00:03.000Z',
        kind: 'message',
        rawSource: 'claude',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          responseId: 'r1',
          stopReason: 'tool_use',
          usage: { input: 9, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          parts: [{ type: 'tool_call', id: 't1', name: 'Bash', input: { command: 'ls' } }],
        },
      },
      {
        id: 'r1',
        parentId: 'a2',
        timestamp: '2026-02-01T00:00:04.000Z',
        kind: 'message',
        rawSource: 'claude',
        message: {
          role: 'tool',
          parts: [
            { type: 'tool_result', callId: 't1', content: 'a\nb' },
            { type: 'text', text: 'and a note' },
          ],
        },
      },
      {
        id: 'a3',
        parentId: 'r1',
        timestamp: '2026-02-01T00:00:05.000Z',
        kind: 'message',
        rawSource: 'claude',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          stopReason: 'end_turn',
          parts: [{ type: 'text', text: 'two files' }],
        },
      },
      {
        id: 'm1',
        parentId: 'a3',
        timestamp: '2026-02-01T00:00:06.000Z',
        kind: 'metadata',
        rawSource: 'claude',
        type: 'file-history-snapshot',
        data: { files: 0 },
      },
    ],
  });

  it('writes a converted session that pi reads back with the same context', async () => {
    const env = await home();
    const driver = new PiDriver(env);
    const src = foreign();
    const info = await driver.writeSession(src);
    expect(info.source).toBe('pi');
    expect(info.path).toContain(join('.pi', 'agent', 'sessions', sessionDirName('/work/conv')));
    expect(info.path?.endsWith(`_${info.id}.jsonl`)).toBe(true);
    const lines = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'session', version: 3, id: info.id, cwd: '/work/conv' });
    // One pi assistant message for the split response; one toolResult then a user message for the tool message.
    expect(lines.slice(1).map((l) => l.message?.role ?? l.type)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'user',
      'assistant',
      'custom',
    ]);
    expect(lines[2].message).toMatchObject({
      stopReason: 'toolUse',
      content: [
        { type: 'thinking', thinkingSignature: 'S' },
        { type: 'toolCall', id: 't1', name: 'Bash', arguments: { command: 'ls' } },
      ],
    });
    expect(lines[3].message).toMatchObject({ toolCallId: 't1', toolName: 'Bash', content: [{ type: 'text', text: 'a\nb' }] });
    expect(lines[5].message).toMatchObject({ stopReason: 'stop' });

    const sm = SessionManager.open(info.path as string);
    const theirs = sm.buildSessionContext().messages;
    expect(theirs.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'user', 'assistant']);
    await expectSameAsPi(info.path as string, env, info.id);
  });

  it("keeps codex's image detail beside pi's image fields and reads it back", async () => {
    const env = await home();
    const driver = new PiDriver(env);
    const info = await driver.writeSession(imageDetailSession());
    const back = (await driver.getSession(info.id)) as Session;
    expect(back.entries[0]?.kind === 'message' && back.entries[0].message.parts[0]).toEqual(DETAIL_IMAGE);
    await expectSameAsPi(info.path as string, env, info.id);
  });

  it("keeps another agent's system message as a custom entry pi does not send, not as a user turn", async () => {
    // codex's developer messages (its sandbox rules, its skills) would reach pi's model as the user's words
    const env = await home();
    const t = (n: number) => `2026-02-01T00:00:0${n}.000Z`;
    const s: Session = {
      id: 'codex-session-1',
      source: 'codex',
      project: '/work/conv',
      createdAt: t(0),
      updatedAt: t(3),
      messageCount: 3,
      entries: [
        messageEntry('s1', null, t(1), {
          role: 'system',
          parts: [{ type: 'text', text: '<permissions instructions>never ask</permissions instructions>' }],
          meta: { codexRole: 'developer' },
        }),
        messageEntry('u1', 's1', t(2), textMessage('user', 'hi')),
        messageEntry('a1', 'u1', t(3), {
          role: 'assistant',
          model: 'm',
          provider: 'p',
          parts: [{ type: 'text', text: 'hello' }],
        }),
      ],
    };
    const info = await new PiDriver(env).writeSession(s);
    expect(info.meta?.warnings).toEqual(['s1: pi has no system messages; kept as a custom entry pi does not send']);
    const lines = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toMatchObject({
      type: 'custom',
      customType: 'threadbase:system',
      data: {
        parts: [{ type: 'text', text: '<permissions instructions>never ask</permissions instructions>' }],
        meta: { codexRole: 'developer' },
      },
    });
    const theirs = SessionManager.open(info.path as string).buildSessionContext().messages;
    expect(theirs.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(theirs)).not.toContain('permissions');
    await expectSameAsPi(info.path as string, env, info.id);
    // read back as the system message it was, for an agent that has them; not in what pi sends
    const driver = new PiDriver(env);
    const back = (await driver.getSession(info.id)) as Session;
    expect(back.entries[0]).toMatchObject({ kind: 'message', message: { role: 'system', meta: { codexRole: 'developer' } } });
    expect((await driver.getContext(info.id)).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('writes a pi session back record for record and puts the current leaf last', async () => {
    const env = await home();
    const { id, file } = await install(env, 'v3-all-types.jsonl');
    const driver = new PiDriver(env);
    const s = (await driver.getSession(id)) as Session;
    const info = await driver.writeSession({ ...s, leafId: 'e0000013' });
    const orig = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    const copy = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(copy[copy.length - 1].id).toBe('e0000013');
    const key = (r: { id: string }) => r.id;
    expect([...copy].sort((x, y) => key(x).localeCompare(key(y)))).toEqual(
      [...orig].sort((x, y) => key(x).localeCompare(key(y))),
    );
    const back = (await driver.getSession(info.id)) as Session;
    expect(currentLeaf(back)?.id).toBe('e0000013');
  });

  it('appends, branches in place with a summary, and pi agrees', async () => {
    const env = await home();
    const { id, file } = await install(env, 'real-tool-call.jsonl');
    const before = await fs.readFile(file);
    const driver = new PiDriver(env);
    const s = (await driver.getSession(id)) as Session;
    const firstUser = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user') as Entry;
    const leaf = await driver.branchAt(id, firstUser.id, { summary: 'Ran echo.', message: 'try again differently' });
    const after = await fs.readFile(file);
    expect(after.subarray(0, before.length)).toEqual(before);
    const s2 = (await driver.getSession(id)) as Session;
    expect(s2.leafId).toBe(leaf);
    const ctx = await driver.getContext(id);
    expect(ctx.messages.map((m) => messageText(m))).toEqual([
      'RUN: echo hi > out.txt',
      'The following is a summary of a branch that this conversation came back from:\n\n<summary>\nRan echo.</summary>',
      'try again differently',
    ]);
    const sm = SessionManager.open(file);
    expect(sm.getLeafId()).toBe(leaf);
    expect(sm.getBranch().map((e) => e.type)).toEqual([
      'model_change',
      'thinking_level_change',
      'message',
      'branch_summary',
      'message',
    ]);
    await expectSameAsPi(file, env, id);

    await driver.appendEntries(id, [
      messageEntry('f0000001', leaf, new Date().toISOString(), {
        role: 'assistant',
        model: 'm',
        provider: 'p',
        parts: [{ type: 'text', text: 'done' }],
      }),
    ]);
    expect(SessionManager.open(file).getLeafId()).toBe('f0000001');
    // A result appended for a call made earlier gets the call's tool name, as pi records it.
    const call = s.entries.find((e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'tool_call')) as Entry;
    await driver.appendEntries(id, [
      messageEntry('f0000003', call.id, new Date().toISOString(), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_standin_0001', content: 'again' }],
      }),
    ]);
    const lastLine = JSON.parse((await fs.readFile(file, 'utf8')).trim().split('\n').pop() as string);
    expect(lastLine).toMatchObject({
      id: 'f0000003',
      parentId: call.id,
      message: { role: 'toolResult', toolName: 'bash', content: [{ type: 'text', text: 'again' }] },
    });
    await expect(
      driver.appendEntries(id, [{ id: 'f0000002', parentId: 'nope', timestamp: '', kind: 'label', targetId: 'x' }]),
    ).rejects.toThrow(/nope/);
  });

  it('labels and names sessions as pi reads them', async () => {
    const env = await home();
    const { id, file } = await install(env, 'real-tool-call.jsonl');
    const driver = new PiDriver(env);
    const s = (await driver.getSession(id)) as Session;
    const target = s.entries[3]?.id as string;
    await driver.setLabel(id, target, 'checkpoint');
    await driver.setTitle(id, 'Echo test');
    const sm = SessionManager.open(file);
    expect(sm.getLabel(target)).toBe('checkpoint');
    expect(sm.getSessionName()).toBe('Echo test');
    const back = (await driver.getSession(id)) as Session;
    expect(back.title).toBe('Echo test');
    expect(back.entries.some((e) => e.kind === 'label' && e.targetId === target && e.label === 'checkpoint')).toBe(true);
    await driver.setLabel(id, target, undefined);
    expect(SessionManager.open(file).getLabel(target)).toBeUndefined();
  });

  it('forks into a new file with parentSession, whole or at an entry with labels re-created', async () => {
    const env = await home();
    const { id, file } = await install(env, 'v3-all-types.jsonl', '/work/all');
    const driver = new PiDriver(env);
    const whole = await driver.forkSession(id);
    const header = JSON.parse((await fs.readFile(whole.path as string, 'utf8')).split('\n')[0] as string);
    expect(header).toMatchObject({ type: 'session', version: 3, cwd: '/work/all', parentSession: file });
    expect(whole.parentId).toBe(id);
    const wholeSession = (await driver.getSession(whole.id)) as Session;
    expect(wholeSession.entries.map((e) => e.id)).toEqual(((await driver.getSession(id)) as Session).entries.map((e) => e.id));
    expect(wholeSession.parentId).toBe(id);

    const at = await driver.forkSession(id, { at: 'e0000013' });
    const forked = (await driver.getSession(at.id)) as Session;
    const ids = forked.entries.map((e) => e.id);
    expect(ids.slice(0, 12)).toEqual([
      'e0000001',
      'e0000002',
      'e0000003',
      'e0000004',
      'e0000005',
      'e0000006',
      'e0000007',
      'e0000008',
      'e0000009',
      'e0000010',
      'e0000012',
      'e0000013',
    ]);
    const relabel = forked.entries[12];
    expect(relabel).toMatchObject({ kind: 'label', targetId: 'e0000004', label: 'tool-run', parentId: 'e0000013' });
    // pi sees the same context in the fork as in the original at that entry.
    expect((await driver.getContext(at.id)).messages).toEqual((await driver.getContext(id, { leafId: 'e0000013' })).messages);
    const listed = await driver.listSessions({ parentId: id });
    expect(listed.map((l) => l.id).sort()).toEqual([whole.id, at.id].sort());
  });
});

describe('locating sessions', () => {
  it('honours PI_CODING_AGENT_DIR and PI_CODING_AGENT_SESSION_DIR', async () => {
    const env = await home();
    const other = join(env.home, 'elsewhere');
    const custom: DriverEnv = { home: env.home, env: { PI_CODING_AGENT_DIR: other } };
    const { id } = await install({ home: env.home, env: {} }, 'real-tool-call.jsonl');
    expect((await new PiDriver(env).listSessions()).map((s) => s.id)).toEqual([id]);
    expect(await new PiDriver(custom).listSessions()).toEqual([]);
    const w = await new PiDriver(custom).writeSession((await new PiDriver(env).getSession(id)) as Session);
    expect(w.path?.startsWith(join(other, 'sessions'))).toBe(true);
    const flat: DriverEnv = { home: env.home, env: { PI_CODING_AGENT_SESSION_DIR: '~/flat' } };
    const f = await new PiDriver(flat).writeSession((await new PiDriver(env).getSession(id)) as Session);
    expect(f.path?.startsWith(join(env.home, 'flat', '2'))).toBe(true);
    expect((await new PiDriver(flat).listSessions()).map((s) => s.id)).toEqual([f.id]);
  });
});
