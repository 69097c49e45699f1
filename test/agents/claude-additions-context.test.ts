/**
 * `threadbase context` of a Claude Code session with hook output and plan mode, against the request
 * the real Claude Code sends resuming it (hooks in the temp home's settings.json, `--permission-mode
 * plan`, the loopback stand-in). 2.1.332 sends them as a `role: "system"` message after the user turn
 * they came with, SessionStart's after the first prompt, joined with its own additions (environment,
 * listings, date) by a blank line; claudeContext sends the same message without the harness's own. A
 * copy in pi has them in that order too: the real pi sends the first prompt, then the SessionStart
 * hook output (src/formats/claude/reminders.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import type { Context } from '../../src/model/tree.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import { recordWithHooks, SS_CONTEXT, SS_PLAIN, UPS_CONTEXT } from '../helpers/claude-hooks.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { readContext, readSession, resumeInTarget } from '../helpers/conversions.js';

let home: AgentHome;
let sessionId: string;
let model: string | undefined;
let ours: Context;
let theirs: Msg[];

const PROBE = 'probe context';

beforeAll(async () => {
  home = await setupAgentHome();
  // a second turn, out of plan mode (its exit reminder) with the prompt hook's context again
  sessionId = await recordWithHooks(home, ['second prompt']);
  const source = await readSession(home, 'claude', sessionId);
  model = source.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))[0];
  ours = await readContext(home, 'claude', sessionId);
  theirs = await resumeInTarget(home, 'claude', { id: sessionId, source: 'claude', path: '' }, PROBE, model);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

const text = (m: Msg) =>
  typeof m.content === 'string' ? m.content : m.content.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])).join('');

/** Whether `whole` holds each of `pieces` in order, each a paragraph of its own (blank lines around). */
function inOrder(whole: string, pieces: readonly string[]): boolean {
  let from = 0;
  for (const p of pieces) {
    const at = `\n\n${whole}\n\n`.indexOf(`\n\n${p}\n\n`, from);
    if (at < 0) return false;
    from = at + p.length + 2;
  }
  return true;
}

describe('the context of a Claude Code session with hook output and plan mode', () => {
  it('sends them as Claude Code does: a system message after each user turn, in its words and order', () => {
    const roles = (ms: readonly { role: string }[]) => ms.map((m) => m.role);
    // the probe and what followed it are no part of the context read before it
    expect(roles(ours.messages)).toEqual(roles(theirs.slice(0, -1)));
    const ourSystem = ours.messages.flatMap((m) =>
      m.role === 'system' ? [m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')] : [],
    );
    const theirSystem = theirs.flatMap((m) => (m.role === 'system' ? [text(m)] : []));
    expect(ourSystem).toHaveLength(2);
    expect(ourSystem[0]?.startsWith(`${SS_PLAIN}\n\n${SS_CONTEXT}\n\nPlan mode is active`)).toBe(true);
    expect(ourSystem[0]?.endsWith(`\n\n${UPS_CONTEXT}`)).toBe(true);
    expect(ourSystem[1]).toMatch(
      /^## Exited Plan Mode\n[\s\S]*\n\nUserPromptSubmit hook additional context: UPS-CONTEXT from hook$/,
    );
    // each of ours is theirs with the harness's own additions (environment, listings, date) left out
    ourSystem.forEach((t, i) => {
      const pieces = t.split(/\n\n(?=SessionStart|UserPromptSubmit|Plan mode is active)/);
      expect(inOrder(theirSystem[i] ?? '', pieces), `${t}\n---\n${theirSystem[i]}`).toBe(true);
    });
    expect(theirSystem[0]).toContain('# Environment');
    expect(ourSystem.join('\n')).not.toContain('# Environment');
  });

  it('and the conversation around them as Claude Code sends it', () => {
    expect(comparable(contextToAnthropic(ours).messages as Msg[])).toEqual(comparable(theirs, PROBE));
  });

  it('pi resuming a copy sends the SessionStart hook output after the first prompt, as Claude Code does', async () => {
    const copy = await convertSession(await readSession(home, 'claude', sessionId), { to: 'pi', env: home.env });
    const sent = await resumeInTarget(home, 'pi', { id: copy.id, source: 'pi', path: copy.path ?? '' }, 'probe pi');
    const user = sent.flatMap((m) =>
      m.role !== 'user'
        ? []
        : typeof m.content === 'string'
          ? [m.content]
          : m.content.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])),
    );
    const at = (w: string) => user.findIndex((t) => t.includes(w));
    expect(at('hello there')).toBeGreaterThanOrEqual(0);
    expect(at('hello there')).toBeLessThan(at(SS_PLAIN));
    expect(at(SS_PLAIN)).toBeLessThan(at(SS_CONTEXT));
    expect(at(SS_CONTEXT)).toBeLessThan(at('Plan mode is active'));
    expect(at('Plan mode is active')).toBeLessThan(at(UPS_CONTEXT));
    expect(at(UPS_CONTEXT)).toBeLessThan(at('second prompt'));
  });
});
