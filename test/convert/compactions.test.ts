/**
 * Compactions in layouts another agent records, converted into Claude Code and OpenCode stores
 * (temp HOME): the target's context is still the summary, the kept messages, then what followed.
 * - pi keeps from its session's first entry, a model change, which no target writes;
 * - Claude Code's `--fork-session` copy starts at the boundary: the kept messages follow it, with
 *   earlier times than the boundary's own;
 * - codex keeps the user's messages in the compaction record itself (`replacement_history`), before
 *   the summary, not as entries.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import { branchSummaryText } from '../../src/formats/pi/records.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { branchedSession, secondInto2026, textEntry } from '../helpers/sessions.js';

const OPENCODE_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
const t = secondInto2026;

let home: string;
let env: DriverEnv;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-compactions-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  copyFileSync(OPENCODE_DB, join(home, '.local', 'share', 'opencode', 'opencode.db'));
  env = { home, env: {} };
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const msg = textEntry;

/** The texts of the target's context, without the compaction wording around the summary. */
async function contextTexts(agent: string, id: string): Promise<string[]> {
  const ctx = await new Sources(env).driver(agent).getContext(id);
  return (
    ctx.messages
      // Claude Code ends each but the last of consecutive user records with a newline
      .map((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text.trimEnd()] : [])).join(' '))
      .filter((x) => x !== 'What did we do so far?')
  );
}

