/**
 * A call the user refused at cn's interactive prompt (test/fixtures/continue/refused-interactive-1.5.47: the
 * real cn 1.5.47 in its terminal UI on a pseudo-terminal, Esc at "Would you like to continue?"): cn records
 * the call's state `status: "canceled"` with the output "Permission denied by user", the words denials.ts
 * took from its sources; it reads as refused. A command the user stopped while it ran (Esc) cn leaves in
 * state `calling` with the output so far, no words of its own; forked (`cn -p --fork`), cn sends that output
 * as the call's result, no error: threadbase reads it so, unmarked.
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
const INTERRUPTED_ID = '9b1fc9fc-8329-442f-9e4d-ee40e37de6af';

describe("cn's interactive refusal (real 1.5.47)", () => {
  it('reads as refused in the words cn wrote', async () => {
    const driver = new ContinueDriver({ home: '/nonexistent', env: { CONTINUE_GLOBAL_DIR: ROOT } });
    const results = toolResultsOf(await driver.getSession(ID));
    expect(results.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [PERMISSION_DENIED, true, true, undefined],
    ]);
    expect(PERMISSION_DENIED).toBe('Permission denied by user');
    expect((await driver.listSessions()).map((s) => s.id).sort()).toEqual([INTERRUPTED_ID, ID].sort());
  });

  it('a command stopped while it ran reads as cn sends it: its output so far, no error, no mark', async () => {
    const driver = new ContinueDriver({ home: '/nonexistent', env: { CONTINUE_GLOBAL_DIR: ROOT } });
    const results = toolResultsOf(await driver.getSession(INTERRUPTED_ID));
    expect(results.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      ['start\n', undefined, undefined, undefined],
    ]);
  });
});
