/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102) run offline against the Anthropic stand-in, in a
 * temp home: node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it COPILOT_SKIP says why.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { copilotOfflineEnv } from './agents.js';
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type Rule,
  type StandIn,
  startAnthropicStandIn,
} from './anthropic-standin.js';
import { chainSession, textMessage } from './sessions.js';

const run = promisify(execFile);

export const COPILOT_BIN = [resolve('node_modules/.bin/copilot'), process.env.THREADBASE_COPILOT_BIN ?? ''].find(
  (p) => p && existsSync(p),
);
export const COPILOT_SKIP = COPILOT_BIN
  ? false
  : 'no copilot binary: node_modules/.bin/copilot (devDependency @github/copilot) or $THREADBASE_COPILOT_BIN';
/** The model copilotOfflineEnv names. */
export const COPILOT_MODEL = 'claude-sonnet-4.5';

/** A temp home for Copilot CLI: its project, the stand-in it talks to, a driver reading its sessions. */
export interface CopilotHome {
  dir: string;
  project: string;
  env: DriverEnv;
  standIn: StandIn;
  driver: CopilotDriver;
}

/** A new home under the temp dir (`prefix` names it) with the stand-in answering by `rules`, then its defaults. */
export async function setupCopilotHome(prefix: string, rules: Rule[] = []): Promise<CopilotHome> {
  const dir = await fs.mkdtemp(join(tmpdir(), prefix));
  const project = join(dir, 'proj');
  await fs.mkdir(project, { recursive: true });
  const standIn = await startAnthropicStandIn({ rules });
  const env: DriverEnv = { home: dir, env: { HOME: dir, COPILOT_HOME: join(dir, '.copilot') } };
  return { dir, project, env, standIn, driver: new CopilotDriver(env) };
}

/** Stops the stand-in and removes the home (neither is there when set-up was skipped). */
export async function closeCopilotHome(h: CopilotHome | undefined): Promise<void> {
  if (!h?.dir) return;
  await h.standIn.close();
  await fs.rm(h.dir, { recursive: true, force: true });
}

/**
 * A home for this test file: set up (setupCopilotHome) before its tests unless COPILOT_SKIP, closed after
 * them; the object returned is filled in place, so a test reads it as it is then.
 */
export function copilotHomeForFile(prefix: string, rules: Rule[] = []): CopilotHome {
  const home = {} as CopilotHome;
  beforeAll(async () => {
    if (COPILOT_SKIP) return;
    Object.assign(home, await setupCopilotHome(prefix, rules));
  });
  afterAll(() => closeCopilotHome(home));
  return home;
}

/** `copilot <args> --no-auto-update` in the home's project. */
export function runCopilot(h: CopilotHome, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(COPILOT_BIN as string, [...args, '--no-auto-update'], {
    cwd: h.project,
    timeout: 180_000,
    env: copilotOfflineEnv(h.dir, h.standIn.url),
  });
}

/** A message as sent, without what only steers caching. */
export function plainMessage(m: AnthropicMessage): AnthropicMessage {
  const blocks: AnthropicBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  return { role: m.role, content: blocks.map(({ cache_control: _c, ...b }) => b) };
}

/** plainMessage, and a tool result of one text as that text: Copilot CLI sends one either way. */
export function plainTextResults(m: AnthropicMessage): AnthropicMessage {
  const { role, content } = plainMessage(m);
  return {
    role,
    content: (content as AnthropicBlock[]).map((b) =>
      b.type === 'tool_result' && Array.isArray(b.content) && b.content.length === 1 && b.content[0]?.type === 'text'
        ? { ...b, content: b.content[0].text }
        : b,
    ),
  };
}

/**
 * Resumes session `id` with `probe` (`copilot --resume=<id> -p <probe> --allow-all-tools`): the messages
 * Copilot CLI sent before it, and threadbase's context of the session, each made `plain`.
 */
export async function resumedByCopilot(
  h: CopilotHome,
  id: string,
  probe: string,
  plain: (m: AnthropicMessage) => AnthropicMessage = plainMessage,
): Promise<{ sent: AnthropicMessage[]; ours: AnthropicMessage[] }> {
  const ours = (contextToAnthropic(await h.driver.getContext(id)).messages as AnthropicMessage[]).map(plain);
  const before = h.standIn.messageRequests().length;
  await runCopilot(h, [`--resume=${id}`, '-p', probe, '--allow-all-tools']);
  const sent = (h.standIn.messageRequests()[before]?.messages ?? []).map(plain);
  expect(JSON.stringify(sent.pop())).toContain(probe);
  return { sent, ours };
}

/**
 * A session of three responses (usage, response ids) with these stop reasons, API and provider: a call
 * answered, a reply cut short, a reply after the user's next message (test/formats/copilot-finish.test.ts).
 */
