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
import type { DriverEnv } from '../../src/model/driver.js';
import '../../src/formats/all.js';
import { stoppedCallTranscript } from '../helpers/claude-stopped.js';
import { readSession } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const ID = '3c1e0c52-2b7e-4b61-9a53-0d6f1d2a7c33';
const PROJECT = '/tmp/tb-claude-additions-losses';

/** Claude Code's SessionStart hook context, then the stopped call. */
const transcript = () =>
  stoppedCallTranscript({
    id: ID,
    cwd: PROJECT,
    lead: [
      {
        type: 'attachment',
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
    ],
  });

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
