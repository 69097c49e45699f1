/**
 * A Gemini CLI project whose main chat ran two sub-agents: one its call names (`agentId`), one it does
 * not (placed by its prompt), as the orphan sub-agent tests read it, and a writer of further sub-agent chats;
 * and a main chat of one sub-agent its call names.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const ORPHANS_MAIN = 'aaaaaaaa-1111-4222-8333-444455556666';

const lines = (xs: unknown[]) => `${xs.map((x) => JSON.stringify(x)).join('\n')}\n`;

/** A sub-agent chat `chats/<main id>/<id>.jsonl` given `prompt` at `start`. */
export function writeSubAgentChat(chats: string, id: string, start: string, prompt: string): Promise<void> {
  return writeFile(
    join(chats, ORPHANS_MAIN, `${id}.jsonl`),
    lines([
      { sessionId: id, projectHash: 'h', startTime: start, lastUpdated: start, kind: 'subagent', directories: ['/w'] },
      { id: `${id}-u`, timestamp: start, type: 'user', content: [{ text: prompt }] },
      { id: `${id}-g`, timestamp: start, type: 'gemini', content: 'ok', model: 'gemini-2.5-flash' },
    ]),
  );
}

/**
 * The main chat in `chats` (its two invoke_agent calls: `call-named` naming agent `named-1`, `call-bare`
 * naming none, as a record rewritten before agentId existed) and its sub-agents `named-1` and `bare-1`.
 * Returns the main chat's file.
 */
export async function writeOrphanProject(chats: string): Promise<string> {
  await mkdir(join(chats, ORPHANS_MAIN), { recursive: true });
  const call = (id: string, prompt: string, agentId?: string) => ({
    id,
    name: 'invoke_agent',
    args: { agent_name: 'generalist', prompt },
    status: 'success',
    timestamp: '2026-01-01T00:00:01.000Z',
    ...(agentId ? { agentId } : {}),
  });
  const mainFile = join(chats, `session-2026-01-01T00-00-${ORPHANS_MAIN.slice(0, 8)}.jsonl`);
  await writeFile(
    mainFile,
    lines([
      {
        sessionId: ORPHANS_MAIN,
        projectHash: 'h',
        startTime: '2026-01-01T00:00:00.000Z',
        lastUpdated: '2026-01-01T00:00:09.000Z',
      },
      { id: 'u', timestamp: '2026-01-01T00:00:00.000Z', type: 'user', content: [{ text: 'count and list' }] },
      {
        id: 'g',
        timestamp: '2026-01-01T00:00:01.000Z',
        type: 'gemini',
        content: '',
        toolCalls: [call('call-named', 'list the files', 'named-1'), call('call-bare', 'count the files')],
      },
      { id: 'g2', timestamp: '2026-01-01T00:00:09.000Z', type: 'gemini', content: 'Done.' },
    ]),
  );
  await writeSubAgentChat(chats, 'named-1', '2026-01-01T00:00:02.000Z', 'list the files');
  await writeSubAgentChat(chats, 'bare-1', '2026-01-01T00:00:03.000Z', 'count the files');
  return mainFile;
}

/**
 * A main chat `parent-1` in `chats` whose codebase_investigator call `call-9` names its sub-agent
 * (ToolCallRecord.agentId) `child-1`, and that sub-agent's chat.
 */
export async function writeLinkedSubAgent(chats: string): Promise<void> {
  await writeFile(
    join(chats, 'session-2026-01-01T00-00-parent-1.jsonl'),
    lines([
      { sessionId: 'parent-1', projectHash: 'h', startTime: 't0', lastUpdated: 't1' },
      { id: 'u', timestamp: '2026-01-01T00:00:00.000Z', type: 'user', content: 'investigate' },
      {
        id: 'g',
        timestamp: '2026-01-01T00:00:01.000Z',
        type: 'gemini',
        content: '',
        toolCalls: [{ id: 'call-9', name: 'codebase_investigator', args: {}, status: 'success', agentId: 'child-1' }],
      },
    ]),
  );
  await mkdir(join(chats, 'parent-1'), { recursive: true });
  await writeFile(
    join(chats, 'parent-1', 'child-1.jsonl'),
    lines([
      { sessionId: 'child-1', projectHash: 'h', startTime: 't1', lastUpdated: 't2', kind: 'subagent' },
      { id: 'c', timestamp: '2026-01-01T00:00:02.000Z', type: 'user', content: 'look' },
    ]),
  );
}
