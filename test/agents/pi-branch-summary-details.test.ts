/**
 * A pi branch summary's details and fromHook, carried through Claude Code and back into pi by
 * threadbase, as the real pi resumes it: pi sends the summary (as it sends its own) and appends after
 * the records threadbase wrote, which keep both fields.
 */
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentHomeForFile, runPi } from '../helpers/agents.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { writePiBranchSummaryFile } from '../helpers/pi-branch-summary.js';

const home = agentHomeForFile();

const ID = '0b7e1a2c-0000-4000-8000-0000000000e1';
const SUMMARY = 'The left branch answered the left question.';
const DETAILS = { readFiles: ['src/a.ts'], modifiedFiles: [] };

describe('a pi branch summary with details, through Claude Code and back into the real pi', () => {
  it('pi sends its summary and the records keep details and fromHook', async () => {
    writePiBranchSummaryFile(
      { home: home.root, project: home.project, id: ID, hour: 4 },
      { summary: SUMMARY, details: DETAILS, fromHook: true },
    );

    const claude = JSON.parse(await runCliOk(home.env, ['convert', ID, '--to', 'claude', '--json'])) as { id: string };
    const back = JSON.parse(await runCliOk(home.env, ['convert', claude.id, '--to', 'pi', '--json'])) as { path: string };
    await runPi(home, ['--session', back.path, '-p', 'pi probe']);

    const sent = home.standIn.messageRequests().at(-1);
    const texts = (sent?.messages ?? []).map((m) => textOf(m));
    expect(texts.at(-1)).toContain('pi probe');
    expect(texts.some((t) => t.includes(SUMMARY))).toBe(true);
    const lines = (await fs.readFile(back.path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [record] = lines.filter((r) => r.type === 'branch_summary');
    expect(record).toMatchObject({ summary: SUMMARY, details: DETAILS, fromHook: true });
    // pi appended its turn after them
    expect(lines.some((r) => r.type === 'message' && JSON.stringify(r).includes('pi probe'))).toBe(true);
  }, 120_000);
});