export function stopsSession(
  source: string,
  project: string,
  stops: [string, string, string],
  api: string,
  provider: string,
): Session {
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const reply = (responseId: string, stopReason: string, parts: Message['parts']): Message => ({
    role: 'assistant',
    model: COPILOT_MODEL,
    provider,
    api,
    responseId,
    usage,
    stopReason,
    parts,
  });
  return chainSession('stops', source, project, [
    ['u1', textMessage('user', 'list it')],
    ['a1', reply('msg_1', stops[0], [{ type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }])],
    ['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }],
    ['a2', reply('msg_2', stops[1], [{ type: 'text', text: 'It holds a.t' }])],
    ['u2', textMessage('user', 'go on')],
    ['a3', reply('msg_3', stops[2], [{ type: 'text', text: 'a.txt' }])],
  ]);
}

/** One event of a Copilot CLI events.jsonl. */
export type CopilotEvent = {
  type: string;
  data: Record<string, unknown>;
  id: string;
  timestamp: string;
  parentId: string | null;
};

/** An event of `type` with a new id, at a fixed time, its parentId left for writeCopilotEvents. */
export const copilotEvent = (type: string, data: Record<string, unknown>): CopilotEvent => ({
  type,
  data,
  id: randomUUID(),
  timestamp: '2026-01-01T00:00:30.000Z',
  parentId: null,
});

/** A user.message event of `content`, with Copilot CLI's `delivery` (idle, steering, queued) if given. */
export const userMessageEvent = (content: string, delivery?: string): CopilotEvent =>
  copilotEvent('user.message', {
    content,
    transformedContent: content,
    messageId: randomUUID(),
    ...(delivery ? { delivery } : {}),
  });

/** Where the tool.execution_complete events stand in `events`. */
export const completionIndexes = (events: CopilotEvent[]): number[] =>
  events.flatMap((e, i) => (e.type === 'tool.execution_complete' ? [i] : []));

/** `events`, each one's parentId the one before it, as session `id`'s events.jsonl in the home; its folder. */
export async function writeCopilotEvents(h: CopilotHome, id: string, events: CopilotEvent[]): Promise<string> {
  events.forEach((e, n) => {
    if (n > 0) e.parentId = (events[n - 1] as CopilotEvent).id;
  });
  const dir = join(h.dir, '.copilot', 'session-state', id);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return dir;
}

/** A bash call of `echo <n>`. */
export const echoCall = (id: string, n: number) => ({
  type: 'tool_call' as const,
  id,
  name: 'bash',
  input: { command: `echo ${n}` },
});

/** A tool message of one call's result. */
export const toolResult = (callId: string, text: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool_result', callId, content: text }],
});

/** A reply of COPILOT_MODEL, response `responseId`, of these parts. */
export const modelReply = (responseId: string, ...parts: Message['parts']): Message => ({
  role: 'assistant',
  responseId,
  model: COPILOT_MODEL,
  parts,
});

/**
 * A response with two calls answered (`echo 1`, `echo 2`: out1, out2; then `done`), as Copilot CLI records
 * it, edited, as a new session in the home; its id.
 */
export async function recordedTwoCalls(h: CopilotHome, edit: (events: CopilotEvent[]) => CopilotEvent[]): Promise<string> {
  const id = randomUUID();
  const base = chainSession('base', 'copilot', h.project, [
    ['u1', textMessage('user', 'go')],
    ['a1', modelReply('msg_r1', echoCall('toolu_c1', 1), echoCall('toolu_c2', 2))],
    ['t1', toolResult('toolu_c1', 'out1')],
    ['t2', toolResult('toolu_c2', 'out2')],
    ['a2', modelReply('msg_r2', { type: 'text', text: 'done' })],
  ]);
  await writeCopilotEvents(h, id, edit(encodeCopilotEvents(base, { sessionId: id }).records as unknown as CopilotEvent[]));
  return id;
}

/**
 * Each message sent as its role and its blocks in short: `text <text>`, `use <id>`, `result <id>: <content>`;
 * `lastLine`: a text's last line only; `json`: a result's content as JSON, ` (error)` after an error's.
 */
export function sentShape(
  ms: readonly AnthropicMessage[],
  { lastLine = false, json = false }: { lastLine?: boolean; json?: boolean } = {},
): [string, string[]][] {
  return ms.map((m) => [
    m.role,
    (m.content as AnthropicBlock[]).map((b) =>
      b.type === 'text'
        ? `text ${lastLine ? String(b.text).split('\n').at(-1) : String(b.text)}`
        : b.type === 'tool_use'
          ? `use ${b.id}`
          : json
            ? `result ${b.tool_use_id}: ${JSON.stringify(b.content)}${b.is_error ? ' (error)' : ''}`
            : `result ${b.tool_use_id}: ${b.content}`,
    ),
  ]);
}
