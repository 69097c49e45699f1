/**
 * The one driver conformance suite. Any SessionDriver runs it with a few lines:
 *
 *   describeDriverConformance('sqlite', async () => {
 *     const driver = openSqliteStore(join(dir, 'db'));
 *     return { driver, cleanup: () => driver.close() };
 *   });
 *
 * Tests are guarded by the driver's capability flags: a read-only format passes `seed` (which puts
 * a session where the driver reads, e.g. by writing the agent's own file) and skips write tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchOptions, SessionDriver } from '../../src/model/driver.js';
import { ThreadbaseError } from '../../src/model/errors.js';
import { EMPTY_LEAF } from '../../src/model/tree.js';
import type { Entry, Message, MessageEntry, Part, Session } from '../../src/model/types.js';
import { ONE_PIXEL_PNG } from '../helpers/sessions.js';

export interface ConformanceSetup {
  driver: SessionDriver;
  /** Puts a session where a driver that cannot write reads it; returns the id it is listed under. */
  seed?(session: Session): Promise<string>;
  cleanup(): Promise<void> | void;
}

export interface ConformanceOptions {
  /** Contract points a driver knowingly departs from: test name → why (the test is skipped, the reason shown). */
  deviations?: Record<string, string>;
  /** Part types the format cannot hold (left out of the round-trip sample). */
  skipPartTypes?: Part['type'][];
  /** The format does not record cost; the round trip does not compare it. */
  noCost?: boolean;
  /** The format does not record cache writes (Gemini); the usage totals do not compare them. */
  noCacheWrite?: boolean;
  /** The format has no place for a response's advisor requests (Usage.advisors); the sample has none. */
  noAdvisors?: boolean;
}

/** The sample's request to an advisor model, inside its second response. */
const SAMPLE_ADVISOR = { model: 'claude-opus-5', input: 300, output: 40, cacheRead: 0, cacheWrite: 0 };

let counter = 0;
/** A session with every part type, usage, cost, a model and distinct timestamps, and a branch. */
export function sampleSession(opts: ConformanceOptions = {}): Session {
  const n = ++counter;
  const skip = new Set(opts.skipPartTypes ?? []);
  const base = Date.parse('2025-03-01T10:00:00.000Z') + n * 3_600_000;
  const t = (i: number) => new Date(base + i * 1000).toISOString();
  const id = (i: number) => `0000000${n}-aaaa-4bbb-8ccc-00000000000${i}`;
  const userParts: Part[] = [{ type: 'text', text: `Please inspect the zanzibarquokka file number ${n}` }];
  if (!skip.has('image')) userParts.push({ type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG });
  const asstParts: Part[] = [];
  if (!skip.has('thinking'))
    asstParts.push({ type: 'thinking', thinking: 'I should list the directory first.', signature: 'c2lnbmF0dXJl' });
  asstParts.push({ type: 'text', text: 'Let me look.' });
  asstParts.push({ type: 'tool_call', id: `toolu_0${n}abc`, name: 'Bash', input: { command: 'ls -la', description: 'list' } });
  const entries: Entry[] = [
    { kind: 'message', id: id(1), parentId: null, timestamp: t(1), message: { role: 'user', parts: userParts } },
    {
      kind: 'message',
      id: id(2),
      parentId: id(1),
      timestamp: t(2),
      message: {
        role: 'assistant',
        parts: asstParts,
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        responseId: `msg_0${n}first`,
        stopReason: 'tool_use',
        usage: { input: 120, output: 45, cacheRead: 1000, cacheWrite: 200, reasoning: 0 },
        ...(opts.noCost ? {} : { cost: 0.0125 }),
      },
    },
    {
      kind: 'message',
      id: id(3),
      parentId: id(2),
      timestamp: t(3),
      message: {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: `toolu_0${n}abc`, name: 'Bash', content: 'total 0\nquokka.txt', isError: false }],
      },
    },
    {
      kind: 'message',
      id: id(4),
      parentId: id(3),
      timestamp: t(4),
      message: {
        role: 'assistant',
        parts: [{ type: 'text', text: 'There is one file, quokka.txt.' }],
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        responseId: `msg_0${n}second`,
        stopReason: 'end_turn',
        usage: {
          input: 10,
          output: 20,
          cacheRead: 1200,
          cacheWrite: 0,
          reasoning: 0,
          ...(opts.noAdvisors ? {} : { advisors: [SAMPLE_ADVISOR] }),
        },
        ...(opts.noCost ? {} : { cost: 0.0025 }),
      },
    },
  ];
  return {
    id: `0000000${n}-1111-4222-8333-444444444444`,
    source: 'threadbase',
    project: `/tmp/conformance-project-${n}`,
    title: `Conformance ${n}`,
    createdAt: t(1),
    updatedAt: t(4),
    messageCount: entries.length,
    entries,
    leafId: id(4),
  };
}

