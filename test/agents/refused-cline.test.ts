/**
 * Refused and cancelled calls and the real cline (3.0.65, against the loopback stand-in):
 * - a call cline's own permission rules refused (a headless run with `--auto-approve false`: "requires
 *   approval in a TTY session") reads as refused, and resumed cline sends it as threadbase's context has it;
 * - Gemini CLI's refused and cancelled calls written into Cline become Cline's own ("This tool call was
 *   rejected by the user and not executed.", "Tool was not executed", each `-- NOT a tool or system
 *   failure. …`, as its JSON error): read back marked so, and resumed, cline sends them as our context says;
 * - a command stopped while it ran (a headless run's Ctrl-C; the terminal UI's Esc aborts the run alike), which
 *   run_commands records itself with no `is_error`, reads as cancelled, and resumed cline sends it as no error,
 *   as threadbase's context does.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { type AnthropicMessage, sentToolResults } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import {
  blocksOf,
  CLINE_BIN,
  type ClineHome,
  messageItems as items,
  resumeCline,
  resumedRequest,
  resumedWithProbe,
  runCline,
  runCommandRule,
  setupClineHome,
} from '../helpers/cline.js';
import { newestSession } from '../helpers/conversions.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

const SUFFIX = ' -- NOT a tool or system failure. Clarify with user before proceeding.';
let home: ClineHome;
let driver: ClineDriver;
beforeAll(async () => {
  home = await setupClineHome({
    rules: [runCommandRule],
  });
  driver = new ClineDriver(home.env);
});
afterAll(async () => {
  await home?.close();
});

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await driver.getSession(id));
}

async function ourContext(id: string): Promise<string[]> {
  const ctx = JSON.parse(await runCliOk(home.env, ['context', id, '--source', 'cline', '--format', 'anthropic'])) as {
    messages: AnthropicMessage[];
  };
  return ctx.messages.flatMap(items);
}

/** What cline sent of the session resumed with `probe` (without the probe). */
async function resumed(id: string, probe: string): Promise<string[]> {
  await resumeCline(home, id, probe);
  return resumedRequest(home, probe).messages.flatMap(items);
}

const sentResults = (sent: string[]) => sent.filter((s) => s.startsWith('result:')).map((s) => s.replace(/^result:[^:]+:/, ''));

describe('refused calls and the real cline', () => {
  it("a call cline's permission rules refused reads as refused and is resumed as threadbase says", async () => {
    await runCline(home, ['--auto-approve', 'false', 'RUN: touch made.txt']);
    const info = await newestSession(home, 'cline');
    const refusal = JSON.stringify({ error: `Tool "run_commands" requires approval in a TTY session${SUFFIX}` });
    expect((await results(info.id)).map((r) => [r.content, r.isError, r.meta?.refused])).toEqual([[refusal, true, true]]);
    const ours = await ourContext(info.id);
    const sent = await resumed(info.id, 'probe own refusal');
    expect(sentResults(sent)).toEqual([refusal]);
    expect(ours).toEqual(sent);
  }, 180_000);

  it("Gemini CLI's refused and cancelled calls are written as Cline's own and resumed so", async () => {
    const session = geminiDeclinedSession({
      project: home.project,
      model: 'claude-sonnet-4-5',
      tool: 'run_commands',
      cancelledToo: true,
    });
    const info = await driver.writeSession(session);
    const rejected = JSON.stringify({ error: `This tool call was rejected by the user and not executed.${SUFFIX}` });
    const dropped = JSON.stringify({ error: `Tool was not executed${SUFFIX}` });
    expect((await results(info.id)).map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [rejected, true, true, undefined],
      [dropped, true, undefined, true],
    ]);
    const ours = await ourContext(info.id);
    const sent = await resumed(info.id, 'probe gemini refusal');
    expect(sentResults(sent)).toEqual([rejected, dropped]);
    expect(ours).toEqual(sent);
  }, 180_000);

  it('a command stopped while it ran reads as cancelled, no error, and is resumed as threadbase says', async () => {
    const before = home.standIn.messageRequests().length;
    const run = spawn(CLINE_BIN, ['-P', 'anthropic', '--data-dir', home.data, 'RUN: sleep 60'], {
      cwd: home.project,
      env: { PATH: process.env.PATH ?? '', HOME: home.root, TERM: 'xterm-256color', NO_COLOR: '1' },
    });
    const closed = new Promise((done) => run.on('close', done));
    // the call answered: sleep runs; then Ctrl-C stops the run
    await expect.poll(() => home.standIn.messageRequests().length, { timeout: 60_000, interval: 200 }).toBeGreaterThan(before);
    await new Promise((r) => setTimeout(r, 2000));
    run.kill('SIGINT');
    await closed;
    const info = await newestSession(home, 'cline');
    const aborted = JSON.stringify([
      { query: 'sleep 60', result: '', error: 'Command failed: Command was aborted', success: false },
    ]);
    expect((await results(info.id)).map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [aborted, undefined, undefined, true],
    ]);
    const ctx = JSON.parse(await runCliOk(home.env, ['context', info.id, '--source', 'cline', '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    // the turn ended with the result: resumed, cline sends the probe in the result's message, after it
    const request = await resumedWithProbe(home, info.id, 'probe aborted command');
    const last = request.messages.at(-1);
    const sent = [
      ...request.messages.slice(0, -1),
      { ...last, content: blocksOf(last).slice(0, -1) } as AnthropicMessage,
    ].flatMap(items);
    expect(blocksOf(last).at(-1)).toMatchObject({ type: 'text', text: 'probe aborted command' });
    expect(sentResults(sent)).toEqual([aborted]);
    expect(ctx.messages.flatMap(items)).toEqual(sent);
    // sent as no error, as our context has it
    const isError = (ms: AnthropicMessage[]) => sentToolResults(ms).map((b) => b.is_error ?? false);
    expect(isError(request.messages)).toEqual([false]);
    expect(isError(ctx.messages)).toEqual([false]);
  }, 180_000);
});
