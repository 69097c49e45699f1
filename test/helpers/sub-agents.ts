/**
 * Shared by the tests of sub-agent sessions carried by `convert` (test/convert/sub-agent*.test.ts):
 * the real fixtures' parents and sub-agents, the CLI's --json row, and the check that a written
 * sub-agent is the original's, under the written parent, naming the same call.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { runCli } from './cli.js';
import { homeEnv } from './fixture-homes.js';
import { messageEntry, textEntry, textMessage } from './sessions.js';

/** Claude Code's real fixture session that ran an Agent call, and that sub-agent's transcript. */
export const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
export const CLAUDE_CHILD = 'ac5303661b5759184';
/** OpenCode's real fixture session that ran its task tool, and the child session it made. */
export const OPENCODE_PARENT = 'ses_dfb2d8bdcffeotnpBnkmESBZNt';
export const OPENCODE_CHILD = 'ses_dfb2d843dffeQY667zsxus2rOr';

/** What `convert --json` prints for a written session (and its sub-agents). */
export interface ConvertedRow {
  id: string;
  source: string;
  path: string | null;
  parentToolCallId?: string;
  warnings?: string[];
  children?: ConvertedRow[];
}

/** `threadbase convert <id> [--source <from>] --to <to> --json` from the agents' files. */
export async function convertRow(env: DriverEnv, id: string, to: string, from?: string): Promise<ConvertedRow> {
  const r = await runCli(env, ['convert', id, ...(from ? ['--source', from] : []), '--to', to, '--json', '--no-index']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as ConvertedRow;
}

/** Every text the messages hold (text, tool input and output), as one list. */
export function textsOf(messages: readonly Message[]): string[] {
  return messages.flatMap((m) =>
    m.parts.flatMap((p) => {
      if (p.type === 'text') return [p.text];
      if (p.type === 'tool_call') return [JSON.stringify(p.input)];
      if (p.type === 'tool_result') return typeof p.content === 'string' ? [p.content] : [];
      return [];
    }),
  );
}

export async function sessionIn(env: DriverEnv, source: string, id: string): Promise<Session> {
  const s = await new Sources(env).driver(source).getSession(id);
  if (!s) throw new Error(`no ${source} session ${id}`);
  return s;
}

export const callIds = (s: Session): string[] =>
  s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])) : []));

/**
 * The written child is listed under the written parent, names one of its calls (the one that ran the
 * original), and holds every text of the original; no sub-agent was left out.
 */
export async function expectCarried(env: DriverEnv, to: string, out: ConvertedRow, from: { source: string; id: string }) {
  expect(out.warnings?.join('\n') ?? '').not.toContain('sub-agent session(s)');
  expect(out.children, JSON.stringify(out)).toHaveLength(1);
  const row = out.children?.[0] as ConvertedRow;
  expect(row.source).toBe(to);
  const sources = new Sources(env);
  const listed = await sources.driver(to).listSessions({ parentId: out.id });
  expect(listed.map((s) => s.id)).toEqual([row.id]);
  const parent = await sessionIn(env, to, out.id);
  const child = await sessionIn(env, to, row.id);
  expect(child.parentId).toBe(out.id);
  expect(child.parentToolCallId).toBeDefined();
  expect(callIds(parent)).toContain(child.parentToolCallId);
  expect(row.parentToolCallId).toBe(child.parentToolCallId);
  const original = await sessionIn(env, from.source, from.id);
  expect(child.parentToolCallId).toBe(original.parentToolCallId);
  const sent = textsOf(await sources.driver(to).getMessages(child.id));
  for (const text of textsOf(await sources.driver(from.source).getMessages(from.id))) expect(sent).toContain(text);
  return { parent, child, row };
}

/** A session whose assistant runs `call` (a task), answered, then says `last`; `link` makes it a sub-agent. */
export function withTask(
  id: string,
  prompt: string,
  call: string,
  last: string,
  link?: { parentId: string; call: string },
): Session {
  const model = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
  return {
    id,
    source: 'threadbase',
    title: prompt,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:04.000Z',
    messageCount: 4,
    ...(link ? { parentId: link.parentId, parentToolCallId: link.call } : {}),
    entries: [
      textEntry(`${id}-u1`, null, 1, 'user', prompt),
      messageEntry(`${id}-a1`, `${id}-u1`, 2, {
        role: 'assistant',
        ...model,
        parts: [{ type: 'tool_call', id: call, name: 'task', input: { prompt: `${prompt}, deeper` } }],
      }),
      messageEntry(`${id}-r1`, `${id}-a1`, 3, {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: call, content: `${id} ran` }],
      }),
      messageEntry(`${id}-a2`, `${id}-r1`, 4, textMessage('assistant', last, model)),
    ],
    leafId: `${id}-a2`,
  };
}

/** A parent P whose Task call call_p ran sub-agent C, whose call call_c ran G: three levels in `project`. */
export interface SubAgentTree {
  parent: Session;
  child: Session;
  grandchild: Session;
  childrenOf: (id: string) => Promise<Session[]>;
}

export function subAgentTree(project: string): SubAgentTree {
  const parent = { ...withTask('P', 'plan it', 'call_p', 'all done'), project };
  const child = { ...withTask('C', 'look around', 'call_c', 'looked', { parentId: 'P', call: 'call_p' }), project };
  const grandchild = { ...withTask('G', 'look deeper', 'call_g', 'found it', { parentId: 'C', call: 'call_c' }), project };
  const byParent = new Map([
    ['P', [child]],
    ['C', [grandchild]],
  ]);
  return { parent, child, grandchild, childrenOf: async (id) => byParent.get(id) ?? [] };
}

/** A new temp HOME (`prefix`…, the caller removes it) with subAgentTree in its `project` folder. */
export function homeWithSubAgentTree(prefix: string): { home: string; env: DriverEnv; project: string; tree: SubAgentTree } {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const project = join(home, 'project');
  mkdirSync(project, { recursive: true });
  return { home, env: homeEnv(home), project, tree: subAgentTree(project) };
}
