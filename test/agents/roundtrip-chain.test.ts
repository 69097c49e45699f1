/**
 * A rich session the real Claude Code recorded against the loopback stand-in (signed thinking, three
 * parallel calls in one response: a command, a failing command, a Read of a PNG whose result is the
 * image; usage with cache reads and writes; a second turn with thinking), carried through several
 * agents in a row with `convertSession` and read back at each hop:
 *   claude → pi → opencode → codex → claude, claude → copilot → claude, claude → gemini → claude,
 *   claude → qwen → cline → continue → gemini → copilot → codex → opencode → pi → claude.
 * At every hop the session reads as the original: each turn in order with its parts (text, thinking
 * with its signature, calls by name and input, results with their content, image bytes and error
 * flag), model, usage (input, output, cache read, cache write) and the time of each turn; the title
 * and the project. Call ids may be remapped (compared by order). Then the real pi, OpenCode and codex
 * resume their hops and the real Claude Code the last copy, and what each sends holds the three
 * results in order, the failed one as failed (codex has no such flag) and the image. A fork of a
 * compacted session goes through every agent that writes and back the same.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Part, Session, SourceName } from '../../src/model/types.js';
import '../../src/formats/all.js';
import {
  type CodexAgentHome,
  createOpencodeDatabase,
  resumedByCodex,
  runClaude,
  setupCodexAgentHome,
} from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import type { Block } from '../helpers/claude-requests.js';
import { readContext, readSession, resumeInTarget, textOf } from '../helpers/conversions.js';
import { ONE_PIXEL_PNG as PNG } from '../helpers/sessions.js';

let home: CodexAgentHome;
let sessionId: string;

/** `RICH`: signed thinking, a text and three parallel calls; `THINK`: signed thinking and a text; with cache counts. */
const richRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return undefined;
  const text = textOf(last.content as string | Block[]).at(-1) ?? '';
  if (text.startsWith('RICH'))
    return {
      thinking: 'Three things at once.',
      text: 'Running them.',
      toolUses: [
        { name: 'Bash', input: { command: 'echo one', description: 'one' } },
        { name: 'Bash', input: { command: 'echo two; exit 3', description: 'fails' } },
        { name: 'Read', input: { file_path: join(home.project, 'pixel.png') } },
      ],
      usage: { cache_read_input_tokens: 7, cache_creation_input_tokens: 11 },
    };
  if (text.startsWith('THINK'))
    return { thinking: 'Second thought.', text: 'Done thinking.', usage: { cache_read_input_tokens: 5 } };
  return undefined;
};

beforeAll(async () => {
  home = await setupCodexAgentHome({ rules: [richRule] });
  await createOpencodeDatabase(home);
  await fs.writeFile(join(home.project, 'pixel.png'), Buffer.from(PNG, 'base64'));
  sessionId = (await runClaude(home, ['--allowedTools', 'Bash', 'Read'], 'RICH please')).session_id;
  await runClaude(home, ['--resume', sessionId], 'THINK more');
}, 300_000);

afterAll(async () => {
  await home?.close();
});

/** A part without what a hop may rename or spell otherwise: call ids, meta, a result's tool name, a string for one text. */
function partView(p: Part): unknown {
  const { meta: _m, ...rest } = p as Part & { meta?: unknown };
  if (rest.type === 'tool_call') return { type: 'tool_call', name: rest.name, input: rest.input };
  if (rest.type === 'tool_result') {
    const content: Part[] = typeof rest.content === 'string' ? [{ type: 'text', text: rest.content }] : rest.content;
    return { type: 'tool_result', content: content.map(partView), isError: rest.isError === true };
  }
  return rest;
}

/**
 * The session along its path as turns: a role's consecutive messages are one turn (Claude Code keeps
 * one record per block of a response, one per result), with its parts, the model and usage of its
 * response. Times are compared apart (timesIn).
 */
function view(s: Session) {
  const turns: { role: string; model?: string; usage?: unknown; parts: unknown[] }[] = [];
  for (const e of pathToLeaf(s)) {
    if (e.kind === 'compaction') turns.push({ role: 'compaction', parts: [e.summary] });
    if (e.kind !== 'message') continue;
    const m = e.message;
    const prev = turns.at(-1);
    if (prev?.role === m.role) {
      prev.parts.push(...m.parts.map(partView));
      continue;
    }
    turns.push({
      role: m.role,
      ...(m.role === 'assistant' ? { model: m.model, usage: m.usage } : {}),
      parts: m.parts.map(partView),
    });
  }
  return { title: s.title, project: s.project, turns };
}

/**
 * Each turn's times, from its first record's to its last's: a hop that joins a response's records into
 * one message keeps the time of one of them (pi the last, Copilot and Gemini the first).
 */
function times(s: Session): [string, string][] {
  const out: { role: string; span: [string, string] }[] = [];
  for (const e of pathToLeaf(s)) {
    const role = e.kind === 'message' ? e.message.role : e.kind === 'compaction' ? 'compaction' : undefined;
    if (!role) continue;
    const prev = out.at(-1);
    if (prev?.role === role) prev.span[1] = e.timestamp;
    else out.push({ role, span: [e.timestamp, e.timestamp] });
  }
  return out.map((t) => t.span);
}

