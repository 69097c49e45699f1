/**
 * A session the real pi recorded (RPC) with three parallel calls in one response (signed thinking, a
 * command, a failing command, a read of a PNG), an image prompt, and a compaction that keeps those
 * turns (keepRecentTokens), carried pi → X → pi for every agent that writes. What pi sends for the copy
 * (its context) holds every result the source's does, each after its call: codex keeps the kept turns
 * in its compaction's replacement history one item per call, which were written into pi as one
 * assistant message per call, each call then answered by pi's "No result provided" before the next;
 * and the failed call's error flag, another provider's signed thinking and the reply's model (pi
 * replays thinking as thinking only to the model that signed it), which codex has no item for, ride
 * in the replacement history's items too. The real pi resumes the codex round trip and sends the three results.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import type { SourceName } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { type AgentHome, createOpencodeDatabase, PiRpc, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicBlock, Rule } from '../helpers/anthropic-standin.js';
import { newestSession, readContext, readSession, resumeInTarget } from '../helpers/conversions.js';
import { ONE_PIXEL_PNG as PNG } from '../helpers/sessions.js';

let home: AgentHome;
let sourceId: string;

/** `MULTI`: signed thinking, a text and three parallel calls (pi's bash twice, its read once). */
const multiRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  const blocks = !last ? [] : typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  if (blocks.some((b) => b.type === 'tool_result')) return undefined;
  const text = blocks.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])).join('');
  const bash = req.tools?.find((t) => /^bash$/i.test(t.name));
  const read = req.tools?.find((t) => /^read$/i.test(t.name));
  if (!text.startsWith('MULTI') || !bash || !read) return undefined;
  return {
    thinking: 'Let me do all three.',
    text: 'Doing.',
    toolUses: [
      { name: bash.name, input: { command: 'echo one' } },
      { name: bash.name, input: { command: 'echo two; exit 3' } },
      { name: read.name, input: { path: 'pixel.png' } },
    ],
  };
};

beforeAll(async () => {
  home = await setupAgentHome({ rules: [multiRule] });
  await createOpencodeDatabase(home);
  await fs.writeFile(join(home.project, 'pixel.png'), Buffer.from(PNG, 'base64'));
  const rpc = new PiRpc(home);
  try {
    await rpc.prompt('MULTI go');
    await rpc.prompt('look', [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
    expect(((await rpc.compact()) as { success?: boolean }).success).toBe(true);
    await rpc.prompt('after compaction');
  } finally {
    rpc.close();
  }
  sourceId = (await newestSession(home, 'pi')).id;
}, 300_000);

afterAll(async () => {
  await home?.close();
});

/** The results a context sends, in order, by their content and error flag (ids differ between copies). */
function resultsOf(messages: readonly { content: unknown }[]): unknown[] {
  return messages
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as AnthropicBlock[]) : []))
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({
      content: typeof b.content === 'string' ? [{ type: 'text', text: b.content }] : b.content,
      isError: b.is_error === true,
    }));
}

/** The thinking a context sends, in order, with its signature. */
function thinkingOf(messages: readonly { content: unknown }[]): unknown[] {
  return messages
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as AnthropicBlock[]) : []))
    .filter((b) => b.type === 'thinking')
    .map((b) => ({ thinking: b.thinking, signature: b.signature }));
}

describe('pi session with parallel calls kept by a compaction, pi → X → pi', () => {
  it('was recorded with the three results kept after the compaction', async () => {
    const source = await readSession(home, 'pi', sourceId);
    expect(source.entries.some((e) => e.kind === 'compaction')).toBe(true);
    const results = resultsOf(contextToAnthropic(await readContext(home, 'pi', sourceId)).messages);
    expect(results).toHaveLength(3);
    expect(JSON.stringify(results)).toContain('Command exited with code 3');
    expect(results.map((r) => (r as { isError: boolean }).isError)).toEqual([false, true, false]);
  });

  for (const via of ['claude', 'opencode', 'codex', 'copilot', 'gemini', 'qwen', 'cline', 'continue'] as SourceName[])
    it(`pi → ${via} → pi: pi sends every result`, async () => {
      const source = await readSession(home, 'pi', sourceId);
      const there = await readSession(home, via, (await convertSession(source, { to: via, env: home.env })).id);
      const back = await convertSession(there, { to: 'pi', env: home.env });
      const wantCtx = contextToAnthropic(await readContext(home, 'pi', sourceId)).messages;
      const gotCtx = contextToAnthropic(await readContext(home, 'pi', back.id)).messages;
      const want = resultsOf(wantCtx);
      expect(resultsOf(gotCtx)).toEqual(want);
      expect(thinkingOf(wantCtx)).toHaveLength(1);
      expect(thinkingOf(gotCtx)).toEqual(thinkingOf(wantCtx));
      if (via !== 'codex') return;
      // the real pi resumes the codex round trip and sends them
      const sent = await resumeInTarget(home, 'pi', { id: back.id, source: 'pi', path: back.path as string }, 'probe back');
      expect(resultsOf(sent)).toEqual(want);
    });
});
