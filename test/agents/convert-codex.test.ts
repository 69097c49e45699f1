/**
 * Codex in the conversion matrix, with the real agents on loopback stand-ins:
 * - real codex records a session against the Responses stand-in (an image in the first prompt,
 *   reasoning with encrypted content, a real shell call with its output, a second turn);
 *   `threadbase convert --to claude|pi|opencode` writes it into each, and the real target resumes
 *   it against the Anthropic stand-in: the conversation it sends equals the codex context rendered
 *   for Anthropic (contextToAnthropic); converted back `--to codex`, real codex resumes it with the
 *   original codex history first (reasoning with its encrypted content, the image's detail);
 * - real Claude Code, pi and OpenCode each record a session (signed thinking, a real bash call, an
 *   image, a second turn); `convert --to codex` writes a rollout and real codex resumes it: the
 *   `input` it sends equals the source context rendered for Responses (contextToResponses), less
 *   what codex adds itself; converted back, the source agent resumes it with its own context first,
 *   replaying its signed thinking again.
 * Each source is recorded once (beforeAll); the resumes run one after another.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { contextToResponses } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { SourceName } from '../../src/model/types.js';
import {
  type CodexAgentHome,
  OPENCODE_MODEL,
  PiRpc,
  runClaude,
  runClaudeContent,
  runOpencode,
  setupCodexAgentHome,
} from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import { type Block, comparable, type Msg } from '../helpers/claude-requests.js';
import {
  convertWith,
  newestSession,
  readContext,
  readSession,
  resumeInTarget,
  textOf,
  withoutPiItemIds,
} from '../helpers/conversions.js';
import {
  codexHistory,
  defaultResponsesRules,
  itemText,
  type ResponsesItem,
  type ResponsesRule,
} from '../helpers/openai-responses-standin.js';
import { ONE_PIXEL_PNG as PNG } from '../helpers/sessions.js';
import '../../src/formats/all.js';

type Agent = 'claude' | 'pi' | 'opencode';

const AGENTS: Agent[] = ['claude', 'pi', 'opencode'];

/**
 * Anthropic side: a prompt with a text starting `RUN: ` gets signed thinking and a bash call; any
 * other prompt `ok: <its last text>`; tool results fall through to the stand-in's `Tool finished: …`.
 */
const anthropicRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last || (typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result'))) return undefined;
  const texts = textOf(last.content as string | Block[]);
  const run = texts.map((t) => /^RUN: (.+)$/s.exec(t)).find((m) => m !== null);
  const bash = req.tools?.find((t) => /^bash$/i.test(t.name));
  if (run && bash)
    return {
      thinking: 'I will run it.',
      toolUse: { name: bash.name, input: { command: (run[1] as string).trim(), description: 'run' } },
    };
  return { text: `ok: ${(texts.at(-1) ?? '').replace(/\s+/g, ' ').trim().slice(0, 60)}` };
};

/** Responses side: `RUN:` gets reasoning with encrypted content and a shell call, `THINK:` reasoning and text. */
const codexRule: ResponsesRule = (req) => {
  const last = req.input.at(-1);
  if (last?.type !== 'message') return undefined;
  const text = itemText(last);
  if (/RUN: /.test(text)) {
    const call = defaultResponsesRules[2]?.(req);
    return call && { ...call, reasoning: 'I will run it in the shell.', encryptedReasoning: 'gAAAAB-standin-encrypted-run' };
  }
  if (/THINK:/.test(text))
    return { reasoning: 'Weighing the second question.', encryptedReasoning: 'gAAAAB-standin-encrypted-think', text: 'Thought.' };
  return undefined;
};

let home: CodexAgentHome;
let codexId = '';
const sourceIds = new Map<Agent, string>();

const contextOf = (agent: SourceName, id: string) => readContext(home, agent, id);

async function recordCodex(): Promise<string> {
  const image = join(home.project, 'dot.png');
  await fs.writeFile(image, Buffer.from(PNG, 'base64'));
  await home.codex(['-i', image, '--', 'RUN: echo codex-tool-out']);
  const listed = await newestSession(home, 'codex');
  await home.codex(['resume', listed.id, 'THINK: and the second turn?']);
  return listed.id;
}

