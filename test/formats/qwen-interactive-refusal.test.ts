/**
 * A call the user refused at Qwen Code's interactive prompt (test/fixtures/qwen/refused-0.24.4: the real
 * 0.24.4 on a pseudo-terminal, Esc at "Allow execution of: 'touch'?"): Qwen Code records a `tool_result`
 * of status `cancelled` with the error "[Operation Cancelled] Reason: User did not allow tool call", the
 * words denials.ts took from its bundle; it reads as refused, not cancelled.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { QWEN_REFUSED_RESULT } from '../../src/formats/qwen/denials.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { resultText } from '../../src/model/tree.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/qwen/refused-0.24.4');
const ID = '4dda429b-c6b8-434c-8011-c3c2f58120fd';

describe("Qwen Code's interactive refusal (real 0.24.4)", () => {
  it('reads as refused in the words Qwen Code wrote', async () => {
    const driver = new QwenDriver({ home: '/nonexistent', env: { QWEN_HOME: FIXTURE } });
    const results = toolResultsOf(await driver.getSession(ID));
    expect(results.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [QWEN_REFUSED_RESULT, true, true, undefined],
    ]);
    expect(QWEN_REFUSED_RESULT).toBe('[Operation Cancelled] Reason: User did not allow tool call');
  });
});
