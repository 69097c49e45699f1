/**
 * pi fidelity against pi 0.73.1's own code (SessionManager, SettingsManager, pi-ai): files pi
 * resumes without damage, the sessionDir setting, OpenAI Responses tool-call ids, thinking
 * signatures by api.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { messagesToAnthropic } from '../../src/convert/anthropic.js';
import { CodexDriver, messageToItems } from '../../src/formats/codex/index.js';
import { encodeEntries, PiDriver, sessionDirName } from '../../src/formats/pi/index.js';
import type { PiRecord } from '../../src/formats/pi/records.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { contextsAtEveryEntry } from '../fixtures/pi/compare.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pi');
const isRecordLike = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

async function home(): Promise<DriverEnv> {
  return { home: await fs.mkdtemp(join(tmpdir(), 'tb-pi-fid-')), env: {} };
}

/** Writes pi records (header first) as a session file under the env's default session dir. */
async function installRecords(env: DriverEnv, records: object[], cwd = '/work/x'): Promise<{ file: string; id: string }> {
  const id = (records[0] as { id: string }).id;
  const dir = join(env.home, '.pi', 'agent', 'sessions', sessionDirName(cwd));
  await fs.mkdir(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  await fs.writeFile(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return { file, id };
}

const T = '2026-01-01T00:00:00.000Z';

/** A session 'x' of `entries`, all at T, in `project`. */
const sessionOf = (entries: Entry[], project = '/work/x'): Session => ({
  id: 'x',
  source: 'threadbase',
  project,
  createdAt: T,
  updatedAt: T,
  messageCount: entries.length,
  entries,
});
const header = (id: string) => ({ type: 'session', version: 3, id, timestamp: T, cwd: '/work/x' });
const zeroUsage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** A prompt 'hi' (a0000001, a child of `parentId`) and its answer 'yo' (a0000002) as pi records them. */
const hiAnswered = (parentId: string | null) => [
  {
    type: 'message',
    id: 'a0000001',
    parentId,
    timestamp: T,
    message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 },
  },
  {
    type: 'message',
    id: 'a0000002',
    parentId: 'a0000001',
    timestamp: T,
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'yo' }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-x',
      usage: zeroUsage,
      stopReason: 'stop',
      timestamp: 2,
    },
  },
];

/** What pi's SessionManager does on `pi --session FILE` and one answered prompt. */
function resumeWithPi(file: string): void {
  const sm = SessionManager.open(file);
  sm.appendMessage({ role: 'user', content: [{ type: 'text', text: 'next' }], timestamp: Date.now() });
  sm.appendMessage({
    role: 'assistant',
    content: [{ type: 'text', text: 'answer' }],
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-x',
    usage: zeroUsage,
    stopReason: 'stop',
    timestamp: Date.now(),
  });
}

async function linesOf(file: string): Promise<{ type: string; id: string }[]> {
  return (await fs.readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; id: string });
}