function messagesOf(s: Session): MessageEntry[] {
  return s.entries.filter((e): e is MessageEntry => e.kind === 'message' && !e.sidechain);
}

/** What must survive any store or format: roles, part content, tools, usage, cost, model, times. */
function essence(m: Message, noCost: boolean) {
  return {
    role: m.role,
    parts: m.parts.map((p) => {
      switch (p.type) {
        case 'text':
          return { type: p.type, text: p.text };
        case 'thinking':
          return { type: p.type, thinking: p.thinking };
        case 'image':
          return { type: p.type, mediaType: p.mediaType, data: p.data };
        case 'tool_call':
          return { type: p.type, id: p.id, name: p.name, input: p.input };
        case 'tool_result': {
          const content =
            typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : c.type)).join('');
          return { type: p.type, callId: p.callId, content, isError: Boolean(p.isError) };
        }
        default:
          return { type: p.type };
      }
    }),
    model: m.role === 'assistant' ? m.model : undefined,
    usage: m.role === 'assistant' ? m.usage : undefined,
    cost: m.role === 'assistant' && !noCost ? m.cost : undefined,
  };
}

export function describeDriverConformance(
  name: string,
  setup: () => Promise<ConformanceSetup>,
  opts: ConformanceOptions = {},
): void {
  describe(`driver conformance: ${name}`, () => {
    let ctx: ConformanceSetup;
    let driver: SessionDriver;
    let sample: Session;
    let sampleId: string;

    /** Puts a session in the driver: writeSession when it can write, else the setup's seed. */
    async function put(s: Session): Promise<string> {
      if (driver.capabilities.write && driver.writeSession) return (await driver.writeSession(s)).id;
      if (ctx.seed) return ctx.seed(s);
      throw new Error(`${name}: a driver that cannot write needs seed() in its setup`);
    }

    beforeAll(async () => {
      ctx = await setup();
      driver = ctx.driver;
      sample = sampleSession(opts);
      sampleId = await put(sample);
    });
    afterAll(async () => {
      await ctx?.cleanup();
    });

    it('has a name and read capability', () => {
      expect(driver.name).toBeTruthy();
      expect(driver.capabilities.read).toBe(true);
    });

    it('lists the session with its project, and filters by project, time and text', async () => {
      const all = await driver.listSessions();
      const info = all.find((s) => s.id === sampleId);
      expect(info).toBeDefined();
      expect(info?.project).toBe(sample.project);
      expect(info?.messageCount).toBeGreaterThan(0);
      expect((await driver.listSessions({ project: sample.project })).map((s) => s.id)).toContain(sampleId);
      expect((await driver.listSessions({ project: '/nowhere/at/all' })).map((s) => s.id)).not.toContain(sampleId);
      const updated = info?.updatedAt as string;
      expect((await driver.listSessions({ since: updated })).map((s) => s.id)).toContain(sampleId);
      const later = new Date(Date.parse(updated) + 1000).toISOString();
      expect((await driver.listSessions({ since: later })).map((s) => s.id)).not.toContain(sampleId);
      const earlier = new Date(Date.parse(info?.createdAt as string) - 86_400_000).toISOString();
      expect((await driver.listSessions({ until: earlier })).map((s) => s.id)).not.toContain(sampleId);
      // a window that ends before it starts holds nothing: an empty answer, not an error
      expect(await driver.listSessions({ since: later, until: earlier })).toEqual([]);
      if (!opts.deviations?.['list text'])
        expect((await driver.listSessions({ text: 'zanzibarquokka' })).map((s) => s.id)).toContain(sampleId);
      expect((await driver.listSessions({ text: 'no-such-words-anywhere-xyz' })).map((s) => s.id)).not.toContain(sampleId);
    });

    it('getSession returns every message; an unknown id is undefined', async () => {
      const s = await driver.getSession(sampleId);
      expect(s).toBeDefined();
      expect(messagesOf(s as Session).map((e) => e.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(await driver.getSession('00000000-dead-4bee-8fff-000000000000')).toBeUndefined();
    });

    it('getEntry finds an entry by id; an unknown entry is undefined', async () => {
      const s = (await driver.getSession(sampleId)) as Session;
      const second = messagesOf(s)[1] as MessageEntry;
      const got = await driver.getEntry(sampleId, second.id);
      expect(got?.id).toBe(second.id);
      expect(got?.kind === 'message' && got.message.role).toBe('assistant');
      expect(await driver.getEntry(sampleId, 'no-such-entry')).toBeUndefined();
    });

    it('getAncestry runs from the root to the entry', async () => {
      const s = (await driver.getSession(sampleId)) as Session;
      const msgs = messagesOf(s);
      const third = msgs[2] as MessageEntry;
      const path = await driver.getAncestry(sampleId, third.id);
      expect(path[path.length - 1]?.id).toBe(third.id);
      const pathMsgs = path.filter((e): e is MessageEntry => e.kind === 'message');
      expect(pathMsgs.map((e) => e.message.role)).toEqual(['user', 'assistant', 'tool']);
      expect(path[0]?.parentId ?? null).toBeNull();
    });

    it('getContext gives the messages to the leaf, tool result after its call', async () => {
      const ctxt = await driver.getContext(sampleId);
      const roles = ctxt.messages.map((m) => m.role);
      expect(roles[0]).toBe('user');
      expect(roles[roles.length - 1]).toBe('assistant');
      const callAt = ctxt.messages.findIndex((m) => m.parts.some((p) => p.type === 'tool_call'));
      const resultAt = ctxt.messages.findIndex((m) => m.parts.some((p) => p.type === 'tool_result'));
      expect(callAt).toBeGreaterThanOrEqual(0);
      expect(resultAt).toBeGreaterThan(callAt);
      const last = ctxt.messages[ctxt.messages.length - 1] as Message;
      expect(last.parts.some((p) => p.type === 'text' && p.text.includes('quokka.txt'))).toBe(true);
    });

    it('usage totals count each response once', async () => {
      const u = await driver.usage({ project: sample.project });
      // an advisor request's tokens count too, with its response (which still counts once)
      const advisor = opts.noAdvisors ? { input: 0, output: 0 } : SAMPLE_ADVISOR;
      expect(u.input).toBe(130 + advisor.input);
      expect(u.output).toBe(65 + advisor.output);
      expect(u.cacheRead).toBe(2200);
      if (!opts.noCacheWrite) expect(u.cacheWrite).toBe(200);
      expect(u.messages).toBe(2);
      if (!opts.noCost) expect(u.cost).toBeCloseTo(0.015, 6);
      const none = await driver.usage({
        project: sample.project,
        since: '2030-01-02T00:00:00.000Z',
        until: '2030-01-01T00:00:00.000Z',
      });
      expect([none.input, none.output, none.messages]).toEqual([0, 0, 0]);
    });

    it('search finds text, tool input and tool output (when it can search)', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      const hits = await driver.search('zanzibarquokka');
      expect(hits.some((h) => h.sessionId === sampleId)).toBe(true);
      const hit = hits.find((h) => h.sessionId === sampleId);
      expect(hit?.role).toBe('user');
      expect(hit?.snippet.toLowerCase()).toContain('zanzibarquokka');
      expect((await driver.search('zanzibarquokka', { project: '/nowhere/else' })).length).toBe(0);
      expect((await driver.search('qwxzvbnonexistentterm')).length).toBe(0);
    });

    it('search finds a Chinese, Japanese or Korean word inside a run written without spaces', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      const cjk = sampleSession(opts);
      const user = cjk.entries[0] as MessageEntry;
      user.message.parts = [{ type: 'text', text: '日本語のテストをお願いします。中文测试内容。한국어를 배우고 있어요' }];
      const id = await put(cjk);
      const found = async (q: string) => (await driver.search?.(q))?.filter((h) => h.sessionId === id) ?? [];
      for (const q of ['日本語', 'テスト', '本語の', '测试', '한국어'])
        expect(
          (await found(q)).map((h) => h.entryId),
          q,
        ).toEqual([user.id]);
      expect((await found('日本語'))[0]?.snippet).toContain('日本語');
      // the characters in another order, or apart, are not the word
      for (const q of ['語日本', '日本人']) expect(await found(q), q).toEqual([]);
    });

    it('search --tool finds a tool by its name in any case', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      // Claude Code calls its tool Bash; `--tool bash` is what a user types
      const look = async (tool: string) =>
        (await driver.search?.('look', { tool }))?.filter((h) => h.sessionId === sampleId).map((h) => h.role) ?? [];
      expect(await look('Bash')).toEqual(['assistant']);
      expect(await look('bash')).toEqual(['assistant']);
      expect(await look('BASH')).toEqual(['assistant']);
      expect(await look('Read')).toEqual([]);
    });

    /** The entries of a session (the sample's by default) a search finds, in entry order. */
    const foundIn = async (query: string, options: SearchOptions = {}, id = sampleId): Promise<string[]> => {
      const order = new Map(sample.entries.map((e, i) => [e.id, i]));
      return ((await driver.search?.(query, options)) ?? [])
        .filter((h) => h.sessionId === id)
        .map((h) => h.entryId)
        .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0) || a.localeCompare(b));
    };
    /** The sample's entry ids by position (1: the user's question, 2: the call, 3: its result, 4: the answer). */
    const sampleEntry = (i: number) => sample.entries[i - 1]?.id as string;

    it('search takes every word in any order and any case, a quoted phrase as its words in a row', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      for (const q of [
        'zanzibarquokka inspect',
        'inspect zanzibarquokka',
        'INSPECT ZanzibarQuokka',
        '"inspect the zanzibarquokka"',
      ])
        expect(await foundIn(q), q).toEqual([sampleEntry(1)]);
      for (const q of ['zanzibarquokka qwxzvbnonexistentterm', '"zanzibarquokka inspect"'])
        expect(await foundIn(q), q).toEqual([]);
    });

    it('search reads no operator in a query: -word, OR, brackets and stars are words or punctuation', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      if (opts.deviations?.['search operators']) return t.skip(opts.deviations['search operators']);
      for (const q of [
        '-inspect zanzibarquokka',
        'zanzibarquokka -inspect',
        '(zanzibarquokka)',
        'zanzibarquokka*',
        '"zanzibarquokka',
        'zanzibarquokka && !!',
      ])
        expect(await foundIn(q), q).toEqual([sampleEntry(1)]);
      for (const q of ['zanzibarquokka OR qwxzvbnonexistentterm', 'zanzibarquokka -qwxzvbnonexistentterm', '-', '!! &&'])
        expect(await foundIn(q), q).toEqual([]);
    });

    it('search neither stems words nor drops common ones: a word is found as written, `the` too', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      // the question says "Please inspect the zanzibarquokka file number N"
      for (const q of ['the zanzibarquokka', 'please zanzibarquokka', 'number zanzibarquokka'])
        expect(await foundIn(q), q).toEqual([sampleEntry(1)]);
      for (const q of ['inspected zanzibarquokka', 'inspecting zanzibarquokka', 'files zanzibarquokka', 'an zanzibarquokka'])
        expect(await foundIn(q), q).toEqual([]);
      // a file's name is its words: the answer says "quokka.txt"
      expect(await foundIn('quokka', { role: 'assistant' })).toEqual([sampleEntry(4)]);
    });

    it('search gives at most 50 hits when no limit is asked for', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      const many = sampleSession(opts);
      const first = many.entries[0] as MessageEntry;
      many.entries = Array.from({ length: 60 }, (_, i) => ({
        ...first,
        id: `${first.id}-${i}`,
        parentId: i ? `${first.id}-${i - 1}` : null,
        timestamp: new Date(Date.parse(first.timestamp) + i).toISOString(),
        message: { role: 'user', parts: [{ type: 'text', text: `the bandicootlimit question ${i}` }] },
      }));
      many.leafId = `${first.id}-59`;
      await put(many);
      expect(await driver.search('bandicootlimit')).toHaveLength(50);
      expect(await driver.search('bandicootlimit', { limit: 55 })).toHaveLength(55);
    });

    it('search finds thinking, tool input (with the tool name) and tool output', async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      if (opts.deviations?.['search columns']) return t.skip(opts.deviations['search columns']);
      if (!opts.skipPartTypes?.includes('thinking')) expect(await foundIn('directory first')).toEqual([sampleEntry(2)]);
      expect(await foundIn('ls -la')).toEqual([sampleEntry(2)]);
      expect(await foundIn('bash description')).toEqual([sampleEntry(2)]);
      expect(await foundIn('total quokka')).toEqual([sampleEntry(3)]);
    });

    it("search --tool keeps the tool's calls and their results, a result named by its call", async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      if (opts.deviations?.['search columns']) return t.skip(opts.deviations['search columns']);
      expect(await foundIn('quokka', { tool: 'bash' })).toEqual([sampleEntry(3)]);
      expect(await foundIn('quokka')).toEqual([sampleEntry(3), sampleEntry(4)]);
      // a result that does not name its tool (Claude Code's) is the tool's by its call
      const unnamed = sampleSession(opts);
      const result = unnamed.entries[2] as MessageEntry;
      result.message.parts = result.message.parts.map((p) => (p.type === 'tool_result' ? { ...p, name: undefined } : p));
      const id = await put(unnamed);
      expect(await foundIn('quokka', { tool: 'BASH' }, id)).toEqual([result.id]);
      expect(await foundIn('quokka', { tool: 'read' }, id)).toEqual([]);
    });

    it("search --tool finds a result appended after its call (the result not naming its tool) as the tool's", async (t) => {
      if (!driver.capabilities.search || !driver.search || !driver.capabilities.append || !driver.appendEntries) return t.skip();
      if (opts.deviations?.['search columns']) return t.skip(opts.deviations['search columns']);
      // a sync of a session at work: the call stored, its result appended later
      const running = sampleSession(opts);
      const [question, call, result] = running.entries as [Entry, Entry, MessageEntry];
      running.entries = [question, call];
      running.leafId = call.id;
      const id = await put(running);
      const parts = result.message.parts.map((p) => (p.type === 'tool_result' ? { ...p, name: undefined } : p));
      await driver.appendEntries(id, [{ ...result, message: { ...result.message, parts } }]);
      expect(await foundIn('quokka', { tool: 'bash' }, id)).toEqual([result.id]);
    });

    it("search's since and until are the entries' times", async (t) => {
      if (!driver.capabilities.search || !driver.search) return t.skip();
      const at = (i: number) => sample.entries[i - 1]?.timestamp as string;
      // the question and the answer say "file"; the session runs past `until`, its question does not
      expect(await foundIn('file')).toEqual([sampleEntry(1), sampleEntry(4)]);
      expect(await foundIn('file', { until: at(2) })).toEqual([sampleEntry(1)]);
      expect(await foundIn('file', { since: at(2) })).toEqual([sampleEntry(4)]);
      expect(await foundIn('file', { since: at(4), until: at(1) })).toEqual([]);
    });

    it("search finds a compaction's summary", async (t) => {
      if (!driver.capabilities.search || !driver.search || !driver.capabilities.write) return t.skip();
      const compacted = sampleSession(opts);
      const last = compacted.entries.at(-1) as Entry;
      const summary: Entry = {
        kind: 'compaction',
        id: `${last.id}-compaction`,
        parentId: last.id,
        timestamp: new Date(Date.parse(last.timestamp) + 1000).toISOString(),
        summary: 'The user asked about the persimmonquay file.',
        firstKeptEntryId: last.id,
      };
      compacted.entries.push(summary);
      compacted.leafId = summary.id;
      const id = await put(compacted);
      const hits = ((await driver.search?.('persimmonquay')) ?? []).filter((h) => h.sessionId === id);
      expect(hits.map((h) => [h.entryId, h.role])).toEqual([[summary.id, undefined]]);
    });

    describe('writing', () => {
      it('writeSession round trip keeps every part, usage, cost, model and timestamps', async (t) => {
        if (!driver.capabilities.write || !driver.writeSession) return t.skip();
        const src = sampleSession(opts);
        const info = await driver.writeSession(src);
        const back = (await driver.getSession(info.id)) as Session;
        expect(back).toBeDefined();
        const want = messagesOf(src);
        const got = messagesOf(back);
        expect(got.map((e) => essence(e.message, Boolean(opts.noCost)))).toEqual(
          want.map((e) => essence(e.message, Boolean(opts.noCost))),
        );
        if (!opts.deviations?.['entry times'])
          expect(got.map((e) => Date.parse(e.timestamp))).toEqual(want.map((e) => Date.parse(e.timestamp)));
        expect(back.project).toBe(src.project);
      });

      it('appendEntries adds to the end and moves the leaf; a branch in place hangs from an earlier entry', async (t) => {
        if (!driver.capabilities.append || !driver.appendEntries) return t.skip();
        const id = await put(sampleSession(opts));
        const before = (await driver.getSession(id)) as Session;
        const msgs = messagesOf(before);
        const last = msgs[msgs.length - 1] as MessageEntry;
        const ts = new Date(Date.parse(last.timestamp) + 60_000).toISOString();
        const appended: Entry = {
          kind: 'message',
          id: 'a1a1a1a1-0000-4000-8000-000000000001',
          parentId: last.id,
          timestamp: ts,
          message: { role: 'user', parts: [{ type: 'text', text: 'and now the appendix' }] },
        };
        await driver.appendEntries(id, [appended]);
        const after = (await driver.getSession(id)) as Session;
        const afterMsgs = messagesOf(after);
        expect(afterMsgs.length).toBe(msgs.length + 1);
        const ctxt = await driver.getContext(id);
        // the last user turn: an agent may answer a trailing prompt for the model (Claude Code's "No response requested.")
        const lastMsg = ctxt.messages.findLast((m) => m.role === 'user') as Message;
        expect(lastMsg.parts.some((p) => p.type === 'text' && p.text === 'and now the appendix')).toBe(true);

        if (!driver.capabilities.branch) return;
        // Branch under the tool result (not under the call, where agents may add a synthetic result).
        const first = afterMsgs[0] as MessageEntry;
        const firstAsst = afterMsgs[1] as MessageEntry;
        const toolMsg = afterMsgs[2] as MessageEntry;
        const branch: Entry = {
          kind: 'message',
          id: 'b2b2b2b2-0000-4000-8000-000000000002',
          parentId: toolMsg.id,
          timestamp: new Date(Date.parse(ts) + 60_000).toISOString(),
          message: { role: 'user', parts: [{ type: 'text', text: 'a different road' }] },
        };
        await driver.appendEntries(id, [branch]);
        const path = await driver.getAncestry(id, branch.id);
        expect(path.map((e) => e.id)).toEqual([first.id, firstAsst.id, toolMsg.id, branch.id]);
        const branched = await driver.getContext(id);
        const texts = branched.messages.flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')));
        expect(texts).toContain('a different road');
        expect(texts.some((t) => t.includes('There is one file'))).toBe(false);
        expect(texts).not.toContain('and now the appendix');
      });

      it('appendEntries refuses an entry whose parent is not in the session', async (t) => {
        if (!driver.capabilities.append || !driver.appendEntries) return t.skip();
        if (opts.deviations?.['orphan append']) return t.skip(opts.deviations['orphan append']);
        const id = await put(sampleSession(opts));
        await expect(
          driver.appendEntries(id, [
            {
              kind: 'message',
              id: 'c3c3c3c3-0000-4000-8000-000000000003',
              parentId: 'not-a-parent-here',
              timestamp: new Date().toISOString(),
              message: { role: 'user', parts: [{ type: 'text', text: 'orphan' }] },
            },
          ]),
        ).rejects.toThrow();
      });

      /** A store of threadbase's own sessions (memory, SQLite, PostgreSQL, remote): the repeated-id rule is theirs. */
      async function storedSessionOf(t: { skip(note?: string): void }): Promise<Session | undefined> {
        if (!driver.capabilities.append || !driver.appendEntries) return void t.skip();
        const id = await put(sampleSession(opts));
        const s = (await driver.getSession(id)) as Session;
        if (s.source !== 'threadbase') return void t.skip("an agent's own records: its format's rule for a repeated id");
        return s;
      }
      const nextEntry = (s: Session, n: number): Entry => ({
        kind: 'message',
        id: `d4d4d4d4-0000-4000-8000-00000000000${n}`,
        parentId: s.entries[s.entries.length - 1]?.id ?? null,
        timestamp: new Date(Date.parse(s.updatedAt) + 60_000).toISOString(),
        message: { role: 'user', parts: [{ type: 'text', text: `appended after a re-sent entry ${n}` }] },
      });

      it('appendEntries leaves out an entry the session has as stored: a repeated append changes nothing', async (t) => {
        const s = await storedSessionOf(t);
        if (!s || !driver.appendEntries) return;
        const last = s.entries[s.entries.length - 1] as Entry;
        const added = nextEntry(s, 1);
        await driver.appendEntries(s.id, [last, added]);
        const once = (await driver.getSession(s.id)) as Session;
        expect(once.entries.map((e) => e.id)).toEqual([...s.entries.map((e) => e.id), added.id]);
        expect(once.leafId).toBe(added.id);
        // the whole append again (a push repeated): nothing added, nothing refused
        await driver.appendEntries(s.id, [last, added]);
        const twice = (await driver.getSession(s.id)) as Session;
        expect(twice.entries).toEqual(once.entries);
        expect(twice.leafId).toBe(added.id);
      });

      it('appendEntries refuses an entry whose id the session has with other content, naming both, adding nothing', async (t) => {
        const s = await storedSessionOf(t);
        if (!s || !driver.appendEntries) return;
        const first = s.entries[0] as MessageEntry;
        const changed: Entry = { ...first, message: { role: 'user', parts: [{ type: 'text', text: 'not what was stored' }] } };
        const append = driver.appendEntries(s.id, [nextEntry(s, 2), changed]);
        await expect(append).rejects.toThrow(ThreadbaseError);
        // the same code from every store: the remote one takes it from the server's answer (`reason`)
        await expect(append).rejects.toMatchObject({ code: 'duplicate_entry' });
        await expect(append).rejects.toThrow(first.id);
        await expect(append).rejects.toThrow(s.id);
        const after = (await driver.getSession(s.id)) as Session;
        expect(after.entries).toEqual(s.entries);
        expect(after.leafId).toBe(s.leafId);
      });

      it('a session with no current leaf (EMPTY_LEAF, a rewind to empty) keeps it: an empty context, then an append leads', async (t) => {
        if (!driver.capabilities.write) return t.skip();
        const id = await put({ ...sampleSession(opts), leafId: EMPTY_LEAF });
        const s = (await driver.getSession(id)) as Session;
        if (s.source !== 'threadbase') return t.skip("an agent's own records: its format's rule for an empty leaf");
        expect(s.leafId).toBe(EMPTY_LEAF);
        expect((await driver.getContext(id)).messages).toEqual([]);
        expect((await driver.listSessions()).some((l) => l.id === id)).toBe(true);
        if (!driver.capabilities.append || !driver.appendEntries) return;
        const root: Entry = {
          kind: 'message',
          id: 'f6f6f6f6-0000-4000-8000-000000000001',
          parentId: null,
          timestamp: new Date(Date.parse(s.updatedAt) + 60_000).toISOString(),
          message: { role: 'user', parts: [{ type: 'text', text: 'a new start after the rewind' }] },
        };
        await driver.appendEntries(id, [root]);
        const after = (await driver.getSession(id)) as Session;
        expect(after.leafId).toBe(root.id);
        expect((await driver.getContext(id)).messages.map((m) => m.parts)).toEqual([
          [{ type: 'text', text: 'a new start after the rewind' }],
        ]);
      });

      it('replaceSession swaps the session whole under its id: changed, dropped and new entries, title, search', async (t) => {
        if (!driver.replaceSession) return t.skip();
        const id = await put(sampleSession(opts));
        const s = (await driver.getSession(id)) as Session;
        const first = s.entries[0] as MessageEntry;
        const changed: MessageEntry = {
          ...first,
          message: { role: 'user', parts: [{ type: 'text', text: 'a wombatcassowary replaced it' }] },
        };
        const added: Entry = {
          kind: 'message',
          id: 'e5e5e5e5-0000-4000-8000-000000000001',
          parentId: changed.id,
          timestamp: new Date(Date.parse(s.updatedAt) + 60_000).toISOString(),
          message: { role: 'assistant', parts: [{ type: 'text', text: 'the reply now' }] },
        };
        const info = await driver.replaceSession(id, {
          ...s,
          title: 'replaced whole',
          entries: [changed, added],
          leafId: undefined,
        });
        expect(info.id).toBe(id);
        const after = (await driver.getSession(id)) as Session;
        expect(after.entries).toEqual([changed, added]);
        expect(after.leafId).toBe(added.id);
        expect(after.title).toBe('replaced whole');
        expect((await driver.listSessions()).filter((l) => l.id === id).map((l) => l.title)).toEqual(['replaced whole']);
        if (driver.search) {
          expect((await driver.search('wombatcassowary')).map((h) => h.sessionId)).toEqual([id]);
          expect((await driver.search('zanzibarquokka')).map((h) => h.sessionId)).not.toContain(id);
        }
      });

      it('replaceSession of an id the store does not hold is not_found and writes nothing', async (t) => {
        if (!driver.replaceSession) return t.skip();
        const before = (await driver.listSessions()).length;
        const replace = driver.replaceSession('no-such-session-4242', sampleSession(opts));
        await expect(replace).rejects.toMatchObject({ code: 'not_found' });
        expect(await driver.getSession('no-such-session-4242')).toBeUndefined();
        expect((await driver.listSessions()).length).toBe(before);
      });

      it('forkSession makes a new session whose messages, with ancestors, end at the fork point', async (t) => {
        if (!driver.capabilities.fork || !driver.forkSession) return t.skip();
        const id = await put(sampleSession(opts));
        const s = (await driver.getSession(id)) as Session;
        // At the tool result, so no agent needs to close a dangling tool call.
        const at = messagesOf(s)[2] as MessageEntry;
        const fork = await driver.forkSession(id, { at: at.id, title: 'the fork' });
        expect(fork.id).not.toBe(id);
        if (!opts.deviations?.['fork parent']) expect(fork.parentId).toBe(id);
        const msgs = await driver.getMessages(fork.id, { includeAncestors: true });
        expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
        expect(msgs[0]?.parts.some((p) => p.type === 'text' && p.text.includes('zanzibarquokka'))).toBe(true);
        const original = (await driver.getSession(id)) as Session;
        expect(messagesOf(original).length).toBe(messagesOf(s).length);
      });

      it('forkSession at an entry the session does not have fails naming that entry, and writes nothing', async (t) => {
        if (!driver.capabilities.fork || !driver.forkSession) return t.skip();
        const id = await put(sampleSession(opts));
        const before = (await driver.listSessions()).length;
        await expect(driver.forkSession(id, { at: 'no-such-entry-4242' })).rejects.toThrow(/no-such-entry-4242/);
        expect((await driver.listSessions()).length).toBe(before);
      });

      it('setTitle renames the session', async (t) => {
        if (!driver.capabilities.title || !driver.setTitle) return t.skip();
        const id = await put(sampleSession(opts));
        await driver.setTitle(id, 'A brand new title');
        expect((await driver.getSession(id))?.title).toBe('A brand new title');
        expect((await driver.listSessions()).find((s) => s.id === id)?.title).toBe('A brand new title');
      });

      it('deleteSession removes it from listing, reading and search', async (t) => {
        if (!driver.capabilities.delete || !driver.deleteSession) return t.skip();
        const s = sampleSession(opts);
        const id = await put(s);
        await driver.deleteSession(id);
        expect(await driver.getSession(id)).toBeUndefined();
        expect((await driver.listSessions()).map((x) => x.id)).not.toContain(id);
        if (driver.search)
          expect((await driver.search(`number ${s.id.slice(7, 8)}`)).some((h) => h.sessionId === id)).toBe(false);
      });
    });
  });
}
