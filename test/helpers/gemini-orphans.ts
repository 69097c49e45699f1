/**
 * A Gemini CLI project whose main chat ran two sub-agents: one its call names (`agentId`), one it does
 * not (placed by its prompt), as the orphan sub-agent tests read it, and a writer of further sub-agent chats.
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
