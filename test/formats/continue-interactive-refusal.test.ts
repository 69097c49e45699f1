/**
 * A call the user refused at cn's interactive prompt (test/fixtures/continue/refused-interactive-1.5.47: the
 * real cn 1.5.47 in its terminal UI on a pseudo-terminal, Esc at "Would you like to continue?"): cn records
 * the call's state `status: "canceled"` with the output "Permission denied by user", the words denials.ts
 * took from its sources; it reads as refused, and threadbase's context for cn sends those words.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { PERMISSION_DENIED } from '../../src/formats/continue/denials.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import { resultText } from '../../src/model/tree.js';
import { toolResultsOf } from '../helpers/sessions.js';

const ROOT = resolve('test/fixtures/continue/refused-interactive-1.5.47/.continue');
const ID = 'c56ad20e-b2ca-41d8-a69d-5fdd68059146';

describe("cn's interactive refusal (real 1.5.47)", () => {
  it('reads as refused in the words cn wrote', async () => {
    const driver = new ContinueDriver({ home: '/nonexistent', env: { CONTINUE_GLOBAL_DIR: ROOT } });
    const results = toolResultsOf(await driver.getSession(ID));
    expect(results.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [PERMISSION_DENIED, true, true, undefined],
    ]);
    expect(PERMISSION_DENIED).toBe('Permission denied by user');
    expect((await driver.listSessions()).map((s) => s.id)).toEqual([ID]);
  });
});