async function expectUndamaged(file: string): Promise<void> {
  const lines = await linesOf(file);
  expect(lines.filter((l) => l.type === 'session')).toHaveLength(1);
  const ids = lines.filter((l) => l.type !== 'session').map((l) => l.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('files without an answer (F1)', () => {
  const userOnly: Entry[] = [messageEntry('u1', null, T, textMessage('user', 'hello'))];

  it('writeSession of a user-only session: pi resumes it without writing it twice, and the context is unchanged', async () => {
    const env = await home();
    const d = new PiDriver(env);
    const info = await d.writeSession(sessionOf(userOnly));
    expect(JSON.stringify(info.meta?.warnings)).toContain('no assistant message');
    const ctx = await d.getContext(info.id);
    expect(ctx.messages.map((m) => m.role)).toEqual(['user']);
    resumeWithPi(info.path as string);
    await expectUndamaged(info.path as string);
    const after = (await d.getSession(info.id)) as Session;
    expect(after.warnings).toEqual([]);
  });

  it('fork --at the first user entry: pi resumes the fork without writing it twice', async () => {
    const env = await home();
    const { id } = await installRecords(env, [
      header('019a0000-0000-7000-8000-0000000000f1'),
      { type: 'model_change', id: 'm0000001', parentId: null, timestamp: T, provider: 'anthropic', modelId: 'claude-x' },
      ...hiAnswered('m0000001'),
    ]);
    const d = new PiDriver(env);
    const fork = await d.forkSession(id, { at: 'a0000001' });
    const recs = await linesOf(fork.path as string);
    // the added answer keeps the session's model, so pi restores it
    expect(recs.at(-1)).toMatchObject({
      type: 'message',
      parentId: 'a0000001',
      message: { role: 'assistant', stopReason: 'aborted', provider: 'anthropic', model: 'claude-x', content: [] },
    });
    const sm = SessionManager.open(fork.path as string);
    expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await d.getContext(fork.id)).messages.map((m) => m.role)).toEqual(['user']);
    resumeWithPi(fork.path as string);
    await expectUndamaged(fork.path as string);
  });

  it('a fork with an answer is written as it was', async () => {
    const env = await home();
    const d = new PiDriver(env);
    const info = await d.writeSession(sessionOf([...userOnly, messageEntry('a1', 'u1', T, textMessage('assistant', 'hi'))]));
    expect((await linesOf(info.path as string)).map((l) => l.id)).toEqual([info.id, 'u1', 'a1']);
  });
});

