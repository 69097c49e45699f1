/**
 * Calls Cline did not run (test/fixtures/cline/denied-3.0.65: the real cline 3.0.65 in its terminal UI with
 * `--auto-approve false`, two calls in one turn; the first prompt dismissed, which Cline records as a
 * denial, then the UI closed while the second waited): the error results `{"error": "<reason> -- NOT a tool
 * or system failure. …"}` read as refused (the user's "This tool call was rejected by the user and not
 * executed.", a headless run's "requires approval in a TTY session") or cancelled ("Tool was not executed":
 * no one was asked), and a refused or cancelled call of another agent written in those words.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { conversionLosses } from '../../src/convert/losses.js';
import { clineDeclinedMark } from '../../src/formats/cline/denials.js';
import { ClineDriver } from '../../src/formats/cline/index.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import { GEMINI_CANCELLED_TEXT, GEMINI_REFUSED_TEXT, geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/cline/denied-3.0.65/data');
const ID = '1795709925386_orqyb';
const REJECTED =
  '{"error":"This tool call was rejected by the user and not executed. -- NOT a tool or system failure. Clarify with user before proceeding."}';
const NOT_EXECUTED = '{"error":"Tool was not executed -- NOT a tool or system failure. Clarify with user before proceeding."}';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

const marks = (rs: ToolResultPart[]) => rs.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled]);

describe("Cline's calls not approved (real 3.0.65)", () => {
  it('read as refused (the user denied it) and cancelled (dropped unasked)', async () => {
    const driver = new ClineDriver({ home: '/nonexistent', env: { CLINE_DATA_DIR: FIXTURE } });
    expect(marks(toolResultsOf(await driver.getSession(ID)))).toEqual([
      [REJECTED, true, true, undefined],
      [NOT_EXECUTED, true, undefined, true],
    ]);
  });

  it('are told by their words only in an error of that form', () => {
    expect(clineDeclinedMark(REJECTED)).toBe('refused');
    // a headless run with --auto-approve false (its permission rules refused it)
    expect(
      clineDeclinedMark(
        '{"error":"Tool \\"run_commands\\" requires approval in a TTY session -- NOT a tool or system failure. Clarify with user before proceeding."}',
      ),
    ).toBe('refused');
    expect(clineDeclinedMark(NOT_EXECUTED)).toBe('cancelled');
    expect(clineDeclinedMark('{"error":"Unknown tool: x"}')).toBeUndefined();
    expect(clineDeclinedMark('This tool call was rejected by the user and not executed.')).toBeUndefined();
  });
});

/** test/fixtures/cline/aborted-3.0.65: `RUN: sleep 30`, the headless run stopped by Ctrl-C while sleep ran */
const ABORTED_FIXTURE = resolve('test/fixtures/cline/aborted-3.0.65/data');
const ABORTED_ID = '1795712703744_w89d1';
const ABORTED_RECORD = [{ query: 'sleep 30', result: '', error: 'Command failed: Command was aborted', success: false }];

describe("a command Cline's user stopped while it ran (real 3.0.65)", () => {
  it('reads as cancelled, not made an error: sent as Cline sends it, copied in its own words', async () => {
    const driver = new ClineDriver({ home: '/nonexistent', env: { CLINE_DATA_DIR: ABORTED_FIXTURE } });
    const source = await driver.getSession(ABORTED_ID);
    const [result] = toolResultsOf(source);
    expect(result).toMatchObject({
      content: JSON.stringify(ABORTED_RECORD),
      meta: { cancelled: true, clineContent: ABORTED_RECORD },
    });
    expect(result?.isError).toBeFalsy();
    expect(result?.meta?.refused).toBeUndefined();
    // the context sends it as recorded, no error, as before the mark
    const sent = sentToolResults(contextToAnthropic(await driver.getContext(ABORTED_ID)).messages);
    expect(sent).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_standin_0001', content: JSON.stringify(ABORTED_RECORD) }]);
    // copied into Cline: its own record, not reworded as a call not run, and no loss said
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-aborted-'));
    homes.push(home);
    const copy = new ClineDriver({ home, env: {} });
    const info = await copy.writeSession(source as Session);
    const doc = JSON.parse(await fs.readFile(info.path as string, 'utf8')) as {
      messages: { content: { type: string; content?: unknown; is_error?: boolean }[] }[];
    };
    const written = sentToolResults(doc.messages);
    expect(written.map((b) => [b.content, b.is_error])).toEqual([[ABORTED_RECORD, undefined]]);
    expect(marks(toolResultsOf(await copy.getSession(info.id)))).toEqual([
      [JSON.stringify(ABORTED_RECORD), undefined, undefined, true],
    ]);
    expect(conversionLosses(source as Session, 'cline').filter((l) => l.includes('refused or cancelled'))).toEqual([]);
  });

  it('only when every command was stopped so', () => {
    const aborted = ABORTED_RECORD[0];
    expect(clineDeclinedMark(JSON.stringify(ABORTED_RECORD))).toBe('cancelled');
    expect(clineDeclinedMark(JSON.stringify([aborted, aborted]))).toBe('cancelled');
    // a command that finished before the abort: the call ran
    expect(clineDeclinedMark(JSON.stringify([{ query: 'ls', result: 'a', success: true }, aborted]))).toBeUndefined();
    expect(clineDeclinedMark(JSON.stringify([{ ...aborted, error: 'Command failed: exit code 1' }]))).toBeUndefined();
    expect(clineDeclinedMark('[]')).toBeUndefined();
  });
});

describe("another agent's refused and cancelled calls written into Cline", () => {
  it("take Cline's words, are read back so, and converting says it reworded them", async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-declined-'));
    homes.push(home);
    const driver = new ClineDriver({ home, env: {} });
    const source = geminiDeclinedSession({
      project: '/work/p',
      model: 'claude-sonnet-4-5',
      tool: 'run_commands',
      cancelledToo: true,
    });
    const info = await driver.writeSession(source);
    const doc = JSON.parse(await fs.readFile(info.path as string, 'utf8')) as {
      messages: { content: { type: string; content?: unknown; is_error?: boolean }[] }[];
    };
    const written = sentToolResults(doc.messages);
    expect(written.map((b) => [b.content, b.is_error])).toEqual([
      [REJECTED, true],
      [NOT_EXECUTED, true],
    ]);
    expect(marks(toolResultsOf(await driver.getSession(info.id)))).toEqual([
      [REJECTED, true, true, undefined],
      [NOT_EXECUTED, true, undefined, true],
    ]);
    expect(conversionLosses(source, 'cline').filter((l) => l.includes('refused or cancelled'))).toEqual([
      expect.stringMatching(/refused or cancelled calls' results written in Cline's words .*\(2\)$/),
    ]);
    expect([GEMINI_REFUSED_TEXT, GEMINI_CANCELLED_TEXT].some((t) => JSON.stringify(doc).includes(t))).toBe(false);
  });
});
