/**
 * Round trips A → B → A between Claude Code, pi, OpenCode, Qwen Code, Cline and Continue through their real on-disk
 * stores (JSONL files, OpenCode's SQLite database) in a temp HOME: a session written into A, read back,
 * converted into B, read back, converted into A again reads the same as the first A session:
 * every message in order with its parts (text, thinking with signature, images, tool calls with
 * ids and inputs, results with error flags), model, provider, usage, cost and timestamp; the
 * compaction with its summary and kept messages; the title and project path. A seeded property
 * test does the same on generated sessions.
 *
 * What a direction cannot keep is normalised, each with its warning asserted (CONVERT.md):
 * - through Claude Code: cost per message (Claude Code records none);
 * - through pi: several results of one turn are one pi message each (the agents send them as one
 *   turn), so consecutive tool messages are compared joined.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { contextToResponses } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Part, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import {
  codexReasoningSession,
  messageEntry,
  ONE_PIXEL_PNG as PNG,
  secondInto2026 as t,
  textMessage,
} from '../helpers/sessions.js';

type Agent = 'claude' | 'pi' | 'opencode' | 'kilo' | 'codex' | 'qwen' | 'cline' | 'continue';
const AGENTS: Agent[] = ['claude', 'pi', 'opencode', 'kilo', 'qwen', 'cline', 'continue'];
const PAIRS: [Agent, Agent][] = AGENTS.flatMap((a) => AGENTS.filter((b) => b !== a).map((b): [Agent, Agent] => [a, b]));
const OPENCODE_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
const KILO_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'kilo', 'real-7.7.7', 'kilo.db');

let home: string;
let env: DriverEnv;
let sources: Sources;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-roundtrip-'));
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  copyFileSync(OPENCODE_DB, join(home, '.local', 'share', 'opencode', 'opencode.db'));
  mkdirSync(join(home, '.local', 'share', 'kilo'), { recursive: true });
  copyFileSync(KILO_DB, join(home, '.local', 'share', 'kilo', 'kilo.db'));
  env = { home, env: {} };
  sources = new Sources(env);
});
afterAll(async () => {
  await sources?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface View {
  title?: string;
  project?: string;
  entries: unknown[];
}

function partView(p: Part): unknown {
  if (p.type === 'tool_result') {
    const content = typeof p.content === 'string' ? [{ type: 'text', text: p.content }] : p.content.map(partView);
    return { type: p.type, callId: p.callId, content, isError: p.isError === true };
  }
  const { meta: _m, ...rest } = p as Part & { meta?: unknown };
  if (rest.type === 'tool_call') return { type: rest.type, id: rest.id, name: rest.name, input: rest.input };
  return rest;
}

/** The session as the round trip must keep it, along its current path. */
function view(s: Session, through: Agent[]): View {
  const path = pathToLeaf(s).filter((e) => e.kind === 'message' || e.kind === 'compaction');
  const viaClaude = through.includes('claude');
  // pi keeps one message per tool result; consecutive results are one turn in every agent, so
  // they are joined, and a kept entry is named by its position in the joined list.
  const joinedAt = new Map<string, number>();
  const out: Record<string, unknown>[] = [];
  for (const e of path) {
    const prev = out.at(-1);
    if (e.kind === 'message' && e.message.role === 'tool' && prev?.role === 'tool') {
      prev.parts = [...(prev.parts as unknown[]), ...e.message.parts.map(partView)];
      joinedAt.set(e.id, out.length - 1);
      continue;
    }
    joinedAt.set(e.id, out.length);
    if (e.kind === 'compaction') {
      out.push({ compaction: e.summary, keptFrom: e.firstKeptEntryId });
      continue;
    }
    const m = (e as Entry & { kind: 'message' }).message as Message;
    out.push({
      role: m.role,
      parts: m.parts.map(partView),
      // OpenCode records the model on user messages too; the model is the assistant's.
      ...(m.role === 'assistant' ? { model: m.model, provider: m.provider, usage: m.usage } : {}),
      ...(m.role === 'assistant' && !viaClaude ? { cost: m.cost ?? 0 } : {}),
      timestamp: e.timestamp,
    });
  }
  for (const o of out) if ('compaction' in o) o.keptFrom = typeof o.keptFrom === 'string' ? joinedAt.get(o.keptFrom) : undefined;
  return { title: s.title, project: s.project, entries: out };
}

