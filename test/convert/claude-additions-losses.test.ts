/**
 * The loss lines of a Claude Code session converted into pi count what is written, after Claude
 * Code's sent wording (convert/sent-wording.ts): its hook output goes in as a user message in the words
 * Claude Code sent, no metadata pi ignores, and a call stopped while it ran keeps Claude Code's words
 * (denials.ts stoppedCallsInClaudeWords), not reworded in pi's. Both were counted before the wording.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import { convertSession } from '../../src/convert/session.js';
import { REJECTED_TOOL_RESULT } from '../../src/formats/claude/denials.js';
import type { DriverEnv } from '../../src/model/driver.js';
import '../../src/formats/all.js';
import { readSession } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const ID = '3c1e0c52-2b7e-4b61-9a53-0d6f1d2a7c33';
const PROJECT = '/tmp/tb-claude-additions-losses';
const STOPPED = `${REJECTED_TOOL_RESULT} Correction to the text above: this call was stopped while running, not refused before it ran. It may have run in part or in full, and its changes may have been written. No permission prompt was involved. Work it started elsewhere (a remote command, a background process) may still be running, so check before starting the same work again. The instruction to stop and wait still stands.`;

function transcript(): string {
  const base = { sessionId: ID, cwd: PROJECT, version: '2.1.332', isSidechain: false, userType: 'external' };
  const at = (s: number) => `2026-11-27T04:00:0${s}.000Z`;
  const u = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  return [
    {
      ...base,
      type: 'attachment',
      uuid: u(1),
      parentUuid: null,
      timestamp: at(0),
      attachment: {
        type: 'hook_additional_context',
        content: ['SS-CONTEXT from hook'],
        hookName: 'SessionStart',
        toolUseID: 'SessionStart',
        hookEvent: 'SessionStart',
      },
      rendered: [
        { content: '<system-reminder>\nSessionStart hook additional context: SS-CONTEXT from hook\n</system-reminder>' },
      ],
      renderedRole: 'system',
    },
    {
      ...base,
      type: 'user',
      uuid: u(2),
      parentUuid: u(1),
      timestamp: at(1),
      message: { role: 'user', content: 'RUN: sleep 20' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: u(3),
      parentUuid: u(2),
      timestamp: at(2),
      message: {
        id: 'msg_losses',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'sleep 20' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 2 },
      },
    },
    {
      ...base,
      type: 'user',
      uuid: u(4),
      parentUuid: u(3),
      timestamp: at(3),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: STOPPED }] },
      toolUseResult: 'User rejected tool use',
      toolDenialKind: 'user-rejected',
    },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
}

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home, env } = await fixtureHome({ prefix: 'tb-claude-additions-losses-' }));
  const dir = join(home, '.claude', 'projects', PROJECT.replace(/[^A-Za-z0-9]/g, '-'));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, `${ID}.jsonl`), `${transcript()}\n`);
});
afterAll(async () => {
  if (home) await fs.rm(home, { recursive: true, force: true });
});

describe('losses of a Claude Code session into pi, counted after its sent wording', () => {
  it('says neither the carried hook output as metadata nor the stopped call as reworded', async () => {
    const lines = conversionLosses(await readSession({ env }, 'claude', ID), 'pi');
    expect(lines.filter((l) => l.includes('metadata'))).toEqual([]);
    expect(lines.filter((l) => l.includes('refused or cancelled'))).toEqual([]);
  });

  it('nor does the conversion itself', async () => {
    const written = await convertSession(await readSession({ env }, 'claude', ID), { to: 'pi', env });
    const warnings = (written.meta?.warnings ?? []) as string[];
    expect(warnings.filter((l) => l.includes('metadata') || l.includes('refused or cancelled'))).toEqual([]);
  });

  it('a call cancelled before it ran is still said reworded', async () => {
    const s = await readSession({ env }, 'claude', ID);
    const cancelled = {
      ...s,
      entries: s.entries.map((e) =>
        e.kind === 'message' && e.message.parts.some((p) => p.type === 'tool_result')
          ? {
              ...e,
              message: {
                ...e.message,
                parts: e.message.parts.map((p) =>
                  p.type === 'tool_result' ? { ...p, content: 'interrupted', meta: { ...p.meta, cancelled: true } } : p,
                ),
              },
            }
          : e,
      ),
    };
    expect(conversionLosses(cancelled, 'pi').filter((l) => l.includes('refused or cancelled'))).toHaveLength(1);
  });
});
