/**
 * Rollouts the real codex-cli 0.169.0 wrote in the fidelity audit (test/fixtures/codex/README.md, `audit-home`),
 * read as codex itself reads them: what it counts, and the input it sent on resume.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodexDriver } from '../../src/formats/codex/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Message, Session } from '../../src/model/types.js';

const AUDIT_HOME = resolve('test/fixtures/codex/audit-home');
const CUT_OFF = '01a21358-666b-7c82-921f-0c145035e213';

const auditEnv: DriverEnv = { home: '/nonexistent', env: { CODEX_HOME: AUDIT_HOME } };
const temps: string[] = [];

async function tempHome(): Promise<DriverEnv> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-audit-'));
  temps.push(dir);
  await fs.cp(AUDIT_HOME, join(dir, '.codex'), { recursive: true });
  return { home: dir, env: {} };
}

afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const texts = (ms: Message[]) => ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));

describe('codex audit: usage', () => {
  it('a response cut off before response.completed is not given the stale token_count codex repeats after it', async () => {
    const s = (await new CodexDriver(auditEnv).getSession(CUT_OFF)) as Session;
    // codex's own total_token_usage after the third turn: 4020 = 1000+10 and 3000+10; the cut-off one counts nothing.
    expect(s.usage).toMatchObject({ input: 4000, output: 20 });
    const partial = s.entries.find((e) => e.kind === 'message' && texts([e.message]).includes('partial answer'));
    expect(partial?.kind === 'message' ? partial.message.usage : 'missing').toBeUndefined();
  });
});

describe('codex audit: writing usage', () => {
  it('total_token_usage is the running thread total, on write and on append (codex resumes its total from it)', async () => {
    const env = await tempHome();
    const driver = new CodexDriver(env);
    const t = '2026-01-01T00:00:00.000Z';
    const usage = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const msg = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string): Entry => ({
      id,
      parentId,
      timestamp: t,
      kind: 'message',
      message: { role, parts: [{ type: 'text', text }], ...(role === 'assistant' ? { usage } : {}) },
    });
    // two answers with the same counts: neither is taken for a repeated (stale) count
    const written = await driver.writeSession({
      id: 'foreign',
      source: 'claude',
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries: [
        msg('u1', null, 'user', 'one'),
        msg('a1', 'u1', 'assistant', 'A'),
        msg('u2', 'a1', 'user', 'two'),
        msg('a2', 'u2', 'assistant', 'B'),
      ],
    });
    await driver.appendEntries(written.id, [msg('u3', null, 'user', 'three'), msg('a3', 'u3', 'assistant', 'C')]);
    const totals = (await fs.readFile(written.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { payload?: { type?: string; info?: { total_token_usage: { total_tokens: number } } } })
      .flatMap((r) =>
        r.payload?.type === 'token_count' && r.payload.info ? [r.payload.info.total_token_usage.total_tokens] : [],
      );
    expect(totals).toEqual([1100, 2200, 3300]);
    const back = (await driver.getSession(written.id)) as Session;
    expect(back.usage).toMatchObject({ input: 3000, output: 300 });
  });
});
