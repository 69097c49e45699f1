/**
 * Hand a session from one agent to another, for each of the six directed pairs among Claude Code,
 * pi and OpenCode, with the real agents against the loopback stand-in:
 * - each agent records a source session once (beforeAll): a real tool call (signed thinking before
 *   it), a continue, a compaction the agent made itself (OpenCode with a tiny context window, so it
 *   compacts by itself), a failing tool call after the compaction, an image in a turn, and a fork; the fork
 *   (which holds all of it) is the session converted;
 * - `threadbase convert <fork> --to <target> --json` writes it into the target's own store;
 * - the real target agent resumes the written session with a probe prompt, and the conversation it
 *   sends the stand-in before the probe equals the source's context (what the source agent would
 *   send; test/agents/<agent>.test.ts proves threadbase's source context equals that): the same
 *   turns in the same order, the same tool calls with ids and inputs, the same results.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { Sources } from '../../src/formats/registry.js';
import type { CompactionEntry } from '../../src/model/types.js';
import {
  type AgentHome,
  OPENCODE_MODEL,
  OPENCODE_TINY_MODEL,
  PiRpc,
  runClaude,
  runClaudeContent,
  runOpencode,
  runPi,
  setupAgentHome,
} from '../helpers/agents.js';
import type { AnthropicRequest, Rule } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import '../../src/formats/all.js';
import type { Block } from '../helpers/claude-requests.js';
import { readSession, resumeInTarget, textOf, type Written } from '../helpers/conversions.js';
import { ONE_PIXEL_PNG as PNG } from '../helpers/sessions.js';

type Agent = 'claude' | 'pi' | 'opencode';
const AGENTS: Agent[] = ['claude', 'pi', 'opencode'];

interface Turn {
  role: string;
  content: Block[];
}

const isReminder = (b: Block) => b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>');

function systemText(req: AnthropicRequest): string {
  if (!req.system) return '';
  return typeof req.system === 'string' ? req.system : req.system.map((b) => String(b.text ?? '')).join('\n');
}

/**
 * One rule set every agent understands: a prompt that starts with `RUN: ` gets signed thinking and
 * a bash call (whatever the agent names its shell tool); a summarisation request (the agent's own
 * compaction: its prompt or, without tools, its system prompt asks for a summary) gets a summary;
 * any other prompt gets `ok: <prompt>`. Tool results fall through to the stand-in's default
 * (`Tool finished: …`).
 */
const matrixRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last) return undefined;
  const blocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  if (blocks.some((b) => b.type === 'tool_result')) return undefined;
  const text = textOf(last.content).at(-1) ?? '';
  const run = /^RUN: (.+)$/s.exec(text);
  const bash = req.tools?.find((t) => /^bash$/i.test(t.name));
  if (run && bash)
    return {
      thinking: 'I will run it.',
      toolUse: { name: bash.name, input: { command: (run[1] as string).trim(), description: 'run' } },
    };
  if (/summar/i.test(text) || (!req.tools?.length && /summar/i.test(systemText(req))))
    return { text: `Stand-in summary #${req.messages.length}: the user ran commands and asked questions.` };
  return { text: `ok: ${text.replace(/\s+/g, ' ').trim().slice(0, 60)}` };
};

/**
 * The conversation of a request or a context, in one comparable shape. What is normalised, and why:
 * - role `system` messages and `<system-reminder>` text blocks: request-time additions of Claude Code
 *   (environment, date, listings), not part of the conversation;
 * - `cache_control`: prompt-caching hints each agent places differently;
 * - a string content is one text block, a tool_result's string content one text block, and
 *   `is_error: false` is no is_error (the Messages API treats them the same);
 * - compaction wording: each agent words the summary differently for the model (Claude Code: the
 *   summary as a user turn; pi: wrapped in "The conversation history before this point was
 *   compacted…"; OpenCode: a "What did we do so far?" turn answered by the summary). Any turn that
 *   carries one of the source's compaction summaries becomes `[compaction] <summary>` as a user turn;
 * - `thinkingAsText` (pi and OpenCode targets): both replay thinking recorded by another model as
 *   plain text (pi-ai's transformMessages; OpenCode passes provider metadata, the signature, only
 *   for the same model), so thinking is compared by its text there; their files keep thinking and
 *   signature (test/convert/agent-roundtrips.test.ts proves it);
 * - trailing whitespace of a text: Claude Code joins consecutive user records with a newline;
 * - empty text blocks are dropped and neighbouring turns of one role joined, as the API does.
 */
