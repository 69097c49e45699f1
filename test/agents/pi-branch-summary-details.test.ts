/**
 * A pi branch summary's details and fromHook, carried through Claude Code and back into pi by
 * threadbase, as the real pi resumes it: pi sends the summary (as it sends its own) and appends after
 * the records threadbase wrote, which keep both fields.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionDirName } from '../../src/formats/pi/records.js';
import { type AgentHome, runPi, setupAgentHome } from '../helpers/agents.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';

let home: AgentHome;
beforeAll(async () => {
  home = await setupAgentHome();
});
afterAll(async () => {
  await home?.close();
});

const ID = '0b7e1a2c-0000-4000-8000-0000000000e1';
const DETAILS = { readFiles: ['src/a.ts'], modifiedFiles: [] };
const at = (s: number) => `2026-11-26T04:00:0${s}.000Z`;

describe('a pi branch summary with details, through Claude Code and back into the real pi', () => {
  it('pi sends its summary and the records keep details and fromHook', async () => {
    const msg = (id: string, parentId: string | null, s: number, role: 'user' | 'assistant', text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: at(s),
      message:
        role === 'user'
          ? { role, content: [{ type: 'text', text }], timestamp: Date.parse(at(s)) }
          : {
              role,
              content: [{ type: 'text', text }],
              api: 'anthropic-messages',
              provider: 'anthropic',
              model: 'claude-sonnet-4-5',
              usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
              stopReason: 'stop',
              timestamp: Date.parse(at(s)),
            },
    });
    const summary = {
      type: 'branch_summary',
      id: 'bs000001',
      parentId: 'a1000001',
      timestamp: at(5),
      fromId: 'a1000001',
      summary: 'The left branch answered the left question.',
      details: DETAILS,
      fromHook: true,
    };
    const records = [
      { type: 'session', version: 3, id: ID, timestamp: at(0), cwd: home.project },
      msg('u1000001', null, 1, 'user', 'first question'),
      msg('a1000001', 'u1000001', 2, 'assistant', 'first answer'),
      msg('ul000001', 'a1000001', 3, 'user', 'the left question'),
      msg('al000001', 'ul000001', 4, 'assistant', 'the left answer'),
      summary,
      msg('u2000001', 'bs000001', 6, 'user', 'on the new branch'),
      msg('a2000001', 'u2000001', 7, 'assistant', 'new answer'),
    ];
    const dir = join(home.root, '.pi', 'agent', 'sessions', sessionDirName(home.project));
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      join(dir, `2026-11-26T04-00-00-000Z_${ID}.jsonl`),
      `${records.map((r) => JSON.stringify(r)).join('\n')}\n`,
    );

    const claude = JSON.parse(await runCliOk(home.env, ['convert', ID, '--to', 'claude', '--json'])) as { id: string };
    const back = JSON.parse(await runCliOk(home.env, ['convert', claude.id, '--to', 'pi', '--json'])) as { path: string };
    await runPi(home, ['--session', back.path, '-p', 'pi probe']);

    const sent = home.standIn.messageRequests().at(-1);
    const texts = (sent?.messages ?? []).map((m) => textOf(m));
    expect(texts.at(-1)).toContain('pi probe');
    expect(texts.some((t) => t.includes('The left branch answered the left question.'))).toBe(true);
    const lines = (await fs.readFile(back.path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [record] = lines.filter((r) => r.type === 'branch_summary');
    expect(record).toMatchObject({ summary: summary.summary, details: DETAILS, fromHook: true });
    // pi appended its turn after them
    expect(lines.some((r) => r.type === 'message' && JSON.stringify(r).includes('pi probe'))).toBe(true);
  }, 120_000);
});
