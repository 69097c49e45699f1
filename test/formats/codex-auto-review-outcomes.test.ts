/**
 * What codex 0.171 records when its automatic approval reviewer (`approvals_reviewer = "auto_review"`) does
 * not decide, and for MCP calls refused or cancelled (test/fixtures/codex/auto-review-outcomes-home, recorded
 * by test/agents/codex-auto-review-outcomes.test.ts; src/formats/codex/denials.ts):
 * - a review that failed ("Automatic approval review failed: …\nThe action was not executed because …") or
 *   timed out ("… did not finish before its deadline …"): the call did not run and nothing refused it, so
 *   it reads as cancelled (an error), its words kept;
 * - an MCP call's result is two texts, "Wall time: N seconds\nOutput:" and the words: the reviewer's denial
 *   and the user's decline read as refused, the user's cancel and the reviewer's failure as cancelled.
 * Written back into codex, each result keeps codex's own words (nothing reworded).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexDeclinedMark } from '../../src/formats/codex/denials.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { resultText } from '../../src/model/tree.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { toolResultsOf } from '../helpers/sessions.js';
import '../../src/formats/all.js';

const HOME = resolve('test/fixtures/codex/auto-review-outcomes-home');
const REVIEW_FAILURE =
  'The action was not executed because automatic approval review could not be completed. This is a review failure, not a determination that the action is unsafe. Do not bypass the approval check; resolve the error or ask the user for guidance.';
const REVIEW_TIMEOUT =
  'The automatic permission approval review did not finish before its deadline. Do not assume the action is unsafe based on the timeout alone. You may retry once, or ask the user for guidance or explicit approval.';
const DENIAL =
  'This action was rejected due to unacceptable risk.\nReason: Too risky.\nThe agent must not attempt to achieve the same outcome via workaround, indirect execution, or policy circumvention. Proceed only with a materially safer alternative, or if the user explicitly approves the action after being informed of the risk. Otherwise, stop and request user input.';

/** Each recorded thread: what happened to its one call, and what it reads as. */
const RECORDED: [id: string, what: string, refused: true | undefined, cancelled: true | undefined, words: string][] = [
  ['01a219e6-9e20-7ee0-a6e6-a392fcbd7280', 'exec_command, review failed', undefined, true, REVIEW_FAILURE],
  ['01a219e6-a37b-7433-b60e-12c1f7240d77', 'exec_command, review timed out', undefined, true, REVIEW_TIMEOUT],
  ['01a219e6-a67f-7f13-a719-91dab19a3426', 'MCP call, reviewer denied', true, undefined, DENIAL],
  ['01a219e6-a9d4-7550-a4c1-6f6463d70adf', 'MCP call, review failed', undefined, true, REVIEW_FAILURE],
  ['01a219e6-afff-7db2-8b64-4197cd8a682f', 'MCP call, user declined', true, undefined, 'user rejected MCP tool call'],
  ['01a219e6-b384-7182-904c-88bf0bef0a02', 'MCP call, user cancelled', undefined, true, 'user cancelled MCP tool call'],
];

const marks = (r: ToolResultPart) => [r.isError, r.meta?.refused, r.meta?.cancelled];

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-codex-auto-review-'));
  env = { home: root, env: { CODEX_HOME: join(root, '.codex') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("codex 0.171's undecided reviews and MCP refusals", () => {
  const recorded = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: HOME } });

  for (const [id, what, refused, cancelled, words] of RECORDED)
    it(`reads the recorded ${what} as ${refused ? 'refused' : 'cancelled'}`, async () => {
      const results = toolResultsOf(await recorded.getSession(id));
      expect(results.map((r) => [r.callId, ...marks(r)])).toEqual([['call_standin_0001', true, refused, cancelled]]);
      expect(resultText((results[0] as ToolResultPart).content)).toContain(words);
    });

  it('writes them back into codex in their own words, read back with the same marks', async () => {
    const driver = new CodexDriver(env);
    for (const [id, what, refused, cancelled] of RECORDED) {
      const s = (await recorded.getSession(id)) as Session;
      const info = await driver.writeSession(s);
      const lines = (await fs.readFile(info.path as string, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { payload: { type?: string; output?: unknown } });
      const original = (await fs.readFile(s.path as string, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { payload: { type?: string; output?: unknown } });
      const outputs = (ls: typeof lines) =>
        ls.filter((l) => l.payload.type === 'function_call_output').map((l) => l.payload.output);
      expect(outputs(lines), what).toEqual(outputs(original));
      expect(toolResultsOf(await driver.getSession(info.id)).map(marks), what).toEqual([[true, refused, cancelled]]);
    }
  });

  it("reads a denial with the gpt-6 models' own rejection instructions (0.171's bundled models.json) as refused", () => {
    const modelInstructions = [
      'Do not bypass this rejection through a workaround or indirect execution. Continue with a safer alternative, or carry out checks to prove that the action is authorized or low risk before trying again. Complete unaffected work without asking for confirmation. Report anything that remains blocked, clarify why it was blocked by auto-review, inform the user of the risk and ask for approval.',
      'Do not bypass this rejection through a workaround or indirect execution. Continue with any materially safer alternative and complete unaffected work without asking for confirmation. Report anything that remains blocked, and ask for explicit approval only if completion requires the rejected action, after explaining its specific risk.',
    ];
    for (const instructions of modelInstructions) {
      const denial = `This action was rejected due to unacceptable risk.\nReason: Too risky.\n${instructions}`;
      expect(codexDeclinedMark(denial), instructions).toBe('refused');
      expect(codexDeclinedMark(`${denial}\nexit code 1`), instructions).toBeUndefined();
    }
  });

  it('knows the MCP form only as a wall-time header then the words, and the reviewer undecided only in its own words', () => {
    const mcp = (words: string, header = 'Wall time: 0.0035 seconds\nOutput:') => [
      { type: 'text' as const, text: header },
      { type: 'text' as const, text: words },
    ];
    expect(codexDeclinedMark(mcp('user rejected MCP tool call'))).toBe('refused');
    expect(codexDeclinedMark(mcp(DENIAL))).toBe('refused');
    expect(codexDeclinedMark(mcp('user cancelled MCP tool call'))).toBe('cancelled');
    expect(codexDeclinedMark(mcp(`Automatic approval review failed: boom\n${REVIEW_FAILURE}`))).toBe('cancelled');
    expect(codexDeclinedMark(REVIEW_TIMEOUT)).toBe('cancelled');
    expect(codexDeclinedMark(`Automatic approval review failed: model at capacity\n${REVIEW_FAILURE}`)).toBe('cancelled');
    // the tool's own output saying so, or another header, is not codex's record of a call that did not run
    expect(codexDeclinedMark(mcp('echo: user rejected MCP tool call'))).toBeUndefined();
    expect(
      codexDeclinedMark(mcp('user rejected MCP tool call', 'Exit code: 0\nWall time: 0.1 seconds\nOutput:')),
    ).toBeUndefined();
    expect(codexDeclinedMark([...mcp('user rejected MCP tool call'), { type: 'text', text: 'more' }])).toBeUndefined();
    expect(codexDeclinedMark(REVIEW_FAILURE)).toBeUndefined();
    expect(codexDeclinedMark(`${REVIEW_TIMEOUT}\nexit code 1`)).toBeUndefined();
    expect(codexDeclinedMark(`Automatic approval review failed: x\n${REVIEW_FAILURE}\nmore`)).toBeUndefined();
  });
});
