/**
 * Calls the user refused or that were cancelled, in codex's words (src/formats/codex/denials.ts):
 * test/fixtures/codex/declined-home is what the real codex 0.171 app-server recorded when its client
 * declined the approval of an escalated `exec_command` (`exec_command failed: CreateProcess { message:
 * "Rejected(\"rejected by user\")" }`) and then interrupted a running `sleep 20` ("Wall time: 1.4
 * seconds\naborted by user"). They read as refused and cancelled (errors); another agent's refused or
 * cancelled result is written in codex's words ("rejected by user", "aborted") and read back so.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import { CODEX_CANCELLED, CODEX_REFUSED, codexDeclinedMark } from '../../src/formats/codex/denials.js';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';
import '../../src/formats/all.js';

const REAL_HOME = resolve('test/fixtures/codex/declined-home');
const REAL_ID = '01a218a3-3d21-7243-94da-32f24d403112';
/** codex 0.171 with `approvals_reviewer = "auto_review"`: its reviewer denied an escalated `exec_command` */
const AUTO_REVIEW_HOME = resolve('test/fixtures/codex/auto-review-home');
const AUTO_REVIEW_ID = '01a21960-da6f-7481-8c44-ada17630559f';
/** The words codex's reviewer gives the model after its rationale (core guardian GUARDIAN_REJECTION_INSTRUCTIONS). */
const GUARDIAN_INSTRUCTIONS =
  'The agent must not attempt to achieve the same outcome via workaround, indirect execution, or policy circumvention. Proceed only with a materially safer alternative, or if the user explicitly approves the action after being informed of the risk. Otherwise, stop and request user input.';
const guardianDenial = (reason: string) =>
  `This action was rejected due to unacceptable risk.\nReason: ${reason}\n${GUARDIAN_INSTRUCTIONS}`;
/** Rust's Debug formatting of a string's contents, as unified exec nests the rejection in its spawn error. */
const debugEscaped = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
const spawnError = (rejection: string) =>
  `exec_command failed: CreateProcess { message: "${debugEscaped(`Rejected("${debugEscaped(rejection)}")`)}" }`;

