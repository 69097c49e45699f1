/**
 * The test launcher of the real cline (test/helpers/cline.ts) leaves no cline running: `script` puts
 * cline in a session of its own and cline catches SIGHUP and SIGTERM, so ending `script` alone could
 * leave it behind: the real cline still busy loading a big session did not end with `script`. A resume
 * of such a session forced past its timeout (its probe never typed, the transcript text it waits for
 * never shown) ends every process the launch started.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Message } from '../../src/model/types.js';
import { type ClineHome, pidsWithEnv, resumeCline, setupClineHome } from '../helpers/cline.js';
import { okProbeRule, withDriver } from '../helpers/conversions.js';
import { chainSession } from '../helpers/sessions.js';

let home: ClineHome;
beforeAll(async () => {
  home = await setupClineHome({ rules: [okProbeRule] });
});
afterAll(async () => home?.close());

describe('resumeCline past its timeout', () => {
  it('fails and leaves no process of that cline running', async () => {
    // 600 messages, 6 MB of text: Cline takes seconds to load and show them
    const turns: [string, Message][] = [];
    for (let i = 0; i < 300; i++) {
      turns.push([`u${i}`, { role: 'user', parts: [{ type: 'text', text: `question ${i}` }] }]);
      const text = `line ${i}\n`.repeat(2_000);
      turns.push([`a${i}`, { role: 'assistant', model: 'claude-sonnet-4-5', parts: [{ type: 'text', text }] }]);
    }
    const info = await withDriver(home.env, 'cline', async (d) =>
      d.writeSession?.(chainSession('launcher', 'pi', home.project, turns)),
    );
    // every process of this home (cline's HOME): none before, some while it runs, none after
    const running = () => pidsWithEnv(`HOME=${home.root}`);
    expect(await running()).toEqual([]);
    const resumed = resumeCline(home, info?.id as string, 'probe', home.project, [], 'a text never shown', 3_000);
    const outcome = resumed.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await running()).length).toBeGreaterThan(0);
    expect(await outcome).toMatch(/did not answer probe in 3000 ms/);
    expect(await running()).toEqual([]);
    // and none comes back (a process reparented while the launch ended)
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await running()).toEqual([]);
  }, 60_000);
});
