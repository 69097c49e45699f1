/**
 * Tool call states out of the ordinary (test/fixtures/continue/edge-states: states in another order than
 * the calls, a state without output whose result a later `tool` item carries, a `tool` item without its
 * call, a refused and a cancelled call), forked by the real cn 1.5.47 on the loopback stand-in: what it
 * sends is threadbase's context of the session, and of the copy threadbase writes of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import { forkedByCn, placeContinueFixture, writeContinueConfig } from '../helpers/continue.js';
import { EDGE_STATES_SENT_RESULTS } from '../helpers/continue-items.js';
import { okProbeRule } from '../helpers/conversions.js';

const ID = '44444444-2222-4333-8444-555555555555';
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome({ rules: [okProbeRule] });
  await writeContinueConfig(home);
  await placeContinueFixture(home, 'edge-states', ID);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

describe('a Continue session with tool call states out of the ordinary', () => {
  it('is sent by the real cn --fork as threadbase’s context of it says, and so is the copy threadbase writes', async () => {
    const own = await forkedByCn(home, ID, 'probe edge states');
    expect(own.sent.filter((s) => s.startsWith('result:'))).toEqual(EDGE_STATES_SENT_RESULTS);
    expect(own.sent).toEqual(own.ours);
    const driver = new ContinueDriver(home.env);
    const copy = await driver.writeSession((await driver.getSession(ID)) as Session);
    const written = await forkedByCn(home, copy.id, 'probe edge states copy');
    expect(written.sent).toEqual(own.sent);
    expect(written.sent).toEqual(written.ours);
  }, 180_000);
});