describe('compactions another agent laid out', () => {
  it("pi's keep-from-the-first-entry (a model change) keeps every message in Claude Code and OpenCode, on one path and as a tree", async () => {
    const session: Session = {
      id: 'pi-like',
      source: 'pi',
      project: join(home, 'p'),
      createdAt: t(0),
      updatedAt: t(6),
      messageCount: 4,
      entries: [
        { kind: 'model_change', id: 'mc', parentId: null, timestamp: t(0), model: 'claude-sonnet-4-5', provider: 'anthropic' },
        msg('u1', 'mc', 1, 'user', 'first question'),
        msg('a1', 'u1', 2, 'assistant', 'first answer'),
        { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(3), summary: 'SUMMARY', firstKeptEntryId: 'mc' },
        msg('u2', 'c', 4, 'user', 'after'),
        msg('a2', 'u2', 5, 'assistant', 'done'),
      ],
    };
    const expected = ['SUMMARY', 'first question', 'first answer', 'after', 'done'];
    for (const to of ['claude', 'opencode']) {
      const [written] = await convertSessionAll(session, { to, env });
      expect(await contextTexts(to, written?.id as string), to).toEqual(expected);
    }
    // --all-branches into Claude Code writes the tree as it is, with the same fix
    const [tree] = await convertSessionAll(session, { to: 'claude', env, allBranches: true });
    expect(await contextTexts('claude', tree?.id as string)).toEqual(expected);
  });

  /**
   * pi's compaction right after `/tree` keeps from the branch summary (findCutPoint takes the entries
   * before the kept prompt that are no messages), so the first kept entry is a branch_summary
   * (test/agents/pi-branches.test.ts, with the real pi): re-pointed at the prompt after it, the
   * summary was lost.
   */
  it("pi's compaction that keeps from a branch summary keeps the summary in Claude Code and OpenCode", async () => {
    const branched = branchedSession('pi-branch-kept', 'pi', join(home, 'p'), { summary: 'BRANCH SUMMARY' });
    const session: Session = {
      ...branched,
      updatedAt: t(8),
      messageCount: 6,
      entries: [
        ...branched.entries,
        { kind: 'compaction', id: 'c', parentId: 'a2', timestamp: t(6), summary: 'SUMMARY', firstKeptEntryId: 'bs' },
        msg('u3', 'c', 7, 'user', 'after'),
        msg('a3', 'u3', 8, 'assistant', 'done'),
      ],
    };
    // the branch summary as pi words it (test/convert/branch-summaries.test.ts)
    const expected = ['SUMMARY', branchSummaryText('BRANCH SUMMARY'), 'on the new branch', 'new answer', 'after', 'done'];
    for (const to of ['claude', 'opencode']) {
      const [written] = await convertSessionAll(session, { to, env });
      expect(await contextTexts(to, written?.id as string), to).toEqual(expected);
    }
  });

  it("Claude Code's fork layout (kept messages after the boundary, dated before it) keeps them after the summary in OpenCode", async () => {
    const session: Session = {
      id: 'claude-fork-like',
      source: 'claude',
      project: join(home, 'p'),
      createdAt: t(0),
      updatedAt: t(20),
      messageCount: 4,
      entries: [
        { kind: 'compaction', id: 'c', parentId: null, timestamp: t(10), summary: 'SUMMARY', firstKeptEntryId: 'k1' },
        msg('k1', 'c', 2, 'assistant', 'kept answer'),
        msg('k2', 'k1', 3, 'user', 'kept question'),
        msg('u', 'k2', 11, 'user', 'in the fork'),
        msg('a', 'u', 12, 'assistant', 'forked answer'),
      ],
    };
    const [written] = await convertSessionAll(session, { to: 'opencode', env });
    expect(await contextTexts('opencode', written?.id as string)).toEqual([
      'SUMMARY',
      'kept answer',
      'kept question',
      'in the fork',
      'forked answer',
    ]);
  });

  it("codex's replacement history: the messages codex kept follow the summary in every target, on one path and as a tree", async () => {
    const env0 = '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>';
    const item = (role: string, text: string) => ({
      type: 'message',
      role,
      content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
    });
    const line = (s: number, type: string, payload: object) => JSON.stringify({ timestamp: t(s), type, payload });
    const file = join(home, 'rollout-2026-01-04T00-00-00-01a20600-0000-7000-8000-0000000c0de5.jsonl');
    writeFileSync(
      file,
      `${[
        line(0, 'session_meta', { id: '01a20600-0000-7000-8000-0000000c0de5', cwd: join(home, 'p'), model_provider: 'standin' }),
        line(1, 'response_item', item('user', env0)),
        line(2, 'response_item', item('user', 'first question')),
        line(3, 'response_item', item('assistant', 'first answer')),
        line(4, 'compacted', {
          message: `${SUMMARY_PREFIX}\nSUMMARY`,
          replacement_history: [
            item('developer', 'codex instructions'),
            item('user', env0),
            item('user', 'first question'),
            item('user', `${SUMMARY_PREFIX}\nSUMMARY`),
          ],
        }),
        line(5, 'response_item', item('user', 'second question')),
        line(6, 'response_item', item('assistant', 'second answer')),
      ].join('\n')}\n`,
    );
    const session = await readRollout(file);
    // each target's summary, then what codex kept (its instructions are a system message no target sends), then the rest
    const expected = ['SUMMARY', env0, 'first question', 'second question', 'second answer'];
    for (const to of ['claude', 'opencode', 'pi']) {
      const [written] = await convertSessionAll(session, { to, env });
      const texts = await contextTexts(to, written?.id as string);
      // pi wraps its summary; texts joined, as neighbouring user messages are one turn to the API
      expect(texts.join('\n').replace(/^[\s\S]*<summary>\n(SUMMARY)\n<\/summary>/, '$1'), to).toBe(expected.join('\n'));
    }
    const [tree] = await convertSessionAll(session, { to: 'claude', env, allBranches: true });
    expect((await contextTexts('claude', tree?.id as string)).join('\n')).toBe(expected.join('\n'));
    // a copy within codex keeps codex's own compaction record, and nothing twice
    const [copy] = await convertSessionAll(session, { to: 'codex', env });
    const own = (await contextTexts('codex', copy?.id as string)).join('\n');
    expect(own.split('first question').length).toBe(2);
    expect(own).toBe(
      ['codex instructions', env0, 'first question', `${SUMMARY_PREFIX}\nSUMMARY`, 'second question', 'second answer'].join('\n'),
    );
  });
});
