/**
 * Tool call states out of the ordinary (test/fixtures/continue/edge-states: states in another order than
 * the calls, a state without output whose result a later `tool` item carries, a `tool` item without its
 * call, a refused and a cancelled call), forked by the real cn 1.5.47 on the loopback stand-in: what it
 * sends is threadbase's context of the session, and of the copy threadbase writes of it.
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import type { Session } from '../../src/model/types.js';
import { anthropicRequestItems, contextItems } from '../helpers/agent-fixtures.js';
import { type AgentHome, runBinary, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, textOf } from '../helpers/conversions.js';

const CN_BIN = resolve('node_modules/.bin/cn');
const ID = '44444444-2222-4333-8444-555555555555';
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome({ rules: [okProbeRule] });
  await fs.mkdir(join(home.root, '.continue', 'sessions'), { recursive: true });
  await fs.writeFile(
    join(home.root, '.continue', 'config.yaml'),
    [
      'name: standin',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: Stand-in',
      '    provider: anthropic',
      '    model: claude-standin',
      '    apiKey: offline',
      `    apiBase: ${home.standIn.url}/v1/`,
      '    roles: [chat]',
      '',
    ].join('\n'),
  );
  const from = resolve('test/fixtures/continue/edge-states/.continue/sessions', `${ID}.json`);
  await fs.copyFile(from, join(home.root, '.continue', 'sessions', `${ID}.json`));
}, 60_000);
afterAll(async () => {
  await home?.close();
});

function requestEndingWith(probe: string): AnthropicRequest {
  const req = home.standIn.messageRequests().find((r) => {
    const last = r.messages.at(-1);
    return last?.role === 'user' && textOf(last.content as Parameters<typeof textOf>[0]).at(-1) === probe;
  });
  if (!req) throw new Error(`cn sent no request ending with ${probe}`);
  return req;
}

/** `cn --fork <id> <probe>`: what it sent before the probe, and threadbase's context of the session. */
async function forked(id: string, probe: string): Promise<{ sent: string[]; ours: string[] }> {
  const ours = contextItems(await readContext(home, 'continue', id), { trimResults: true });
  const env = { PATH: `${resolve('node_modules/.bin')}:${process.env.PATH ?? ''}`, HOME: home.root, NO_COLOR: '1', TERM: 'dumb' };
  await runBinary(process.execPath, [CN_BIN, '-p', '--auto', '--fork', id, probe], home.project, env);
  const sent = anthropicRequestItems(requestEndingWith(probe).messages, { trimResults: true });
  expect(sent.at(-1)).toBe(`user:${probe}`);
  return { sent: sent.slice(0, -1), ours };
}

describe('a Continue session with tool call states out of the ordinary', () => {
  it('is sent by the real cn --fork as threadbase’s context of it says, and so is the copy threadbase writes', async () => {
    const own = await forked(ID, 'probe edge states');
    expect(own.sent.filter((s) => s.startsWith('result:'))).toEqual([
      'result:c3:C3OUT',
      'result:c1:Tool cancelled',
      'result:c2:C2OUT',
      'result:c1:C1 LATE',
      'result:c9:ORPHAN',
      'result:d1:Permission denied by user',
      'result:d2:Tool cancelled',
    ]);
    expect(own.sent).toEqual(own.ours);
    const driver = new ContinueDriver(home.env);
    const copy = await driver.writeSession((await driver.getSession(ID)) as Session);
    const written = await forked(copy.id, 'probe edge states copy');
    expect(written.sent).toEqual(own.sent);
    expect(written.sent).toEqual(written.ours);
  }, 180_000);
});