async function recordClaude(): Promise<string> {
  const first = await runClaudeContent(
    home,
    ['--allowedTools', 'Bash'],
    [
      { type: 'text', text: 'RUN: echo claude-src > c.txt' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ],
  );
  await runClaude(home, ['--resume', first.session_id], 'second claude turn');
  return first.session_id;
}

async function recordPi(): Promise<string> {
  const rpc = new PiRpc(home);
  try {
    await rpc.prompt('RUN: echo pi-src > p.txt', [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
    await rpc.prompt('second pi turn');
  } finally {
    rpc.close();
  }
  const list = (await new Sources(home.env).driver('pi').listSessions()).filter((s) => s.project === home.project);
  expect(list).toHaveLength(1);
  return (list[0] as { id: string }).id;
}

async function recordOpencode(): Promise<string> {
  await fs.writeFile(join(home.project, 'pixel.png'), Buffer.from(PNG, 'base64'));
  await runOpencode(home, ['run', '-m', OPENCODE_MODEL, '-f', 'pixel.png', '--', 'RUN:', 'echo', 'oc-src', '>', 'o.txt']);
  const listed = await newestSession(home, 'opencode');
  await runOpencode(home, ['run', '-s', listed.id, '-m', OPENCODE_MODEL, 'second', 'opencode', 'turn']);
  return listed.id;
}

beforeAll(async () => {
  home = await setupCodexAgentHome({
    rules: [anthropicRule],
    responsesRules: [codexRule],
    codexConfig: { extra: ['model_reasoning_summary = "auto"'] },
  });
  codexId = await recordCodex();
  sourceIds.set('claude', await recordClaude());
  sourceIds.set('pi', await recordPi());
  sourceIds.set('opencode', await recordOpencode());
}, 900_000);

afterAll(async () => {
  await home?.close();
});

// ---------------------------------------------------------------------------------------------
// Codex → Claude Code, pi, OpenCode

describe('codex → Claude Code, pi, OpenCode, resumed by the real target', () => {
  it('codex recorded an image, encrypted reasoning, a shell call with its output and a second turn', async () => {
    const s = await readSession(home, 'codex', codexId);
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts.some((p) => p.type === 'image' && p.data === PNG)).toBe(true);
    const thinking = parts.filter((p) => p.type === 'thinking');
    expect(thinking.map((p) => p.meta?.encryptedContent)).toEqual([
      'gAAAAB-standin-encrypted-run',
      'gAAAAB-standin-encrypted-think',
    ]);
    expect(JSON.stringify(parts)).toContain('codex-tool-out');
    expect(parts.some((p) => p.type === 'tool_call')).toBe(true);
    expect(parts.some((p) => p.type === 'tool_result')).toBe(true);
  });

  for (const to of AGENTS)
    it(`codex → ${to}: the target sends the codex context`, async () => {
      const source = await readSession(home, 'codex', codexId);
      const written = await convertWith(home, codexId, 'codex', to);
      // every token count came along (read back from the target's own store)
      expect((await readSession(home, to, written.id)).usage).toEqual(source.usage);
      // OpenAI's encrypted reasoning stays in the target's file for the way back to codex: pi (an
      // openai-responses thinkingSignature), OpenCode (metadata.openai), Claude Code (written as the
      // text it sends, the reasoning kept whole in the record's `threadbase` field)
      const kept = (await readSession(home, to, written.id)).entries.flatMap((e) =>
        e.kind === 'message' ? e.message.parts.filter((p) => p.type === 'thinking') : [],
      );
      expect(kept.map((p) => p.meta?.encryptedContent)).toEqual([
        'gAAAAB-standin-encrypted-run',
        'gAAAAB-standin-encrypted-think',
      ]);
      if (to === 'claude') expect(written.warnings?.join('\n')).toMatch(/unsigned thinking written as text.*\(2\)/);
      // codex's developer messages (its sandbox rules, its skills) are codex's own: no target sends them
      expect(written.warnings?.join('\n')).toMatch(/system messages?\b/);

      const sourceCtx = await contextOf('codex', codexId);
      const expected = comparable(contextToAnthropic(sourceCtx).messages as Msg[]);
      const probe = `probe codex to ${to}`;
      const sent = comparable(await resumeInTarget(home, to, written, probe), probe);
      // pi keeps a call's Responses item id in its tool-call id (call_id|fc_…: the API pairs the call with
      // the reasoning before it by that id), and sends it to Anthropic with '|' made '_' (pi-ai
      // normalizeToolCallId), the call and its result alike: the call_id codex sent, and its item id
      expect(to === 'pi' ? withoutPiItemIds(sent) : sent).toEqual(expected);
      if (to === 'pi') expect(JSON.stringify(sent)).toMatch(/"call_[A-Za-z0-9_-]+_fc_/);

      // What it holds: the image and its prompt, the shell call with its id and input, its output, the second turn.
      const [prompt, callTurn, result, answer, second, thought] = expected;
      expect(prompt?.content).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
      expect(prompt?.content.at(-1)).toEqual({ type: 'text', text: 'RUN: echo codex-tool-out' });
      const call = callTurn?.content.at(-1);
      expect(call).toMatchObject({ type: 'tool_use', name: 'exec_command', input: { cmd: 'echo codex-tool-out' } });
      expect(result?.content).toMatchObject([{ type: 'tool_result', tool_use_id: call?.id }]);
      expect(JSON.stringify(result)).toContain('codex-tool-out');
      expect(answer?.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Tool finished: /) }]);
      expect(second?.content).toEqual([{ type: 'text', text: 'THINK: and the second turn?' }]);
      // OpenAI reasoning cannot go to Anthropic as signed thinking: every target sends its summary as
      // text at the start of its turn (CONVERT.md), and no thinking block
      expect(callTurn?.content[0]).toEqual({ type: 'text', text: 'I will run it in the shell.' });
      expect(thought?.content).toEqual([
        { type: 'text', text: 'Weighing the second question.' },
        { type: 'text', text: 'Thought.' },
      ]);
      expect(JSON.stringify(sent)).not.toContain('"thinking"');
      expect(JSON.stringify(sent)).not.toContain('<permissions instructions>');

      // And back: the target's session (with its resumed turn) converted into codex again, which
      // real codex resumes with the original codex history first.
      const again = await convertWith(home, written.id, to, 'codex');
      const mark = home.responses.responseRequests().length;
      await home.codex(['resume', again.id, `back from ${to}`]);
      const input = home.responses.responseRequests().slice(mark).at(-1)?.input ?? [];
      const original = codexHistory(contextToResponses(sourceCtx).input);
      expect(codexHistory(input).slice(0, original.length)).toEqual(original);
    });
});

