/**
 * A session written under another directory than the home's project (what `convert --project DIR`
 * does) is resumed by the real agent in that directory: resumeInTarget (test/helpers/conversions.ts)
 * starts the agent in the session's own project. OpenCode started in another directory does not find
 * the session there (`run -s` waits for it); Claude Code looks for it under the directory's project.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, createOpencodeDatabase, setupAgentHome } from '../helpers/agents.js';
import '../../src/formats/all.js';
import { type AnthropicAgent, okProbeRule, readSession, resumeInTarget, textOf } from '../helpers/conversions.js';
import { textEntry } from '../helpers/sessions.js';

let home: AgentHome;
let elsewhere: string;

beforeAll(async () => {
  home = await setupAgentHome({ rules: [okProbeRule] });
  elsewhere = join(home.root, 'elsewhere');
  await fs.mkdir(elsewhere, { recursive: true });
  await createOpencodeDatabase(home);
}, 120_000);
afterAll(async () => {
  await home?.close();
});

const session = (): Session => ({
  id: 'filed-elsewhere',
  source: 'threadbase',
  project: elsewhere,
  createdAt: '2026-11-26T03:00:01.000Z',
  updatedAt: '2026-11-26T03:00:02.000Z',
  messageCount: 2,
  entries: [
    textEntry('u1', null, 1, 'user', 'the question asked elsewhere'),
    textEntry('a1', 'u1', 2, 'assistant', 'the answer given elsewhere'),
  ],
});

describe('resuming a session filed under another directory', () => {
  for (const to of ['opencode', 'claude'] as AnthropicAgent[])
    it(`${to} resumes it in that directory`, async () => {
      const [written] = await convertSessionAll(session(), { to, env: home.env });
      if (!written) throw new Error('nothing written');
      expect((await readSession(home, to, written.id)).project).toBe(elsewhere);
      expect(elsewhere).not.toBe(home.project);
      const probe = `probe from ${to}`;
      const sent = await resumeInTarget(home, to, { id: written.id, source: to, path: written.path ?? '' }, probe);
      const texts = sent.flatMap((m) => textOf(m.content as Parameters<typeof textOf>[0]));
      expect(texts).toContain('the question asked elsewhere');
      expect(texts).toContain('the answer given elsewhere');
      expect(texts.at(-1)).toBe(probe);
    }, 150_000);
});