async function readBack(agent: Agent, id: string): Promise<Session> {
  const s = await sources.driver(agent).getSession(id);
  if (!s) throw new Error(`${agent} session ${id} not found`);
  return s;
}

/** Writes into A, then A → B → A; returns the first A session, the second, and B's warnings. */
async function roundTrip(session: Session, a: Agent, b: Agent) {
  const first = await readBack(a, (await convertSession(session, { to: a, env })).id);
  const inB = await convertSession(first, { to: b, env });
  const back = await readBack(a, (await convertSession(await readBack(b, inB.id), { to: a, env })).id);
  return { first, back, warnings: (inB.meta?.warnings as string[] | undefined) ?? [] };
}

const usage = (input: number, output: number) => ({ input, output, cacheRead: 3, cacheWrite: 4, reasoning: 0 });

function richSession(project: string): Session {
  const model = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
  const entries: Entry[] = [
    messageEntry('e1', null, t(1), {
      role: 'user',
      parts: [
        { type: 'text', text: 'what is in the picture?' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    }),
    messageEntry('e2', 'e1', t(2), {
      role: 'assistant',
      ...model,
      responseId: 'msg_rt_1',
      usage: usage(10, 5),
      cost: 0.01,
      stopReason: 'tool_use',
      parts: [
        { type: 'thinking', thinking: 'I should look closer.', signature: 'c2lnLTE=' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_call', id: 'toolu_rt_1', name: 'Bash', input: { command: 'file pic.png', timeout: 5 } },
      ],
    }),
    messageEntry('e3', 'e2', t(3), {
      role: 'tool',
      parts: [{ type: 'tool_result', callId: 'toolu_rt_1', content: 'no such file', isError: true }],
    }),
    messageEntry('e4', 'e3', t(4), {
      role: 'assistant',
      ...model,
      responseId: 'msg_rt_2',
      usage: usage(20, 6),
      cost: 0.02,
      stopReason: 'end_turn',
      parts: [{ type: 'text', text: 'A single pixel.' }],
    }),
    messageEntry('e5', 'e4', t(5), textMessage('user', 'and now?')),
    messageEntry('e6', 'e5', t(6), {
      role: 'assistant',
      ...model,
      responseId: 'msg_rt_3',
      usage: usage(30, 7),
      cost: 0.03,
      stopReason: 'end_turn',
      parts: [{ type: 'text', text: 'Still one pixel.' }],
    }),
    { kind: 'compaction', id: 'e7', parentId: 'e6', timestamp: t(7), summary: 'We looked at a picture.', firstKeptEntryId: 'e5' },
    messageEntry('e8', 'e7', t(8), textMessage('user', 'after the summary')),
    messageEntry('e9', 'e8', t(9), {
      role: 'assistant',
      ...model,
      responseId: 'msg_rt_4',
      usage: usage(40, 8),
      cost: 0.04,
      stopReason: 'end_turn',
      parts: [{ type: 'text', text: 'noted' }],
    }),
  ];
  return {
    id: 'rich',
    source: 'threadbase',
    project,
    title: 'a picture, checked',
    createdAt: t(0),
    updatedAt: t(9),
    messageCount: 8,
    entries,
  };
}

describe('round trips A → B → A keep the conversation', () => {
  for (const [a, b] of PAIRS)
    it(`${a} → ${b} → ${a}`, async () => {
      const { first, back, warnings } = await roundTrip(richSession(join(home, 'project')), a, b);
      const through = [a, b];
      expect(view(back, through)).toEqual(view(first, through));
      // and the first write kept what the model had
      expect(first.title).toBe('a picture, checked');
      expect(first.project).toBe(join(home, 'project'));
      const parts = JSON.stringify(view(first, []));
      expect(parts).toContain('"signature":"c2lnLTE="');
      expect(parts).toContain(PNG);
      expect(parts).toContain('"isError":true');
      if (b === 'claude') expect(warnings.join('\n')).toMatch(/records no cost per message/);
      // pi and OpenCode send another model's thinking as text; Qwen Code keeps and sends the signature
      if (b === 'pi' || b === 'opencode') expect(warnings.join('\n')).toMatch(/(recorded by|to) another model as plain text/);
      if (b === 'qwen') expect(warnings.join('\n')).not.toMatch(/thinking/);
    });
});

describe('a Codex session through Claude Code, pi and OpenCode and back', () => {
  // OpenAI reasoning (its encrypted content, its item id) and the detail of an image, which the
  // Anthropic side has no slot for, come back as codex recorded them (convert-codex agents test).
  const codexSession = (): Session =>
    codexReasoningSession({
      id: 'codex-through',
      source: 'threadbase',
      project: join(home, 'project'),
      imageData: PNG,
      thinking: 'I will list.',
      reasoning: { codexItemId: 'rs_1', encryptedContent: 'gAAAAB-enc' },
      assistant: { provider: 'openai', usage: usage(10, 5) },
    });
  const input = async (s: Session) =>
    contextToResponses(await sources.driver('codex').getContext(s.id)).input.map(({ id: _id, ...rest }) => rest);
  for (const b of ['claude', 'pi', 'opencode'] as const)
    it(`codex → ${b} → codex`, async () => {
      const { first, back } = await roundTrip(codexSession(), 'codex', b);
      const sent = await input(first);
      expect(sent.find((i) => i.type === 'reasoning')).toMatchObject({ encrypted_content: 'gAAAAB-enc' });
      expect(JSON.stringify(sent)).toContain('"detail":"high"');
      expect(await input(back)).toEqual(sent);
    });
});

describe('every token count and price term between Claude Code, pi, OpenCode and Codex', () => {
  // Claude Code records all of these; the others have fields for some and keep the rest in a field they ignore
  const full = {
    input: 1200,
    output: 900,
    cacheRead: 30_000,
    cacheWrite: 500,
    cacheWrite1h: 200,
    reasoning: 300,
    webSearches: 2,
    speed: 'fast' as const,
    inferenceGeo: 'us',
    advisors: [{ model: 'claude-opus-5', input: 4000, output: 500, cacheRead: 100, cacheWrite: 60, cacheWrite1h: 20 }],
  };
  const session = (): Session => ({
    id: 'terms',
    source: 'threadbase',
    project: join(home, 'terms'),
    createdAt: t(0),
    updatedAt: t(2),
    messageCount: 2,
    entries: [
      messageEntry('q', null, t(1), textMessage('user', 'search')),
      messageEntry('r', 'q', t(2), {
        role: 'assistant',
        model: 'claude-opus-4-6',
        provider: 'anthropic',
        responseId: 'msg_terms',
        usage: full,
        stopReason: 'end_turn',
        parts: [{ type: 'text', text: 'found' }],
      }),
    ],
  });
  const usageOf = (s: Session) => {
    const m = s.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
    return m?.kind === 'message' ? m.message.usage : undefined;
  };
  for (const [a, b] of [
    ['claude', 'pi'],
    ['pi', 'claude'],
    ['claude', 'opencode'],
    ['opencode', 'claude'],
    ['pi', 'opencode'],
    ['claude', 'codex'],
    ['pi', 'codex'],
  ] as const)
    it(`${a} → ${b} → ${a}`, async () => {
      const { first, back, warnings } = await roundTrip(session(), a, b);
      expect(usageOf(first)).toEqual(full);
      expect(usageOf(back)).toEqual(full);
      expect(warnings.join('\n')).not.toMatch(/reasoning token|cache-write|fast mode/);
    });
});

/** Generated linear sessions: user turns (text, images), assistant turns (thinking, text, tool calls), their results. */
function sessionArbitrary(project: string): fc.Arbitrary<Session> {
  const word = fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8}){0,3}$/);
  const b64 = fc.uint8Array({ minLength: 3, maxLength: 12 }).map((x) => Buffer.from(x).toString('base64'));
  const userParts = fc
    .tuple(word, fc.option(b64, { nil: undefined }))
    .map(([text, img]): Part[] => [
      { type: 'text', text },
      ...(img ? [{ type: 'image' as const, mediaType: 'image/png', data: img }] : []),
    ]);
  const input = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(word, fc.integer({ min: 0, max: 999 }), fc.boolean()), {
    maxKeys: 3,
  });
  const turn = fc.record({
    user: userParts,
    thinking: fc.option(fc.tuple(word, b64), { nil: undefined }),
    text: word,
    calls: fc.array(fc.tuple(fc.constantFrom('Bash', 'bash', 'read'), input, word, fc.boolean()), { maxLength: 2 }),
    tokens: fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 500 })),
    cost: fc.integer({ min: 0, max: 999 }).map((c) => c / 1000),
    // a compaction before this turn, keeping the previous turn or nothing
    compaction: fc.option(fc.tuple(word, fc.boolean()), { nil: undefined }),
  });
  return fc.array(turn, { minLength: 1, maxLength: 4 }).map((turns) => {
    const entries: Entry[] = [];
    let n = 0;
    const link = () => ({ id: `g${++n}`, parentId: n === 1 ? null : `g${n - 1}`, timestamp: t(n) });
    const add = (message: Message) => {
      entries.push({ kind: 'message', ...link(), message });
    };
    let previousUser: string | undefined;
    turns.forEach((tr, i) => {
      if (tr.compaction && previousUser) {
        const [summary, keep] = tr.compaction;
        entries.push({ kind: 'compaction', ...link(), summary, ...(keep ? { firstKeptEntryId: previousUser } : {}) });
      }
      add({ role: 'user', parts: tr.user });
      previousUser = `g${n}`;
      const calls = tr.calls.map(([name, inp], j) => ({ type: 'tool_call' as const, id: `toolu_g${i}_${j}`, name, input: inp }));
      add({
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        responseId: `msg_g${i}`,
        usage: usage(tr.tokens[0], tr.tokens[1]),
        cost: tr.cost,
        stopReason: calls.length ? 'tool_use' : 'end_turn',
        parts: [
          ...(tr.thinking ? [{ type: 'thinking' as const, thinking: tr.thinking[0], signature: tr.thinking[1] }] : []),
          { type: 'text', text: tr.text },
          ...calls,
        ],
      });
      if (calls.length)
        add({
          role: 'tool',
          parts: tr.calls.map(([, , out, err], j) => ({
            type: 'tool_result' as const,
            callId: `toolu_g${i}_${j}`,
            content: out,
            ...(err ? { isError: true } : {}),
          })),
        });
    });
    return {
      id: 'generated',
      source: 'threadbase',
      project,
      title: 'generated session',
      createdAt: t(0),
      updatedAt: t(n),
      messageCount: n,
      entries,
    };
  });
}

describe('round trips on generated sessions (seeded property test)', () => {
  it('every A → B → A keeps the normalised conversation', async () => {
    let compactions = 0;
    await fc.assert(
      fc.asyncProperty(sessionArbitrary(join(home, 'generated')), fc.constantFrom(...PAIRS), async (session, [a, b]) => {
        const { first, back } = await roundTrip(session, a, b);
        expect(view(back, [a, b])).toEqual(view(first, [a, b]));
        // nothing of the generated conversation was lost on the first write either
        expect(view(first, [a])).toEqual(view(session, [a]));
        compactions += session.entries.some((e) => e.kind === 'compaction') ? 1 : 0;
      }),
      { seed: 20261123, numRuns: 24 },
    );
    // the seed's sessions include compactions
    expect(compactions).toBeGreaterThan(0);
  });
});
