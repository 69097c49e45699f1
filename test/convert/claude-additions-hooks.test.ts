/**
 * What Claude Code adds to the conversation from its attachment records (src/formats/claude/reminders.ts):
 * SessionStart / UserPromptSubmit hook context, a hook's plain output, a plan-mode reminder. The records
 * are as the real 2.1.332 wrote them (test/agents/claude-additions-hooks.test.ts records them live; the
 * plan-mode text shortened): each keeps what it sent as `rendered`. Carried into pi, Codex and OpenCode
 * they are user messages in those words, so those agents send the model what Claude Code sent; back
 * in Claude Code the hook output is its attachment record again and the rest a meta user record,
 * never both; the harness's own additions (environment, date) are not carried.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { encodeClaudeTranscript } from '../../src/formats/claude/encode.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { Session, SourceName } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { readSession } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const ID = '5f0c3a52-2b7e-4b61-9a53-0d6f1d2a7c10';
const PROJECT = '/tmp/tb-claude-additions';
const T = '2026-11-27T04:09:42.000Z';

const reminder = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`;
const SS = reminder('SessionStart hook additional context: SS-CONTEXT from hook');
const SS_PLAIN = reminder('SessionStart:startup hook success: PLAIN-SS from hook');
const UPS = reminder('UserPromptSubmit hook additional context: UPS-CONTEXT from hook\nsecond line');
const PLAN = reminder('Plan mode is active. The user indicated that they do not want you to execute yet.');
const ENV = reminder('# Environment\nYou have been invoked in the following environment: ');

let n = 0;
const rec = (type: string, fields: Record<string, unknown>) => {
  const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  return {
    uuid,
    type,
    isSidechain: false,
    userType: 'external',
    cwd: PROJECT,
    sessionId: ID,
    version: '2.1.332',
    timestamp: T,
    ...fields,
  };
};
const attachment = (a: Record<string, unknown>, rendered?: string, role = 'system') =>
  rec('attachment', { attachment: a, ...(rendered ? { rendered: [{ content: rendered }], renderedRole: role } : {}) });

function transcript(): Record<string, unknown>[] {
  const records = [
    attachment(
      {
        type: 'hook_success',
        hookName: 'SessionStart:startup',
        toolUseID: 'h1',
        hookEvent: 'SessionStart',
        content: 'PLAIN-SS from hook',
        stdout: 'PLAIN-SS from hook\n',
        stderr: '',
        exitCode: 0,
      },
      SS_PLAIN,
    ),
    attachment(
      {
        type: 'hook_additional_context',
        content: ['SS-CONTEXT from hook'],
        hookName: 'SessionStart',
        toolUseID: 'SessionStart',
        hookEvent: 'SessionStart',
      },
      SS,
    ),
    rec('user', { message: { role: 'user', content: 'hello there' } }),
    attachment({ type: 'environment', snapshot: { workingDirectory: PROJECT } }, ENV),
    attachment(
      { type: 'plan_mode', reminderType: 'full', isSubAgent: false, planFilePath: '/tmp/plan.md', planExists: false },
      PLAN,
    ),
    attachment(
      {
        type: 'hook_additional_context',
        content: ['UPS-CONTEXT from hook', 'second line'],
        hookName: 'UserPromptSubmit',
        toolUseID: 'hook-1',
        hookEvent: 'UserPromptSubmit',
      },
      UPS,
    ),
    rec('assistant', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-5-5',
        content: [{ type: 'text', text: 'hi' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 2 },
      },
    }),
    rec('user', { message: { role: 'user', content: 'second prompt' } }),
    rec('assistant', {
      message: {
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-5-5',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
  ];
  return records.map((r, i) => ({ parentUuid: i === 0 ? null : (records[i - 1] as { uuid: string }).uuid, ...r }));
}

let home: string;
let env: DriverEnv;
let source: Session;

beforeAll(async () => {
  // OpenCode's database (its schema) to write into
  ({ home, env } = await fixtureHome({ prefix: 'tb-claude-additions-', fixtures: ['opencode'] }));
  const dir = join(home, '.claude', 'projects', PROJECT.replace(/[^A-Za-z0-9]/g, '-'));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    join(dir, `${ID}.jsonl`),
    `${transcript()
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  source = await readSession({ env }, 'claude', ID);
});
afterAll(async () => {
  if (home) await fs.rm(home, { recursive: true, force: true });
});

async function hop(from: Session, to: SourceName): Promise<Session> {
  return readSession({ env }, to, (await convertSession(from, { to, env })).id);
}

/** The user texts `agent` sends resuming `s` (its context), in order. */
async function sentUserTexts(agent: string, s: Session): Promise<string[]> {
  const sources = new Sources(env);
  try {
    const ctx = await sources.driver(agent).getContext(s.id);
    return ctx.messages.flatMap((m) => (m.role === 'user' ? m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []));
  } finally {
    await sources.close();
  }
}

