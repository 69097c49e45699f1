/**
 * Refused calls and the real Kilo CLI (7.7.7, OpenCode's records and words, src/formats/kilo/FORMAT.md):
 * a bash call a `deny` permission rule stops reads as refused, and Gemini CLI's refusal written into
 * Kilo is its own rejection, which resumed Kilo sends as an error result of its words.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KiloDriver } from '../../src/formats/kilo/index.js';
import { REJECTED_TOOL_ERROR } from '../../src/formats/opencode/denials.js';
import type { ToolResultPart } from '../../src/model/types.js';
import type { AgentHome } from '../helpers/agents.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import { KILO_MODEL, kiloProbeRule, kiloRequestEndingWith, runKilo, setupKiloHome } from '../helpers/kilo.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

let home: AgentHome;
let driver: KiloDriver;
beforeAll(async () => {
  home = await setupKiloHome({ rules: [kiloProbeRule] });
  const file = join(home.root, '.config', 'kilo', 'kilo.json');
  const config = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  // bash offered, `touch …` denied by a rule
  config.permission = { bash: { '*': 'allow', 'touch *': 'deny' } };
  await fs.writeFile(file, JSON.stringify(config));
  driver = new KiloDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await driver.getSession(id));
}

describe('refused calls and the real Kilo CLI', () => {
  it('a call a deny rule stopped reads as refused', async () => {
    await runKilo(home, ['run', '-m', KILO_MODEL, 'RUN:', 'touch', 'made.txt']);
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no session');
    const [result] = await results(listed.id);
    expect(String(result?.content)).toContain('The user has specified a rule which prevents you');
    expect(result?.meta?.refused).toBe(true);
  }, 120_000);

  it("Gemini CLI's refusal is written as Kilo's own and resumed so", async () => {
    const session = geminiDeclinedSession({ project: home.project, model: 'claude-test', tool: 'bash', cancelledToo: false });
    const info = await driver.writeSession(session);
    const [back] = await results(info.id);
    expect([back?.content, back?.meta?.refused]).toEqual([REJECTED_TOOL_ERROR, true]);
    await runKilo(home, ['run', '-m', KILO_MODEL, '-s', info.id, 'probe-kilo-refusal']);
    const sent = kiloRequestEndingWith(home, 'probe-kilo-refusal').messages;
    const blocks = sentToolResults(sent);
    expect(blocks.map((b) => [b.content, b.is_error])).toEqual([[REJECTED_TOOL_ERROR, true]]);
  }, 120_000);
});