function normalise(
  messages: readonly { role: string; content: unknown }[],
  summaries: string[],
  thinkingAsText: boolean,
): Turn[] {
  const summaryIn = (text: string) => summaries.find((s) => s.length > 0 && text.includes(s) && text.length <= s.length + 200);
  const block = (b: Block): Block | undefined => {
    const { cache_control: _c, ...rest } = b;
    if (rest.type === 'text') {
      // Claude Code ends each but the last of consecutive user records with a newline when it joins them.
      const text = String(rest.text ?? '').trimEnd();
      if (text === '' || isReminder(rest as Block)) return undefined;
      const s = summaryIn(text);
      return s ? { type: 'text', text: `[compaction] ${s}` } : { type: 'text', text };
    }
    if (rest.type === 'thinking' && thinkingAsText)
      return rest.thinking ? { type: 'text', text: String(rest.thinking) } : undefined;
    if (rest.type === 'tool_result') {
      const content = typeof rest.content === 'string' ? [{ type: 'text', text: rest.content }] : (rest.content as Block[]);
      const out: Block = { type: 'tool_result', tool_use_id: rest.tool_use_id, content: content.flatMap((c) => block(c) ?? []) };
      if (rest.is_error === true) out.is_error = true;
      return out;
    }
    return rest as Block;
  };
  const turns: Turn[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const raw = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[]);
    const content = raw.flatMap((b) => block(b) ?? []);
    const push = (role: string, blocks: Block[]) => {
      if (blocks.length === 0) return;
      const prev = turns.at(-1);
      if (prev && prev.role === role) prev.content = [...prev.content, ...blocks];
      else turns.push({ role, content: blocks });
    };
    // OpenCode: the summary answers its compaction request (the AI SDK joins it with the kept
    // assistant turn that follows); as a user turn it reads like the others.
    if (m.role === 'assistant' && String(content[0]?.text ?? '').startsWith('[compaction] ')) {
      const prev = turns.at(-1);
      if (prev?.role === 'user' && prev.content.length === 1 && prev.content[0]?.text === 'What did we do so far?') turns.pop();
      push('user', content.slice(0, 1));
      push('assistant', content.slice(1));
    } else push(m.role, content);
  }
  return turns;
}

let home: AgentHome;
let sources: Sources;
/** agent → the source session converted (the fork, which carries everything) */
const sourceIds = new Map<Agent, string>();

function cli(...args: string[]): Promise<string> {
  return runCliOk(home.env, args);
}