// ---------------------------------------------------------------------------------------------
// Claude Code, pi, OpenCode → codex

describe('Claude Code, pi, OpenCode → codex, resumed by the real codex', () => {
  for (const from of AGENTS)
    it(`${from} → codex: codex sends the source's context`, async () => {
      const id = sourceIds.get(from) as string;
      const source = await readSession(home, from, id);
      const written = await convertWith(home, id, from, 'codex');
      expect((await readSession(home, 'codex', written.id)).usage).toEqual(source.usage);
      const ctx = await contextOf(from, id);
      const ours = contextToResponses(ctx).input;
      const probe = `probe ${from} to codex`;
      const mark = home.responses.responseRequests().length;
      await home.codex(['resume', written.id, probe]);
      const req = home.responses.responseRequests().slice(mark).at(-1);
      if (!req) throw new Error('codex sent no request');
      expect(itemText(req.input.at(-1))).toBe(probe);
      const sent = codexHistory(req.input.slice(0, -1));
      expect(sent).toEqual(codexHistory(ours));

      // What it holds: the prompt with its image, the bash call with its id and input, its result, the second turn.
      const src = contextToAnthropic(ctx).messages;
      const use = src.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).find((b) => b.type === 'tool_use');
      expect(sent).toContainEqual({
        type: 'function_call',
        name: use?.name,
        arguments: JSON.stringify(use?.input),
        call_id: use?.id,
      });
      expect(sent).toContainEqual(expect.objectContaining({ type: 'function_call_output', call_id: use?.id }));
      expect(JSON.stringify(sent)).toContain(`data:image/png;base64,${PNG}`);
      expect(JSON.stringify(sent)).toContain(`second ${from} turn`);
      // Anthropic's signed thinking cannot go to OpenAI: the rollout keeps it (an agent_reasoning event
      // codex shows), codex sends no reasoning item for it
      const thinking = src.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'thinking');
      expect(thinking).toEqual([{ type: 'thinking', thinking: 'I will run it.', signature: expect.any(String) }]);
      expect(written.warnings?.join('\n')).toMatch(/codex sends only OpenAI reasoning back/);
      expect(sent.some((i) => (i as ResponsesItem).type === 'reasoning')).toBe(false);
      const back = (await readSession(home, 'codex', written.id)).entries.flatMap((e) =>
        e.kind === 'message' ? e.message.parts : [],
      );
      // with its signature, for the way back
      expect(back.filter((p) => p.type === 'thinking').map((p) => p.type === 'thinking' && [p.thinking, p.signature])).toEqual([
        ['I will run it.', thinking[0]?.signature],
      ]);

      // And back: the rollout codex resumed, converted into the source agent again, which resumes it
      // (Claude Code with the source's model) with the source's context first, replaying its signed thinking.
      const lastModel = source.entries
        .flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' && e.message.model ? [e.message.model] : []))
        .at(-1);
      const again = await convertWith(home, written.id, 'codex', from);
      const probeBack = `back to ${from}`;
      const sentBack = comparable(await resumeInTarget(home, from, again, probeBack, lastModel), probeBack);
      const expectedBack = comparable(src as Msg[]);
      expect(sentBack.slice(0, expectedBack.length)).toEqual(expectedBack);
    });
});
