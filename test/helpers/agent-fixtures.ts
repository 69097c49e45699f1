/**
 * The real sessions the agents' resume tests convert (test/agents/*.test.ts), and copying one into a
 * test home with its recorded project replaced by the home's.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Context } from '../../src/model/tree.js';
import type { SessionInfo } from '../../src/model/types.js';
import type { AgentHome } from './agents.js';
import type { AnthropicBlock, AnthropicMessage } from './anthropic-standin.js';
import { runCliOk } from './cli.js';
import { readContext, resumeInTarget } from './conversions.js';
import { chainSession, textMessage } from './sessions.js';

/** Claude Code, real: a compaction and a sub-agent call. */
export const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
export const CLAUDE_DIR = 'test/fixtures/claude/real/projects/-tmp-cc-proj';
/** Claude Code, real: signed thinking, two tool calls (one response split over entries), no compaction. */
export const CLAUDE_TOOLS_ID = '9f7f5cd3-8a7d-4c4a-bd84-0310bdd47949';
/** pi, real: a tool call. */
export const PI_ID = '01a204a9-a834-77e0-b180-e676a5436126';
/** codex, real: developer instructions (system messages), reasoning, two shell calls. */
export const CODEX_ID = '01a2049f-112d-7912-ae95-4f258b998a24';
export const CODEX_FILE = `2026/11/22/rollout-2026-11-22T18-57-43-${CODEX_ID}.jsonl`;

/** Copies a fixture file to `to` in the home, its recorded project path replaced by the home's project. */
export async function copyFixture(
  home: { root: string; project: string },
  from: string,
  to: string,
  recordedProject: string,
): Promise<void> {
  const text = await fs.readFile(from, 'utf8');
  await fs.mkdir(dirname(join(home.root, to)), { recursive: true });
  await fs.writeFile(join(home.root, to), text.split(recordedProject).join(home.project));
}

/**
 * The sessions above copied where their agents keep them in the home (Claude Code's compacted session
 * with its sub-agent transcript unless `claudeSubAgent` is false, its tool session, pi's, codex's).
 */
export async function copySourceFixtures(
  home: { root: string; project: string },
  opts: { claudeSubAgent?: boolean } = {},
): Promise<void> {
  const claudeDir = '.claude/projects/-tmp-cc-proj';
  await copyFixture(home, join(CLAUDE_DIR, `${CLAUDE_ID}.jsonl`), join(claudeDir, `${CLAUDE_ID}.jsonl`), '/tmp/cc/proj');
  if (opts.claudeSubAgent !== false)
    for (const f of ['agent-ac5303661b5759184.jsonl', 'agent-ac5303661b5759184.meta.json'])
      await copyFixture(
        home,
        join(CLAUDE_DIR, CLAUDE_ID, 'subagents', f),
        join(claudeDir, CLAUDE_ID, 'subagents', f),
        '/tmp/cc/proj',
      );
  await copyFixture(
    home,
    `test/fixtures/claude/real/projects/-tmp-cc-proj2/${CLAUDE_TOOLS_ID}.jsonl`,
    `.claude/projects/-tmp-cc-proj2/${CLAUDE_TOOLS_ID}.jsonl`,
    '/tmp/cc/proj2',
  );
  await copyFixture(
    home,
    'test/fixtures/pi/real-tool-call.jsonl',
    '.pi/agent/sessions/--proj--/2026-11-22T19-09-17-237Z_01a204a9.jsonl',
    '/tmp/pihome-LHY6x7/proj',
  );
  await copyFixture(home, `test/fixtures/codex/home/sessions/${CODEX_FILE}`, `.codex/sessions/${CODEX_FILE}`, '/tmp/cx/proj');
}

/**
 * The sources the resume tests convert into an agent, with the probe each is resumed with and
 * whether its context holds tool calls (the compacted Claude Code session's calls are summarized away).
 */