async function recordClaude(): Promise<string> {
  const first = await runClaude(home, ['--allowedTools', 'Bash'], 'RUN: echo claude1 > c1.txt');
  const id = first.session_id;
  await runClaude(home, ['--resume', id], 'second claude question');
  const compacted = await runClaude(home, ['--resume', id], '/compact');
  expect(compacted.is_error).not.toBe(true);
  await runClaude(home, ['--allowedTools', 'Bash', '--resume', id], 'RUN: echo claude2 > c2.txt; exit 3');
  const fork = await runClaudeContent(
    home,
    ['--resume', id, '--fork-session'],
    [
      { type: 'text', text: 'in the claude fork' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ],
  );
  return fork.session_id;
}

async function recordPi(): Promise<string> {
  // Compaction keeps only the most recent turn verbatim, so it both summarises and keeps entries.
  await fs.mkdir(join(home.project, '.pi'), { recursive: true });
  await fs.writeFile(
    join(home.project, '.pi', 'settings.json'),
    JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 40 } }),
  );
  const rpc = new PiRpc(home);
  try {
    await rpc.prompt('RUN: echo pi1 > p1.txt');
    await rpc.prompt('second pi question');
    const compacted = (await rpc.compact()) as { success?: boolean };
    expect(compacted.success).toBe(true);
    await rpc.prompt('RUN: echo pi2 > p2.txt; exit 3', [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
  } finally {
    rpc.close();
  }
  await runPi(home, ['-c', '-p', 'continue in pi']);
  const list = (await new Sources(home.env).driver('pi').listSessions()).filter((s) => s.project === home.project);
  expect(list).toHaveLength(1);
  const original = list[0] as { id: string; path?: string };
  await runPi(home, ['--fork', original.path as string, '-p', 'in the pi fork']);
  const fork = (await new Sources(home.env).driver('pi').listSessions()).find((s) => s.parentId === original.id);
  if (!fork) throw new Error('pi --fork wrote no session');
  return fork.id;
}

async function recordOpencode(): Promise<string> {
  const driver = new Sources(home.env).driver('opencode');
  // The tiny model's context fills after a few turns and OpenCode compacts by itself.
  await runOpencode(home, ['run', '-m', OPENCODE_TINY_MODEL, '--title', 'opencode matrix', 'RUN:', 'echo', 'oc1', '>', 'o1.txt']);
  const id = (await driver.listSessions())[0]?.id as string;
  const compacted = async () => (await readSession(home, 'opencode', id)).entries.some((e) => e.kind === 'compaction');
  for (let i = 0; i < 8 && !(await compacted()); i++)
    await runOpencode(home, [
      'run',
      '-s',
      id,
      '-m',
      OPENCODE_TINY_MODEL,
      'question',
      String(i),
      'for',
      'opencode',
      'please',
      'answer',
    ]);
  expect(await compacted()).toBe(true);
  await runOpencode(home, ['run', '-s', id, '-m', OPENCODE_MODEL, 'RUN:', 'echo', 'oc2', '>', 'o2.txt;', 'exit', '3']);
  await fs.writeFile(join(home.project, 'pixel.png'), Buffer.from(PNG, 'base64'));
  await runOpencode(home, [
    'run',
    '-s',
    id,
    '-m',
    OPENCODE_MODEL,
    '--fork',
    '-f',
    'pixel.png',
    '--',
    'in',
    'the',
    'opencode',
    'fork',
  ]);
  const fork = (await driver.listSessions()).find((s) => s.id !== id);
  if (!fork) throw new Error('opencode --fork wrote no session');
  return fork.id;
}

beforeAll(async () => {
  home = await setupAgentHome({ rules: [matrixRule] });
  sources = new Sources(home.env);
  sourceIds.set('claude', await recordClaude());
  sourceIds.set('pi', await recordPi());
  sourceIds.set('opencode', await recordOpencode());
}, 900_000);

afterAll(async () => {
  await sources?.close();
  await home?.close();
});

/** Resumes the written session in the target agent with a probe; what it sent before the probe. */
async function resumedBeforeProbe(
  target: Agent,
  written: Written,
  probe: string,
  model?: string,
): Promise<{ role: string; content: unknown }[]> {
  // Claude Code resumed with the model the source last answered with: it leaves out thinking recorded by another model.
  const sent = await resumeInTarget(home, target, written, probe, model);
  // Claude Code places system-role messages (environment, listings) after the prompt; they are not the conversation.
  const messages = sent.filter((m) => (m.role as string) !== 'system').map((m) => ({ ...m }));
  const last = messages.at(-1) as { role: string; content: string | Block[] };
  const blocks = typeof last.content === 'string' ? [] : last.content.filter((b) => !(b.type === 'text' && b.text === probe));
  if (blocks.filter((b) => !isReminder(b)).length === 0) messages.pop();
  else last.content = blocks;
  return messages;
}

describe('convert between Claude Code, pi and OpenCode, resumed by the real target agent', () => {
  it('recorded each source with a tool call, a continue, a compaction and a fork', async () => {
    for (const agent of AGENTS) {
      const s = await readSession(home, agent, sourceIds.get(agent) as string);
      const ctx = contextToAnthropic(await sources.driver(agent).getContext(s.id)).messages;
      const text = JSON.stringify(ctx);
      expect(
        s.entries.some((e) => e.kind === 'compaction'),
        agent,
      ).toBe(true);
      expect(text, agent).toContain('tool_use');
      expect(text, agent).toContain('tool_result');
      expect(text, agent).toContain(PNG);
      expect(text, agent).toContain(`in the ${agent} fork`);
      // Claude Code and pi record a non-zero exit as a failed call (OpenCode as output with the exit code)
      if (agent !== 'opencode') expect(text, agent).toContain('"is_error":true');
    }
  });

  for (const from of AGENTS)
    for (const to of AGENTS) {
      if (from === to) continue;
      it(`${from} → ${to}: the target sends the source's context`, async () => {
        const sourceId = sourceIds.get(from) as string;
        const source = await readSession(home, from, sourceId);
        const summaries = source.entries.filter((e): e is CompactionEntry => e.kind === 'compaction').map((e) => e.summary);
        const written = JSON.parse(await cli('convert', sourceId, '--source', from, '--to', to, '--json')) as Written;
        expect(written.source).toBe(to);
        // every source has signed thinking: each target warns how it replays another model's thinking
        expect(written.warnings?.join('\n')).toMatch(
          to === 'claude' ? /leaves it out when resumed with another model/ : /(recorded by|to) another model as plain text/,
        );
        // the title and the project path came along
        const info = (await new Sources(home.env).driver(to).listSessions()).find((x) => x.id === written.id);
        expect(info).toMatchObject({ title: source.title, project: source.project });
        const sourceCtx = contextToAnthropic(await sources.driver(from).getContext(sourceId)).messages;
        const lastModel = source.entries
          .flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' && e.message.model ? [e.message.model] : []))
          .at(-1);
        const sent = await resumedBeforeProbe(to, written, `probe ${from} to ${to}`, lastModel);
        const expected = normalise(sourceCtx, summaries, to !== 'claude');
        expect(normalise(sent, summaries, to !== 'claude')).toEqual(expected);
        // what must be in it: the tool call after the compaction with its result, the summary, the fork's turn
        const text = JSON.stringify(expected);
        expect(text).toContain('[compaction] ');
        expect(text).toContain('tool_use');
        expect(text).toContain('Tool finished');
        expect(text).toContain(PNG);
        // the command after the compaction exits 3: a failed call, its result sent as the agent recorded it
        expect(text).toContain('exit 3');
      });
    }
});
