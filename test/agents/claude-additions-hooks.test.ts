/**
 * Hook output and a plan-mode reminder, recorded by the real Claude Code (hooks in the temp home's
 * settings.json, `--permission-mode plan`) against the loopback stand-in, carried into pi and OpenCode
 * and back (src/formats/claude/reminders.ts). Claude Code 2.1.332 sends them as `role: "system"`
 * messages after the turn they came with; pi and OpenCode, resuming the copy, send the same words as
 * the user's (wrapped in `<system-reminder>`, as Claude Code words a meta note for the user's turn);
 * Claude Code resumes the copy that came back sending its hook output as it sends the original's, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { type AgentHome, createOpencodeDatabase, setupAgentHome } from '../helpers/agents.js';
import { recordWithHooks, SS_CONTEXT, SS_PLAIN, UPS_CONTEXT } from '../helpers/claude-hooks.js';
import type { Msg } from '../helpers/claude-requests.js';
import { readSession, resumeInTarget } from '../helpers/conversions.js';

let home: AgentHome;
let sessionId: string;
let model: string | undefined;

const reminder = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`;
const HOOK_TEXTS = [SS_CONTEXT, SS_PLAIN, UPS_CONTEXT];

beforeAll(async () => {
  home = await setupAgentHome();
  sessionId = await recordWithHooks(home);
  const source = await readSession(home, 'claude', sessionId);
  model = source.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))[0];
  await createOpencodeDatabase(home);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

const texts = (messages: readonly Msg[], role?: string) =>
  messages.flatMap((m) =>
    role && m.role !== role
      ? []
      : typeof m.content === 'string'
        ? [m.content]
        : m.content.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])),
  );

/** How often each of `words` is in the texts. */
const counts = (all: readonly string[], words: readonly string[]) => words.map((w) => all.filter((t) => t.includes(w)).length);

describe('hook output and plan mode through pi and OpenCode and back into Claude Code', () => {
  let original: Msg[];
  beforeAll(async () => {
    original = await resumeInTarget(home, 'claude', { id: sessionId, source: 'claude', path: '' }, 'probe original', model);
  }, 300_000);

  it('Claude Code sends the hook output and the plan-mode reminder as system messages', () => {
    const system = texts(original, 'system').join('\n');
    for (const t of HOOK_TEXTS) expect(system).toContain(t);
    expect(system).toContain('Plan mode is active');
  });

  for (const agent of ['pi', 'opencode'] as const)
    it(`${agent} resuming its copy sends the same words, each once`, async () => {
      const copy = await convertSession(await readSession(home, 'claude', sessionId), { to: agent, env: home.env });
      const sent = await resumeInTarget(home, agent, { id: copy.id, source: agent, path: copy.path ?? '' }, `probe ${agent}`);
      const user = texts(sent, 'user');
      for (const t of HOOK_TEXTS) expect(user).toContain(reminder(t));
      expect(counts(user, HOOK_TEXTS)).toEqual([1, 1, 1]);
      expect(user.filter((t) => t.startsWith('<system-reminder>\nPlan mode is active'))).toHaveLength(1);
    });

  it('Claude Code resumes the copy back from pi sending its hook output as it sends the original’s, not twice', async () => {
    const pi = await convertSession(await readSession(home, 'claude', sessionId), { to: 'pi', env: home.env });
    const back = await convertSession(await readSession(home, 'pi', pi.id), { to: 'claude', env: home.env });
    const copy = await resumeInTarget(home, 'claude', { id: back.id, source: 'claude', path: '' }, 'probe copy', model);
    const hookLines = (ms: readonly Msg[]) =>
      texts(ms, 'system').flatMap((t) => t.split('\n\n').filter((p) => HOOK_TEXTS.some((h) => p.startsWith(h))));
    expect(hookLines(copy)).toEqual(hookLines(original));
    expect(hookLines(original)).toHaveLength(3);
    const all = (ms: readonly Msg[]) => texts(ms);
    expect(counts(all(copy), HOOK_TEXTS)).toEqual([1, 1, 1]);
    // the plan-mode reminder has no record to go back to: sent once, as the user's
    expect(all(copy).filter((t) => t.includes('Plan mode is active'))).toHaveLength(1);
  });
});