export const SOURCE_SESSIONS = [
  { from: 'claude', id: CLAUDE_ID, probe: 'probe from claude (compacted)', calls: false },
  { from: 'claude', id: CLAUDE_TOOLS_ID, probe: 'probe from claude', calls: true },
  { from: 'pi', id: PI_ID, probe: 'probe from pi', calls: true },
  { from: 'codex', id: CODEX_ID, probe: 'probe from codex', calls: true },
];

/** What `convert --json` prints for the session written. */
export interface ConvertedSession {
  id: string;
  source: string;
  path: string;
  warnings?: string[];
}

/** `threadbase convert <id> --source <from> --to <to> --json` in the home. */
export async function convertInto(
  home: { env: DriverEnv },
  id: string,
  from: string,
  to: string,
  extra: string[] = [],
): Promise<ConvertedSession> {
  return JSON.parse(
    await runCliOk(home.env, ['convert', id, '--source', from, '--to', to, '--json', ...extra]),
  ) as ConvertedSession;
}

/**
 * Asserts every item of `want` (what the source agent's context sends) appears within `got` (what
 * the resuming agent sent), in order; an item may come twice in `got`.
 */
export function expectInOrder(got: readonly string[], want: readonly string[]): void {
  let at = 0;
  for (const item of want) {
    const found = got.indexOf(item, at);
    expect(
      found,
      `missing or out of order: ${item.slice(0, 160)}\nin ${JSON.stringify(got).slice(0, 2000)}`,
    ).toBeGreaterThanOrEqual(0);
    at = found + 1;
  }
}

/** A tool result's content as text: a string whole, blocks' texts joined by newlines (another block by its type). */
export const resultText = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : (b.type ?? ''))).join('\n')
      : '';

/**
 * Every text, tool call and tool result of the Anthropic messages an agent sent, in order, in
 * contextItems' form: `role:text`, `call:id:name:input`, `result:id:text` (`ids: false`: without the
 * ids; `trimResults`: results trimmed). `thinking`: thinking blocks too, `thinking:text:signature`;
 * `drop`: blocks the agent adds of its own, left out.
 */
export function anthropicRequestItems(
  messages: readonly AnthropicMessage[],
  o: { ids?: boolean; trimResults?: boolean; thinking?: boolean; drop?: (b: AnthropicBlock) => boolean } = {},
): string[] {
  const id = (v: unknown) => (o.ids === false ? '' : `${v}:`);
  return messages.flatMap((m) =>
    (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).flatMap((b) => {
      if (o.drop?.(b)) return [];
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) return [`${m.role}:${b.text.trim()}`];
      if (b.type === 'tool_use') return [`call:${id(b.id)}${b.name}:${JSON.stringify(b.input)}`];
      if (b.type === 'tool_result') {
        const text = resultText(b.content);
        return [`result:${id(b.tool_use_id)}${o.trimResults ? text.trim() : text}`];
      }
      if (b.type === 'thinking' && o.thinking) return [`thinking:${b.thinking}:${b.signature}`];
      return [];
    }),
  );
}

/**
 * Every text, tool call and tool result of a context but its system prompt, in order, as the resume
 * tests compare them with an agent's request: `role:text`, `call:id:name:input`, `result:id:text`
 * (without the ids where the agent gives calls ids of its own; results trimmed where it trims them).
 * `assistantRole`: the name the agent's API gives the assistant (Gemini's `model`); `signedThinking`:
 * thinking with a signature too, `thinking:text:signature`.
 */
export function contextItems(
  ctx: Context,
  o: { ids?: boolean; trimResults?: boolean; assistantRole?: string; signedThinking?: boolean } = {},
): string[] {
  const id = (v: string) => (o.ids === false ? '' : `${v}:`);
  const assistant = o.assistantRole ?? 'assistant';
  return ctx.messages
    .filter((m) => m.role !== 'system')
    .flatMap((m) =>
      m.parts.flatMap((p) => {
        if (p.type === 'text' && p.text.trim()) return [`${m.role === 'assistant' ? assistant : 'user'}:${p.text.trim()}`];
        if (p.type === 'tool_call') return [`call:${id(p.id)}${p.name}:${JSON.stringify(p.input)}`];
        if (p.type === 'tool_result') {
          const text = resultText(p.content);
          return [`result:${id(p.callId)}${o.trimResults ? text.trim() : text}`];
        }
        if (p.type === 'thinking' && o.signedThinking && p.signature) return [`thinking:${p.thinking}:${p.signature}`];
        return [];
      }),
    );
}

