/**
 * A session threadbase wrote stays marked so (SessionInfo.writtenBy, test/index/copy-origin.test.ts)
 * once the real agent has resumed it and added its own turn: Cline 3.0.65 rewrites its manifest and
 * messages, Gemini CLI appends to its chat; each keeps the mark, so the copy still does not win its
 * original's replies on a tie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { CLAUDE_ID, convertInto, copySourceFixtures } from '../helpers/agent-fixtures.js';
import { type ClineHome, resumeCline, setupClineHome } from '../helpers/cline.js';
import { okProbeRule, readSession } from '../helpers/conversions.js';
import { type GeminiHome, runGemini, setupGeminiHome } from '../helpers/gemini.js';

const PROBE = 'probe after the copy';

/** The texts of a session's last two messages. */
async function lastTexts(home: Parameters<typeof readSession>[0], agent: string, id: string): Promise<string[]> {
  const s = await readSession(home, agent, id);
  return s.entries
    .flatMap((e) => (e.kind === 'message' ? [e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')] : []))
    .filter(Boolean)
    .slice(-2);
}

describe('a copy resumed by the real Cline', () => {
  let home: ClineHome;
  beforeAll(async () => {
    home = await setupClineHome({ rules: [okProbeRule] });
    await copySourceFixtures(home);
  });
  afterAll(async () => {
    await home?.close();
  });

  it('keeps its mark after cline added its turn', async () => {
    const written = await convertInto(home, CLAUDE_ID, 'claude', 'cline');
    expect((await readSession(home, 'cline', written.id)).writtenBy).toBe('threadbase');
    await resumeCline(home, written.id, PROBE);
    expect(await lastTexts(home, 'cline', written.id)).toEqual([PROBE, `ok: ${PROBE}`]);
    expect((await readSession(home, 'cline', written.id)).writtenBy).toBe('threadbase');
    // the original is no copy
    expect((await readSession(home, 'claude', CLAUDE_ID)).writtenBy).toBeUndefined();
  }, 180_000);
});

describe('a copy resumed by the real Gemini CLI', () => {
  let home: GeminiHome;
  beforeAll(async () => {
    home = await setupGeminiHome();
    await copySourceFixtures(home);
  });
  afterAll(async () => {
    await home?.close();
  });

  it('keeps its mark after gemini added its turn', async () => {
    const written = await convertInto(home, CLAUDE_ID, 'claude', 'gemini');
    const before = await readSession(home, 'gemini', written.id);
    expect(before.writtenBy).toBe('threadbase');
    await runGemini(home, ['--resume', written.id, '-p', PROBE]);
    const after = await readSession(home, 'gemini', written.id);
    expect(after.entries.length).toBeGreaterThan(before.entries.length);
    expect(after.writtenBy).toBe('threadbase');
  }, 180_000);
});
