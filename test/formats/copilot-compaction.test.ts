/**
 * A real Copilot CLI 1.0.102 session with a `/compact` and a model switch on resume
 * (test/fixtures/copilot/real-1.0.102-compact, see its README): the compaction and the model change
 * are read from the real records, and the context threadbase gives for the resume is what Copilot CLI
 * sent after the compaction (saved from the stand-in beside the fixture).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { Entry } from '../../src/model/types.js';

const ID = '1f142440-e534-4eaf-8cb2-e44bc0ae545b';
const FIXTURE = resolve('test/fixtures/copilot/real-1.0.102-compact');
const EVENTS = `${FIXTURE}/.copilot/session-state/${ID}/events.jsonl`;

const driver = () => new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });

async function rawEvent(type: string): Promise<{ id: string; data: Record<string, unknown> }> {
  const lines = (await readFile(EVENTS, 'utf8')).trim().split('\n');
  const found = lines.map((l) => JSON.parse(l)).find((e) => e.type === type);
  if (!found) throw new Error(`no ${type} in the fixture`);
  return found;
}

type AnyBlock = Record<string, unknown>;
/** A message as sent, without what only steers caching. */
const plain = (m: { role: string; content: string | AnyBlock[] }) => ({
  role: m.role,
  content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).map(
    ({ cache_control: _c, ...b }) => b,
  ),
});

describe('Copilot CLI: a real /compact and a model switch on resume', () => {
  it('reads session.compaction_complete as a compaction with its summary, tokens, usage and model', async () => {
    const raw = await rawEvent('session.compaction_complete');
    const s = await driver().getSession(ID);
    const c = s?.entries.find((e) => e.id === raw.id);
    expect(c).toMatchObject({
      kind: 'compaction',
      summary: raw.data.summaryContent,
      tokensBefore: raw.data.preCompactionTokens,
      // 1.0.102 writes no `model` here: the one in compactionTokensUsed wrote the summary
      model: 'claude-sonnet-4.5',
      usage: { output: 34 },
    });
    expect(raw.data.model).toBeUndefined();
    // on the main chain: the session resumes through it
    const path = new Set<string>();
    const byId = new Map(s?.entries.map((e) => [e.id, e]));
    for (let e: Entry | undefined = byId.get(s?.leafId ?? ''); e; e = e.parentId ? byId.get(e.parentId) : undefined)
      path.add(e.id);
    expect(path.has(raw.id)).toBe(true);
  });

  it('reads a session.model_change outside a sub-agent as a model change on the main chain', async () => {
    const raw = await rawEvent('session.model_change');
    expect(raw.data).toMatchObject({ source: 'startup', newModel: 'claude-haiku-4.5', previousModel: 'claude-sonnet-4.5' });
    const d = driver();
    const s = await d.getSession(ID);
    const change = s?.entries.find((e) => e.id === raw.id);
    expect(change).toMatchObject({ kind: 'model_change', model: 'claude-haiku-4.5' });
    expect(change?.sidechain).toBeFalsy();
    expect(s?.models?.sort()).toEqual(['claude-haiku-4.5', 'claude-sonnet-4.5']);
    const ctx = await d.getContext(ID);
    expect(ctx.model).toBe('claude-haiku-4.5');
  });

  it('gives as the resume context after the compaction what Copilot CLI sent', async () => {
    const sent = JSON.parse(await readFile(`${FIXTURE}/sent-after-compact.json`, 'utf8')) as {
      role: string;
      content: AnyBlock[];
    }[];
    const s = await driver().getSession(ID);
    // the prompt typed after the compaction: Copilot CLI's first request of that run ended with it
    const prompt = s?.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'RUN: echo after-compact'),
    );
    expect(prompt).toBeDefined();
    const ctx = await driver().getContext(ID, { leafId: prompt?.id as string });
    expect(contextToAnthropic(ctx).messages.map(plain)).toEqual(sent.map(plain));
  });
});