/** Every turn of `copy` at a time within that turn's in `original`. */
function expectTimesWithin(copy: Session, original: Session, hop: string): void {
  const want = times(original);
  const got = times(copy);
  expect(got.length, hop).toBe(want.length);
  got.forEach(([from, to], i) => {
    const [lo, hi] = want[i] as [string, string];
    expect(from >= lo && to <= hi, `${hop}: turn ${i} at ${from}..${to}, not within ${lo}..${hi}`).toBe(true);
  });
}

/** `from` converted into `to` and read back from `to`'s store. */
async function hop(from: Session, to: SourceName): Promise<Session> {
  const written = await convertSession(from, { to, env: home.env });
  return readSession(home, to, written.id);
}

describe('a rich Claude Code session carried through several agents in a row', () => {
  let source: Session;
  beforeAll(async () => {
    source = await readSession(home, 'claude', sessionId);
  });

  it('was recorded with thinking, parallel calls, a failed call, an image result and cache counts', () => {
    const v = JSON.stringify(view(source));
    expect(v).toContain('"signature":"sig-standin-1"');
    expect(v).toContain(PNG);
    expect(v).toContain('"isError":true');
    expect(v).toContain('"cacheWrite":11');
    expect(view(source).turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  });

  for (const chain of [
    ['pi', 'opencode', 'codex', 'claude'],
    ['copilot', 'claude'],
    ['gemini', 'claude'],
    ['qwen', 'cline', 'continue', 'gemini', 'copilot', 'codex', 'opencode', 'pi', 'claude'],
  ] as SourceName[][])
    it(`claude → ${chain.join(' → ')}: every hop reads as the original`, async () => {
      const expected = view(source);
      let cur = source;
      for (const to of chain) {
        cur = await hop(cur, to);
        expect(view(cur), `after ${to}`).toEqual(expected);
        expectTimesWithin(cur, source, `after ${to}`);
      }
      // the last copy is Claude Code's again: it resumes it (with the model that signed the thinking) and sends the conversation
      const model = source.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))[0];
      const sent = await resumeInTarget(home, 'claude', { id: cur.id, source: 'claude', path: '' }, `probe ${chain[0]}`, model);
      const req = { messages: sent };
      const results = req.messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b) => b.type === 'tool_result');
      expect(results.map((r) => r.is_error === true)).toEqual([false, true, false]);
      expect(JSON.stringify(results[2])).toContain(PNG);
      expect(JSON.stringify(req.messages)).toContain('sig-standin-1');
      const ctx = contextToAnthropic(await readContext(home, 'claude', cur.id)).messages;
      expect(JSON.stringify(ctx)).toContain('"is_error":true');
    });

  it('a fork of a compacted session, its path starting with the /compact command, keeps its title and turns through every agent and back', async () => {
    const id = (await runClaude(home, [], 'first question')).session_id;
    await runClaude(home, ['--resume', id], '/compact');
    await runClaude(home, ['--resume', id], 'THINK after the compaction');
    // a fork of it starts at the compaction (Claude Code copies the messages from the compact boundary on)
    const fork = (await runClaude(home, ['--resume', id, '--fork-session'], 'THINK in the fork')).session_id;
    const compacted = await readSession(home, 'claude', fork);
    const expected = view(compacted);
    expect(expected.turns[0]?.role).toBe('compaction');
    // Claude Code's local-command caveat is the first user record on the path; the title is not it
    expect(compacted.title).not.toMatch(/^</);
    for (const to of ['pi', 'opencode', 'codex', 'copilot', 'gemini', 'qwen', 'cline', 'continue'] as SourceName[]) {
      const there = await hop(compacted, to);
      expect(view(there), to).toEqual(expected);
      expect(view(await hop(there, 'claude')), `${to} → claude`).toEqual(expected);
    }
  });

  for (const target of ['pi', 'opencode'] as const)
    it(`${target} resumes its hop with the three results, the failed one failed, and the image`, async () => {
      const through = target === 'pi' ? ['pi'] : ['pi', 'opencode'];
      let cur = source;
      let written = { id: '', source: target as string, path: '' };
      for (const to of through) {
        const w = await convertSession(cur, { to: to as SourceName, env: home.env });
        written = { id: w.id, source: to, path: (w as { path?: string }).path ?? '' };
        cur = await readSession(home, to, w.id);
      }
      const sent = await resumeInTarget(home, target, written, `probe ${target}`);
      const results = sent.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
      expect(results.map((r) => r.is_error === true)).toEqual([false, true, false]);
      expect(JSON.stringify(results[1])).toContain('Exit code 3');
      expect(JSON.stringify(results[2])).toContain(PNG);
    });

  it('codex resumes its hop with the failed call and the image in its input', async () => {
    const inCodex = await hop(await hop(await hop(source, 'pi'), 'opencode'), 'codex');
    const sent = await resumedByCodex(home, inCodex.id, 'probe codex');
    const outputs = sent.filter((i) => i.type === 'function_call_output');
    expect(outputs).toHaveLength(3);
    expect(JSON.stringify(outputs[1])).toContain('Exit code 3');
    expect(JSON.stringify(outputs[2])).toContain(PNG);
    // codex sends no field of threadbase's own
    expect(JSON.stringify(sent)).not.toContain('threadbase');
  });
});
