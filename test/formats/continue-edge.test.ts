/**
 * Tool call states out of the ordinary (test/fixtures/continue/edge-states, hand-written, with what the real
 * cn 1.5.47 sent on `--fork`): results go in the order of the states (convertFromUnifiedHistory walks them,
 * not the calls); a state without output is sent as "Tool cancelled" where it is, even when a later `tool`
 * item carries the call's result, which cn sends where that item stands; a `tool` item whose call is missing
 * is sent as a tool result all the same.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver, continueContext } from '../../src/formats/continue/index.js';
import type { Session } from '../../src/model/types.js';
import {
  EDGE_STATES_SENT_RESULTS,
  contextLines as items,
  type RequestMessage,
  requestLines as requestItems,
} from '../helpers/continue-items.js';

const ROOT = resolve('test/fixtures/continue/edge-states');
const ID = '44444444-2222-4333-8444-555555555555';

describe('Continue CLI: tool call states out of the ordinary, as the real cn sends them on --fork', () => {
  it('results in the order of the states, "Tool cancelled" and a later tool item both, a tool item without its call as a result', async () => {
    const driver = new ContinueDriver({ home: '/nonexistent', env: { CONTINUE_GLOBAL_DIR: join(ROOT, '.continue') } });
    const s = (await driver.getSession(ID)) as Session;
    const sent = JSON.parse(await readFile(join(ROOT, 'fork-requests.json'), 'utf8')) as Record<string, RequestMessage[]>;
    const cnSent = requestItems(sent[ID] ?? []).slice(0, -1);
    expect(cnSent.filter((i) => i.startsWith('result:'))).toEqual(EDGE_STATES_SENT_RESULTS);
    expect(items(continueContext(s))).toEqual(cnSent);
    // written again: the states in their order, the tool items as such, so cn sends the same
    const dir = await mkdtemp(join(tmpdir(), 'tb-continue-edge-'));
    try {
      const writer = new ContinueDriver({ home: dir, env: {} });
      const info = await writer.writeSession(s);
      const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as {
        history: { message: { role: string }; toolCallStates?: { toolCallId: string }[] }[];
      };
      expect(doc.history.map((h) => [h.message.role, h.toolCallStates?.map((t) => t.toolCallId)])).toEqual([
        ['user', undefined],
        ['assistant', ['c3', 'c1', 'c2']],
        ['tool', undefined],
        ['tool', undefined],
        ['user', undefined],
        ['assistant', ['d1', 'd2']],
        ['assistant', undefined],
      ]);
      expect(items(continueContext((await writer.getSession(info.id)) as Session))).toEqual(cnSent);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