const marks = (r: ToolResultPart) => [r.isError, r.meta?.refused, r.meta?.cancelled];

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-codex-declined-'));
  env = { home: root, env: { CODEX_HOME: join(root, '.codex') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('codex refused and cancelled calls', () => {
  it("reads codex 0.171's declined exec_command as refused and its interrupted one as cancelled", async () => {
    const s = await new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: REAL_HOME } }).getSession(REAL_ID);
    expect(toolResultsOf(s).map((r) => [r.callId, ...marks(r)])).toEqual([
      ['call_standin_0001', true, true, undefined],
      ['call_standin_0003', true, undefined, true],
    ]);
  });

  it("reads a call codex 0.171's automatic approval reviewer denied as refused", async () => {
    const s = await new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: AUTO_REVIEW_HOME } }).getSession(AUTO_REVIEW_ID);
    const [result] = toolResultsOf(s);
    expect(result && [result.callId, ...marks(result)]).toEqual(['call_standin_0001', true, true, undefined]);
    expect(result?.content).toBe(spawnError(guardianDenial('Writes outside the sandbox without the user asking.')));
  });

  it("knows codex's words for a refusal and a cancellation, and nothing else", () => {
    for (const t of [
      'rejected by user',
      'exec command rejected by user',
      'patch rejected by user',
      'user rejected MCP tool call',
      'write_stdin failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }',
      // the automatic approval reviewer's denial, as the shell tools and apply_patch say it and as exec_command wraps it
      guardianDenial('Deletes the "build" directory\\outside the workspace.'),
      guardianDenial('Auto-reviewer denied the action without a specific rationale.'),
      spawnError(guardianDenial('Deletes the "build" directory\\outside the workspace.\nTwice.')),
      spawnError('rejected by user'),
    ])
      expect(codexDeclinedMark(t), t).toBe('refused');
    for (const t of [
      'aborted',
      'aborted by user after 27.2s',
      'Wall time: 0.1 seconds\naborted by user',
      'user cancelled MCP tool call',
      'MCP tool call cancelled before approval',
      // the reviewer's timeout: the call did not run, and it says it is no denial (codex-auto-review-outcomes.test.ts)
      'The automatic permission approval review did not finish before its deadline. Do not assume the action is unsafe based on the timeout alone. You may retry once, or ask the user for guidance or explicit approval.',
    ])
      expect(codexDeclinedMark(t), t).toBe('cancelled');
    for (const t of [
      'Process exited with code 1',
      'aborted by user after a while',
      'echo rejected by user',
      '',
      // a denial's words inside a command's output are the command's
      `${guardianDenial('risky')}\nexit code 1`,
      spawnError('exec command failed'),
      'exec_command failed: CreateProcess { message: "No such file or directory (os error 2)" }',
    ])
      expect(codexDeclinedMark(t), t).toBeUndefined();
  });

  it("writes another agent's refused and cancelled results in codex's words, read back marked", async () => {
    const driver = new CodexDriver(env);
    const info = await driver.writeSession(
      geminiDeclinedSession({ project: root, model: 'gemini-2.5-pro', tool: 'run_shell_command', cancelledToo: true }),
    );
    const lines = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    const outputs = lines.filter((l) => l.payload.type === 'function_call_output').map((l) => l.payload.output);
    expect(outputs).toEqual([CODEX_REFUSED, CODEX_CANCELLED]);
    const back = await driver.getSession(info.id);
    expect(toolResultsOf(back).map(marks)).toEqual([
      [true, true, undefined],
      [true, undefined, true],
    ]);
    // and sent so: the context codex would send has codex's words
    const sent = contextToResponses(buildContext(back as Session)).input.filter((i) => i.type === 'function_call_output');
    expect(sent.map((i) => i.output)).toEqual([CODEX_REFUSED, CODEX_CANCELLED]);
  });

  it("keeps a marked result's own words when they are already codex's", async () => {
    const driver = new CodexDriver(env);
    const session = geminiDeclinedSession({ project: root, model: 'm', tool: 'apply_patch', cancelledToo: true });
    for (const e of session.entries)
      if (e.kind === 'message')
        for (const p of e.message.parts)
          if (p.type === 'tool_result') p.content = p.meta?.refused ? 'patch rejected by user' : 'aborted by user after 2.0s';
    const info = await driver.writeSession(session);
    const outputs = (await fs.readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { payload: Record<string, unknown> })
      .filter((l) => l.payload.type === 'function_call_output')
      .map((l) => l.payload.output);
    expect(outputs).toEqual(['patch rejected by user', 'aborted by user after 2.0s']);
  });

  it("reads the async reviewer's failure after a change of authorization as cancelled, as exec_command wraps it too", () => {
    // ext/guardian-v2 async_scorer/action.rs in 0.171's binary: "{failure}\n{instructions}", these instructions
    const changed =
      'Automatic approval review failed: authorization changed before approval could be applied\nThe action did not run. Guardian could not complete its review because authorization changed; this is not a policy denial. If current instructions authorize the action, retry once through Guardian. If authorization is unclear, resolve that uncertainty before proceeding. Do not bypass approval or repeatedly retry a failed review.';
    expect(codexDeclinedMark(changed)).toBe('cancelled');
    expect(codexDeclinedMark(spawnError(changed))).toBe('cancelled');
    expect(codexDeclinedMark(`${changed}\nexit code 1`)).toBeUndefined();
  });

  it("reads a code-mode cell that a refused or cancelled nested call ended by that call's words", async () => {
    // core tools/code_mode: the status header, what the script printed, "Script error:\n" and the nested call's error
    const header = 'Script failed\nWall time 0.4 seconds\nOutput:\n';
    const cell = (error: string, printed: string[] = []) =>
      [header, ...printed, `Script error:\n${error}`].map((text) => ({ type: 'text' as const, text }));
    expect(codexDeclinedMark(cell(spawnError('rejected by user')))).toBe('refused');
    expect(codexDeclinedMark(cell(spawnError(guardianDenial('risky')), ['listed 3 files']))).toBe('refused');
    expect(codexDeclinedMark(cell('patch rejected by user'))).toBe('refused');
    expect(
      codexDeclinedMark(
        cell(
          spawnError(
            'Automatic approval review failed: boom\nThe action was not executed because automatic approval review could not be completed. This is a review failure, not a determination that the action is unsafe. Do not bypass the approval check; resolve the error or ask the user for guidance.',
          ),
        ),
      ),
    ).toBe('cancelled');
    // 0.171's header with the time split
    const split = 'Script failed\nWall time 0.4 seconds (code-mode 0.3 seconds; overhead 0.1 seconds)\nOutput:\n';
    expect(codexDeclinedMark([split, 'Script error:\nrejected by user'].map((text) => ({ type: 'text' as const, text })))).toBe(
      'refused',
    );
    // the same texts joined, as threadbase writes a result of texts only
    expect(
      codexDeclinedMark(
        cell(spawnError('rejected by user'), ['a'])
          .map((c) => c.text)
          .join('\n'),
      ),
    ).toBe('refused');
    // a script's own error, one that went on, or printed words are no refusal
    expect(codexDeclinedMark(cell('TypeError: x is not a function'))).toBeUndefined();
    expect(codexDeclinedMark(cell('Error: rejected by user\n    at exec_main.mjs:1:7'))).toBeUndefined();
    expect(codexDeclinedMark([header, 'rejected by user'].map((text) => ({ type: 'text' as const, text })))).toBeUndefined();
    expect(
      codexDeclinedMark(
        ['Script completed\nWall time 0.1 seconds\nOutput:\n', 'Script error:\nrejected by user'].map((text) => ({
          type: 'text' as const,
          text,
        })),
      ),
    ).toBeUndefined();

    // read from a rollout: the `exec` custom tool's output, content items as codex records them
    const dir = await fs.mkdtemp(join(root, 'rollouts-'));
    const file = join(dir, 'rollout-2026-11-20T10-00-00-01a20600-0000-7000-8000-00000000c0de.jsonl');
    const at = (s: number) => `2026-11-20T10:00:0${s}.000Z`;
    const lines = [
      { timestamp: at(0), type: 'session_meta', payload: { id: '01a20600-0000-7000-8000-00000000c0de', cwd: root } },
      {
        timestamp: at(1),
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'touch it' }] },
      },
      {
        timestamp: at(2),
        type: 'response_item',
        payload: {
          type: 'custom_tool_call',
          name: 'exec',
          call_id: 'call_cell',
          input: 'await tools.exec_command({cmd: "touch x"})',
        },
      },
      {
        timestamp: at(3),
        type: 'response_item',
        payload: {
          type: 'custom_tool_call_output',
          call_id: 'call_cell',
          output: cell(spawnError('rejected by user')).map((c) => ({ type: 'input_text', text: c.text })),
        },
      },
    ];
    await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const [result] = toolResultsOf(await readRollout(file));
    expect(result && [result.callId, result.meta?.refused, result.meta?.cancelled]).toEqual(['call_cell', true, undefined]);
  });

  it("convert says how many results it wrote in codex's words", () => {
    const session = geminiDeclinedSession({ project: root, model: 'm', tool: 'run_shell_command', cancelledToo: true });
    expect(conversionLosses(session, 'codex').filter((l) => l.includes('refused or cancelled'))).toEqual([
      expect.stringMatching(/refused or cancelled calls' results written in codex's words .*\(2\)$/),
    ]);
  });
});