describe('the sessionDir setting (F4)', () => {
  const answered = (id: string) => [header(id), ...hiAnswered(null)];

  it('reads and writes where the global settings.json puts sessions (~ expanded), as pi lists them', async () => {
    const env = await home();
    const agent = join(env.home, '.pi', 'agent');
    await fs.mkdir(join(env.home, 'custom'), { recursive: true });
    await fs.mkdir(agent, { recursive: true });
    await fs.writeFile(join(agent, 'settings.json'), JSON.stringify({ sessionDir: '~/custom' }));
    const id = '019a0000-0000-7000-8000-0000000000f4';
    await fs.writeFile(
      join(env.home, 'custom', `2026-01-01T00-00-00-000Z_${id}.jsonl`),
      `${answered(id)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    const d = new PiDriver(env, { cwd: join(env.home, 'somewhere') });
    expect((await d.listSessions()).map((s) => s.id)).toEqual([id]);
    const copy = await d.writeSession((await d.getSession(id)) as Session);
    expect(copy.path?.startsWith(join(env.home, 'custom', '2'))).toBe(true);
    // pi itself, given that dir (main.js: settingsManager.getSessionDir()), lists both
    const listed = await SessionManager.list('/work/x', join(env.home, 'custom'));
    expect(listed.map((s) => s.id).sort()).toEqual([id, copy.id].sort());
  });

  it("a project's .pi/settings.json wins over the global one; a relative dir is the project's", async () => {
    const env = await home();
    const agent = join(env.home, '.pi', 'agent');
    const project = join(env.home, 'proj');
    await fs.mkdir(agent, { recursive: true });
    await fs.mkdir(join(project, '.pi'), { recursive: true });
    await fs.writeFile(join(agent, 'settings.json'), JSON.stringify({ sessionDir: '/nonexistent/global' }));
    await fs.writeFile(join(project, '.pi', 'settings.json'), JSON.stringify({ sessionDir: '.pi/sessions' }));
    const d = new PiDriver(env, { cwd: project });
    const w = await d.writeSession(
      sessionOf(
        [messageEntry('u1', null, T, textMessage('user', 'q')), messageEntry('a1', 'u1', T, textMessage('assistant', 'a'))],
        project,
      ),
    );
    expect(w.path?.startsWith(join(project, '.pi', 'sessions', '2'))).toBe(true);
    expect((await d.listSessions()).map((l) => l.id)).toEqual([w.id]);
    // the environment's flat dir still comes first, as in pi
    const flat = new PiDriver({ home: env.home, env: { PI_CODING_AGENT_SESSION_DIR: '~/flat' } }, { cwd: project });
    expect(flat.sessionDirFor(project)).toBe(join(env.home, 'flat'));
    expect(await flat.listSessions()).toEqual([]);
  });

  it("the index's listing keeps a project's own session dir when it syncs elsewhere, and sees what pi adds there", async () => {
    const env = await home();
    const project = join(env.home, 'proj');
    const dir = join(project, '.pi', 'sessions');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(project, '.pi', 'settings.json'), JSON.stringify({ sessionDir: '.pi/sessions' }));
    const file = (id: string) => join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
    const write = (id: string) =>
      fs.writeFile(
        file(id),
        `${answered(id)
          .map((r) => JSON.stringify(r))
          .join('\n')}\n`,
      );
    const first = '019a0000-0000-7000-8000-0000000000a1';
    const second = '019a0000-0000-7000-8000-0000000000a2';
    await write(first);
    const there = await new PiDriver(env, { cwd: project }).listUnits();
    expect(there.map((u) => u.sessionId)).toEqual([first]);
    const elsewhere = new PiDriver(env, { cwd: join(env.home, 'other') });
    // pi run elsewhere does not see the project's dir, and a listing without the index's units does not either
    expect(await elsewhere.listUnits()).toEqual([]);
    const known = new Map(there.map((u) => [u.key, u]));
    expect((await elsewhere.listUnits(known)).map((u) => u.sessionId)).toEqual([first]);
    await write(second);
    expect((await elsewhere.listUnits(known)).map((u) => u.sessionId).sort()).toEqual([first, second]);
    // a session deleted there leaves
    await fs.rm(file(first));
    expect((await elsewhere.listUnits(known)).map((u) => u.sessionId)).toEqual([second]);
  });
});

/** The api-signatures fixture installed in a temp home; the session as read, and its file. */
async function apiFixture(): Promise<{ env: DriverEnv; d: PiDriver; s: Session; file: string; text: string }> {
  const env = await home();
  const text = await fs.readFile(join(fixtures, 'api-signatures.jsonl'), 'utf8');
  const { file, id } = await installRecords(
    env,
    text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as object),
    '/work/apis',
  );
  const d = new PiDriver(env);
  return { env, d, s: (await d.getSession(id)) as Session, file, text };
}

const messageOf = (s: Session, id: string): Message => {
  const e = s.entries.find((x) => x.id === id);
  if (e?.kind !== 'message') throw new Error(`no message ${id}`);
  return e.message;
};

/** The session's entries as another store hands them back: model fields only, no pi records. */
const withoutRaw = (s: Session): Entry[] => s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e as Entry);

describe('OpenAI Responses tool-call ids (F3)', () => {
  it('the model has the call_id, which Anthropic and Codex get as it is', async () => {
    const { s } = await apiFixture();
    const call = messageOf(s, 'a0000001').parts.find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ id: 'call_Xy12', meta: { piItemId: 'fc_68a1b2c3d4e5f60718293a4b5c6d7e8f0a1b2c3d4e5f6' } });
    expect(messageOf(s, 'a0000002').parts[0]).toMatchObject({ type: 'tool_result', callId: 'call_Xy12' });
    const anthropic = JSON.stringify(messagesToAnthropic([messageOf(s, 'a0000001'), messageOf(s, 'a0000002')]));
    expect(anthropic).toContain('"id":"call_Xy12"');
    expect(anthropic).toContain('"tool_use_id":"call_Xy12"');
    const items = messageToItems(messageOf(s, 'a0000001')).map((i) => i.item);
    expect(items).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: 'call_Xy12' }));
    expect(messageToItems(messageOf(s, 'a0000002'))[0]?.item).toMatchObject({ call_id: 'call_Xy12' });
  });

  it("writes pi's id back: record for record from pi's records, and from the model fields alone", async () => {
    const { d, s, text } = await apiFixture();
    const copy = await d.writeSession(s);
    const body = (t: string) => t.trim().split('\n').slice(1);
    expect(body(await fs.readFile(copy.path as string, 'utf8'))).toEqual(body(text));
    const { records } = encodeEntries(withoutRaw(s));
    const original = body(text).map((l) => JSON.parse(l) as PiRecord);
    const field = (rs: PiRecord[], id: string, f: (m: Record<string, unknown>) => unknown) =>
      f(rs.find((r) => r.id === id)?.message as Record<string, unknown>);
    const toolCall = (m: Record<string, unknown>) => (m.content as { type: string }[]).find((b) => b.type === 'toolCall');
    expect(field(records, 'a0000001', toolCall)).toEqual(field(original, 'a0000001', toolCall));
    expect(field(records, 'a0000002', (m) => m.toolCallId)).toEqual(field(original, 'a0000002', (m) => m.toolCallId));
  });
});

describe('thinkingSignature by api (F2)', () => {
  it('only an Anthropic signature is the signature; OpenAI reasoning is encrypted content, the rest kept for pi', async () => {
    const { s } = await apiFixture();
    const thinking = (id: string) => messageOf(s, id).parts.filter((p) => p.type === 'thinking');
    expect(thinking('c0000001')[0]).toEqual({
      type: 'thinking',
      thinking: 'Listing needs a tool.',
      signature: 'EqQBCkYIBxgCKkA=',
    });
    const [r1, r2] = thinking('a0000001');
    expect(r1?.signature).toBeUndefined();
    expect(r1?.meta).toMatchObject({ encryptedContent: 'gAAAAENC1', codexItemId: 'rs_1', summaryParts: ['Plan', 'then list'] });
    expect(r2?.meta).toMatchObject({ encryptedContent: 'gAAAAENC2', codexItemId: 'rs_2' });
    expect(thinking('b0000001')[0]).toEqual({
      type: 'thinking',
      thinking: 'hmm',
      meta: { thinkingSignature: 'reasoning_content' },
    });
    expect(thinking('d0000001')[0]).toEqual({
      type: 'thinking',
      thinking: 'Thinking about files',
      meta: { thoughtSignature: 'CiQBVKhc7g==' },
    });
    // Anthropic blocks carry a signature only where Anthropic made one
    const signed = messagesToAnthropic(['a0000001', 'b0000001', 'c0000001', 'd0000001'].map((id) => messageOf(s, id)))
      .messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => 'signature' in b);
    expect(signed).toEqual([expect.objectContaining({ signature: 'EqQBCkYIBxgCKkA=' })]);
    // Codex gets the encrypted reasoning pi recorded
    const reasoning = messageToItems(messageOf(s, 'a0000001'))
      .map((i) => i.item)
      .filter((i) => i?.type === 'reasoning');
    expect(reasoning.map((i) => i?.encrypted_content)).toEqual(['gAAAAENC1', 'gAAAAENC2']);
  });

  it('writes every thinkingSignature back as it was from the model fields alone', async () => {
    const { s, text } = await apiFixture();
    const { records } = encodeEntries(withoutRaw(s));
    const blocks = (rs: readonly PiRecord[]) =>
      rs.flatMap((r) =>
        isRecordLike(r.message) && Array.isArray(r.message.content)
          ? (r.message.content as Record<string, unknown>[]).filter((b) => b.type === 'thinking')
          : [],
      );
    const original = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as PiRecord);
    expect(blocks(records)).toEqual(blocks(original));
  });

  it('Codex → pi keeps the encrypted reasoning in the form pi records it, and pi → Codex gives it back', async () => {
    const codexHome = join(import.meta.dirname, '..', 'fixtures', 'codex', 'home');
    const env = await home();
    const codex = new CodexDriver({ home: env.home, env: { CODEX_HOME: codexHome } });
    const rollout = (await codex.getSession('5973b6c0-94b8-487b-a530-2aeb6098ae0e')) as Session;
    const written = await new PiDriver(env).writeSession(rollout);
    const sigs = (await fs.readFile(written.path as string, 'utf8'))
      .trim()
      .split('\n')
      .flatMap((l) => {
        const r = JSON.parse(l) as { message?: { content?: { type: string; thinkingSignature?: string }[] } };
        return (r.message?.content ?? []).filter((b) => b.type === 'thinking').map((b) => b.thinkingSignature);
      });
    expect(sigs.length).toBeGreaterThan(0);
    const item = JSON.parse(sigs[0] as string) as Record<string, unknown>;
    expect(item).toMatchObject({
      type: 'reasoning',
      id: 'rs_1',
      summary: [
        { type: 'summary_text', text: '**Looking at tests**' },
        { type: 'summary_text', text: 'Then the fix.' },
      ],
      encrypted_content: 'gAAAAenc',
    });
    const back = (await new PiDriver(env).getSession(written.id)) as Session;
    const items = back.entries.flatMap((e) => (e.kind === 'message' ? messageToItems(e.message).map((i) => i.item) : []));
    expect(items.find((i) => i?.type === 'reasoning')).toMatchObject({ encrypted_content: 'gAAAAenc' });
  });
});

describe('the context pi sends (F5)', () => {
  it('leaves out blank thinking without a signature, and agrees with pi at every entry', async () => {
    const { env, d, s, file } = await apiFixture();
    const ctx = await d.getContext(s.id, { leafId: 'c0000001' });
    const last = ctx.messages.at(-1) as Message;
    expect(last.parts.map((p) => p.type)).toEqual(['thinking', 'text']);
    const deepseek = (await d.getContext(s.id, { leafId: 'b0000001' })).messages.at(-1) as Message;
    expect(deepseek.parts.map((p) => (p.type === 'thinking' ? p.thinking : p.type))).toEqual(['hmm', 'text']);
    // encrypted reasoning with no summary text is kept, as pi keeps it for the same model
    const codex = (await d.getContext(s.id, { leafId: 'a0000001' })).messages.at(-2) as Message;
    expect(codex.parts.filter((p) => p.type === 'thinking')).toHaveLength(2);
    for (const side of await contextsAtEveryEntry(file, env, s.id)) expect(side.ours, side.leafId).toEqual(side.pi);
  });
});

describe('branch summaries (F6)', () => {
  it("writes fromId as pi's branchWithSummary does: the entry branched from", async () => {
    const { d, s, file } = await apiFixture();
    const copy = `${file}.pi-copy`;
    await fs.copyFile(file, copy);
    await d.branchAt(s.id, 'u0000001', { summary: 'tried three models' });
    const ours = (await linesOf(file)).at(-1) as unknown as Record<string, unknown>;
    const sm = SessionManager.open(copy, join(file, '..', 'unused'));
    const theirs = sm.getEntry(sm.branchWithSummary('u0000001', 'tried three models')) as unknown as Record<string, unknown>;
    const shape = (r: Record<string, unknown>) => ({ type: r.type, parentId: r.parentId, fromId: r.fromId, summary: r.summary });
    expect(shape(ours)).toEqual(shape(theirs));
    // read back, pi's fromId (the parent) is not taken for the abandoned leaf the model's fromId names:
    // that is the leaf the branch left, kept beside pi's field
    const back = (await d.getSession(s.id)) as Session;
    const left = s.leafId ?? s.entries.at(-1)?.id;
    expect(left).not.toBe('u0000001');
    expect(back.entries.at(-1)).toMatchObject({ kind: 'branch_summary', parentId: 'u0000001', fromId: left });
  });
});

describe('a damaged header', () => {
  it('a cwd or parentSession that is not a string is no project or parent', async () => {
    const env = await home();
    const id = '019a0000-0000-7000-8000-0000000000d1';
    await installRecords(env, [{ ...header(id), cwd: 42, parentSession: { x: 1 } }]);
    const s = (await new PiDriver(env).getSession(id)) as Session;
    expect(s.project).toBeUndefined();
    expect(s.meta).toEqual({ version: 3 });
  });
});
