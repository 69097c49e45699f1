/**
 * A call the user refused at Qwen Code's interactive prompt (test/fixtures/qwen/refused-0.24.4: the real
 * 0.24.4 on a pseudo-terminal, Esc at "Allow execution of: 'touch'?"): Qwen Code records a `tool_result`
 * of status `cancelled` with the error "[Operation Cancelled] Reason: User did not allow tool call", the
 * words denials.ts took from its bundle; it reads as refused, not cancelled. Esc while an approved command
 * ran (`echo start && sleep 40`) Qwen Code records as status `cancelled` with "[Operation Cancelled] Reason:
 * The tool had already completed; its output was discarded. User intentionally cancelled. …": cancelled.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { QWEN_REFUSED_RESULT } from '../../src/formats/qwen/denials.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { resultText } from '../../src/model/tree.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/qwen/refused-0.24.4');
const ID = '4dda429b-c6b8-434c-8011-c3c2f58120fd';
const CANCELLED_ID = '4280e023-8644-44e5-86d4-fbe02c9c518a';
const driver = () => new QwenDriver({ home: '/nonexistent', env: { QWEN_HOME: FIXTURE } });
const marks = (rs: ToolResultPart[]) => rs.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled]);

describe("Qwen Code's interactive refusal (real 0.24.4)", () => {
  it('reads as refused in the words Qwen Code wrote', async () => {
    expect(marks(toolResultsOf(await driver().getSession(ID)))).toEqual([[QWEN_REFUSED_RESULT, true, true, undefined]]);
    expect(QWEN_REFUSED_RESULT).toBe('[Operation Cancelled] Reason: User did not allow tool call');
  });

  it('a command the user stopped while it ran reads as cancelled', async () => {
    expect(marks(toolResultsOf(await driver().getSession(CANCELLED_ID)))).toEqual([
      [
        '[Operation Cancelled] Reason: The tool had already completed; its output was discarded. User intentionally cancelled. Stop and await further instructions; do not retry.',
        true,
        undefined,
        true,
      ],
    ]);
  });
});