// Claude Code sends the SessionStart hook output after the first prompt (test/agents/claude-additions-context.test.ts)
const CARRIED = ['hello there', SS_PLAIN, SS, PLAN, UPS, 'second prompt'];

describe("Claude Code's hook output and plan-mode reminders carried into other agents", () => {
  it('are metadata in the Claude Code session, not in its context', async () => {
    expect(source.entries.filter((e) => e.kind === 'metadata' && e.type === 'attachment')).toHaveLength(5);
    expect(await sentUserTexts('claude', source)).toEqual(['hello there', 'second prompt']);
  });

  for (const agent of ['pi', 'codex', 'opencode'] as const)
    it(`are written into ${agent} as the user messages Claude Code sent, which ${agent} sends`, async () => {
      const copy = await hop(source, agent);
      const sent = await sentUserTexts(agent, copy);
      // codex sends its own environment context first; the rest is the conversation
      expect(sent.filter((t) => !t.startsWith('<environment_context>'))).toEqual(CARRIED);
      expect(sent.join('\n')).not.toContain('# Environment');
    });

  it('come back from pi as Claude Code’s own records, once', async () => {
    const back = await hop(await hop(source, 'pi'), 'claude');
    const attachments = back.entries.flatMap((e) =>
      e.kind === 'metadata' && e.type === 'attachment' ? [e.data as Record<string, unknown>] : [],
    );
    const kept = (a: Record<string, unknown>) => {
      const { toolUseID: _id, stdout: _out, ...rest } = a;
      return rest;
    };
    const hooks = (transcript().flatMap((r) => (r.type === 'attachment' ? [r.attachment] : [])) as Record<string, unknown>[])
      .filter((a) => String(a.type).startsWith('hook_'))
      .map(kept);
    expect(attachments.map(kept)).toEqual(
      hooks.map((a) => (a.type === 'hook_additional_context' ? { ...a, content: [(a.content as string[]).join('\n')] } : a)),
    );
    const written = back.entries.flatMap((e) => (e.kind === 'metadata' && e.type === 'attachment' ? [e.raw] : []));
    expect(written.map((r) => (r as { rendered?: unknown }).rendered)).toEqual(
      [SS_PLAIN, SS, UPS].map((content) => [{ content }]),
    );
    // the plan-mode reminder has no attachment to go back to: a meta user record in the words sent
    const plan = back.entries.find((e) => e.kind === 'message' && messageText(e.message) === PLAN);
    expect((plan?.raw as { isMeta?: unknown } | undefined)?.isMeta).toBe(true);
    // nothing doubled: into pi again, the same words once each
    expect(await sentUserTexts('pi', await hop(back, 'pi'))).toEqual(CARRIED);
  });

  it('leave another agent’s own reminders its user messages going into Claude Code', () => {
    const own = reminder('Your operational mode has changed from plan to build.');
    const session = {
      id: 's1',
      source: 'opencode',
      project: PROJECT,
      createdAt: T,
      updatedAt: T,
      entries: [
        {
          kind: 'message',
          id: 'e1',
          parentId: null,
          timestamp: T,
          message: { role: 'user', parts: [{ type: 'text', text: own }] },
        },
      ],
      leafId: 'e1',
    } as Session;
    const [record] = encodeClaudeTranscript(session, { sessionId: 's1', cwd: PROJECT }).records;
    expect(record).toMatchObject({ type: 'user', message: { role: 'user', content: own } });
    expect(record?.isMeta).toBeUndefined();
  });

  it('go from threadbase’s own store’s copy into pi as from the original', async () => {
    const stored = await hop(source, 'threadbase');
    expect(await sentUserTexts('pi', await hop(stored, 'pi'))).toEqual(CARRIED);
  });

  it('are copied as they are into Claude Code and into threadbase’s own store', async () => {
    for (const to of ['claude', 'threadbase'] as const) {
      const written = await convertSession(source, { to, env });
      const sources = new Sources(env);
      try {
        const copy = (await sources.driver(to).getSession(written.id)) as Session;
        expect(
          copy.entries.filter((e) => e.kind === 'metadata' && e.type === 'attachment'),
          to,
        ).toHaveLength(5);
        expect(
          copy.entries.some((e) => e.kind === 'message' && messageText(e.message).startsWith('<system-reminder>')),
          to,
        ).toBe(false);
      } finally {
        await sources.close();
      }
    }
  });
});
