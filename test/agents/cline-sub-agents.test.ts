/**
 * The real cline 3.0.65 running the same sub-agent task twice (`spawn_agent`, one call after the
 * other): Cline records no call id with a sub-agent (its messages file's origin names the parent
 * session only; its spawn queue matches calls by task too), so each sub-agent is linked to the
 * parent's spawn_agent call with its task made last before it started, not to the first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, runCline, setupClineHome } from '../helpers/cline.js';
import { readSession } from '../helpers/conversions.js';

let home: ClineHome;
const firstUser = (r: AnthropicRequest) => textOf(r.messages.find((m) => m.role === 'user'));
const spawned = (r: AnthropicRequest) =>
  r.messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result')).length;

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        if (!firstUser(req).includes('SPAWN TWICE')) return undefined;
        if (!req.tools?.some((t) => t.name === 'spawn_agent')) return undefined;
        if (spawned(req) >= 2) return { text: 'both done' };
        return { toolUse: { name: 'spawn_agent', input: { systemPrompt: 'be brief', task: 'the same subtask' } } };
      },
      (req) =>
        firstUser(req).includes('the same subtask') ? { text: `done ${home.standIn.messageRequests().length}` } : undefined,
    ],
  });
});
afterAll(async () => {
  await home?.close();
});

interface Listed {
  id: string;
  parentId?: string | null;
  createdAt: string;
}

describe('two sub-agents of one task, one after the other', () => {
  it('each is linked to the call made last before it started', async () => {
    await runCline(home, ['SPAWN TWICE']);
    const listed = JSON.parse(await runCliOk(home.env, ['sessions', '--source', 'cline', '--json'])) as Listed[];
    const root = listed.find((s) => !s.parentId) as Listed;
    const subs = listed.filter((s) => s.parentId === root.id).sort((a, b) => a.id.localeCompare(b.id));
    expect(subs).toHaveLength(2);
    const shown = JSON.parse(await runCliOk(home.env, ['show', root.id, '--json'])) as {
      entries: { message?: { parts: { type: string; id?: string; name?: string }[] } }[];
    };
    const calls = shown.entries.flatMap((e) =>
      (e.message?.parts ?? []).flatMap((p) => (p.type === 'tool_call' && p.name === 'spawn_agent' ? [p.id] : [])),
    );
    expect(calls).toHaveLength(2);
    const linked = await Promise.all(subs.map(async (s) => (await readSession(home, 'cline', s.id)).parentToolCallId));
    expect(linked).toEqual(calls);
  }, 120_000);
});