/** What an agent resumed through `handoffFromAwkwardProject`'s command sends: the pi session's two turns and the probe. */
export const AWKWARD_HANDOFF_SENT = ['user:remember the word quokka', 'assistant:quokka noted', 'user:probe handoff'];

/**
 * A pi session of two turns written in a project whose path holds quotes, $, a backtick and !, then
 * `threadbase handoff <id> --source pi --to <to> --json` in the home: the command it prints (the
 * test runs it with the probe "probe handoff" and checks the agent sent AWKWARD_HANDOFF_SENT).
 */
export async function handoffFromAwkwardProject(home: { root: string; env: DriverEnv }, to: string): Promise<string> {
  const project = join(home.root, `it's a "$HOME" \`id\` dir! $(echo x)`);
  await fs.mkdir(project, { recursive: true });
  const session = chainSession('awkward', 'pi', project, [
    ['u', textMessage('user', 'remember the word quokka')],
    ['a', textMessage('assistant', 'quokka noted')],
  ]);
  const sources = new Sources(home.env);
  let source: SessionInfo;
  try {
    source = (await sources.driver('pi').writeSession?.(session)) as SessionInfo;
  } finally {
    await sources.close();
  }
  const printed = JSON.parse(await runCliOk(home.env, ['handoff', source.id, '--source', 'pi', '--to', to, '--json'])) as {
    command: string;
  };
  return printed.command;
}

/**
 * Runs a printed command plus `extra` (already shell words) with bash in `cwd` and `env`, as a user
 * pasting it would, stdin closed (else the agents wait to read more prompt); its stdout and stderr.
 */
export async function runPastedCommand(cwd: string, command: string, extra: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await promisify(execFile)('bash', ['-c', `${command} ${extra} < /dev/null`], { cwd, timeout: 120_000, env });
  return r.stdout + r.stderr;
}

/**
 * Converts the session an agent resumed (`id` in `agent`) back into Claude Code and asserts nothing
 * was lost: the source's items, then the probe and the stand-in's answer `ok: <probe>`, last.
 * `items`: how contextItems renders the Claude Code context (as the test rendered `source`).
 */
export async function expectBackInClaudeCode(
  home: AgentHome,
  agent: string,
  id: string,
  source: readonly string[],
  probe: string,
  items: { ids?: boolean; trimResults?: boolean } = {},
): Promise<void> {
  const back = await convertInto(home, id, agent, 'claude');
  const got = contextItems(await readContext(home, 'claude', back.id), items);
  expectInOrder(got, [...source, `user:${probe}`, `assistant:ok: ${probe}`]);
  expect(got.slice(-2)).toEqual([`user:${probe}`, `assistant:ok: ${probe}`]);
  await expectResumedByClaudeCode(home, back, `${probe} again in claude`, items);
}

/**
 * The real Claude Code resumes a session written into it (`back`) with `probe`: it sends threadbase's
 * context of it, item for item and turn for turn (no reply joined into another), and the probe.
 */
export async function expectResumedByClaudeCode(
  home: AgentHome,
  back: ConvertedSession,
  probe: string,
  items: { ids?: boolean; trimResults?: boolean } = {},
): Promise<void> {
  const context = await readContext(home, 'claude', back.id);
  const turns = contextToAnthropic(context).messages.map((m) => m.role);
  // (Claude Code sends its environment as a message of role system, which no context holds)
  const sent = (await resumeInTarget(home, 'claude', back, probe)).filter((m) => (m.role as string) !== 'system');
  const drop = (b: AnthropicBlock) => b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>');
  expect(anthropicRequestItems(sent as AnthropicMessage[], { ...items, drop })).toEqual([
    ...contextItems(context, items),
    `user:${probe}`,
  ]);
  expect(sent.map((m) => m.role)).toEqual([...turns, 'user']);
}
