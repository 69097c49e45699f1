/**
 * A pi session file with a branch summary, as pi's SessionManager.branchWithSummary leaves one: a
 * question (u1000001, a1000001), a branch left behind (ul000001, al000001), the branch_summary
 * bs000001 hanging from a1000001 (fields of `summary` over pi's own), and the new branch after it
 * (u2000001, a2000001). Shared by the tests that carry pi's branch summaries through other agents.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionDirName } from '../../src/formats/pi/records.js';

export const PI_BRANCH_SUMMARY_TEXT = 'The branch left behind answered the left question.';

/** Writes the file under `home`'s pi sessions of `project`, its records at `hour`:00:0s; returns its path. */
export function writePiBranchSummaryFile(
  opts: { home: string; project: string; id: string; hour: number },
  summary: Record<string, unknown> = {},
): string {
  const hh = String(opts.hour).padStart(2, '0');
  const at = (s: number) => `2026-11-26T${hh}:00:0${s}.000Z`;
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
  const records = [
    { type: 'session', version: 3, id: opts.id, timestamp: at(0), cwd: opts.project },
    msg('u1000001', null, 1, 'user', 'first question'),
    msg('a1000001', 'u1000001', 2, 'assistant', 'first answer'),
    msg('ul000001', 'a1000001', 3, 'user', 'the left question'),
    msg('al000001', 'ul000001', 4, 'assistant', 'the left answer'),
    {
      type: 'branch_summary',
      id: 'bs000001',
      parentId: 'a1000001',
      timestamp: at(5),
      fromId: 'a1000001',
      summary: PI_BRANCH_SUMMARY_TEXT,
      ...summary,
    },
    msg('u2000001', 'bs000001', 6, 'user', 'on the new branch'),
    msg('a2000001', 'u2000001', 7, 'assistant', 'new answer'),
  ];
  const dir = join(opts.home, '.pi', 'agent', 'sessions', sessionDirName(opts.project));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `2026-11-26T${hh}-00-00-000Z_${opts.id}.jsonl`);
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}
