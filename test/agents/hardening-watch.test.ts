/**
 * Hardening (issue 11), with a real agent: the real pi appends to its session (prompts continued
 * with -c, a real bash tool call) against the loopback Anthropic stand-in while `threadbase sync
 * --watch` runs as its own process and the test reads the index it builds. Every read sees whole
 * entries only, the index never goes back, and once pi is done the watch has indexed exactly the
 * entries pi wrote, with no warning.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { recordFigures } from '../hardening/stores.js';
import { type AgentHome, runPi, setupAgentHome } from '../helpers/agents.js';

const PROMPTS = ['say hello', 'RUN: echo one > a.txt', 'say more', 'RUN: echo two > b.txt', 'say bye'];

let agentHome: AgentHome;
let home: string;
let env: DriverEnv;
let watch: ChildProcess | undefined;

/** `pi --provider standin --model … <args>` in the temp project (test/helpers/agents.ts). */
function pi(args: string[]): Promise<string> {
  return runPi(agentHome, args);
}

beforeAll(async () => {
  agentHome = await setupAgentHome();
  ({ root: home, env } = agentHome);
});

afterAll(async () => {
  if (watch && watch.exitCode === null) watch.kill('SIGKILL');
  await agentHome?.close();
});

describe('real pi appending while sync --watch indexes', () => {
  it('every read of the index sees whole entries; at the end it holds exactly what pi wrote', async () => {
    // The first turn makes the session, so the watch starts on a store that has one.
    await pi(['-p', PROMPTS[0] as string]);
    const indexFile = join(home, '.threadbase', 'index.db');
    watch = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/hardening/cli-child.ts', 'sync', '--watch', '--json', '--interval', '150'],
      {
        env: { ...process.env, HOME: home, THREADBASE_HOME: join(home, '.threadbase') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let watchOut = '';
    watch.stdout?.on('data', (d: Buffer) => {
      watchOut += d.toString();
    });
    watch.stderr?.on('data', (d: Buffer) => {
      watchOut += d.toString();
    });
    const watchExit = new Promise<number | null>((r) => watch?.on('exit', (code) => r(code)));
    // The first sync has written the index when its report is out.
    while (!watchOut.includes('"units"')) {
      if (watch.exitCode !== null) throw new Error(`sync --watch exited: ${watchOut}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const id = (await new PiDriver(env).listSessions())[0]?.id as string;
    expect(id).toBeTruthy();

    let reads = 0;
    let last = 0;
    const readIndex = () => {
      const store = openSqliteStore(indexFile, { readonly: true });
      return store
        .getSession(id)
        .then((s) => {
          reads++;
          const entries = s?.entries ?? [];
          // Whole entries only: each message has its role and parts as pi wrote them.
          for (const e of entries) if (e.kind === 'message') expect(Array.isArray(e.message.parts), e.id).toBe(true);
          expect(entries.length, 'the index never goes back').toBeGreaterThanOrEqual(last);
          last = entries.length;
          return s;
        })
        .finally(() => store.close());
    };
    // pi continues the session turn by turn while the test keeps reading the index.
    let piDone = false;
    const turns = (async () => {
      for (const p of PROMPTS.slice(1)) await pi(['-c', '-p', p]);
      piDone = true;
    })();
    while (!piDone) {
      await readIndex();
      await new Promise((r) => setTimeout(r, 100));
    }
    await turns;

    const own = await new PiDriver(env).getSession(id);
    expect(own?.warnings).toEqual([]);
    const want = own?.entries.map((e) => e.id) ?? [];
    expect(want.length).toBeGreaterThan(PROMPTS.length * 2);
    // The watch catches up by itself (no sync is run here): wait until it has.
    let indexed = await readIndex();
    while ((indexed?.entries.length ?? 0) < want.length) {
      if (watch.exitCode !== null) throw new Error(`sync --watch exited: ${watchOut}`);
      await new Promise((r) => setTimeout(r, 150));
      indexed = await readIndex();
    }
    expect(indexed?.entries.map((e) => e.id)).toEqual(want);
    expect(indexed?.warnings ?? []).toEqual([]);
    watch.kill('SIGTERM');
    expect(await watchExit).toBe(0);
    await recordFigures('agents-watch', {
      agent: 'pi',
      turns: PROMPTS.length,
      entries: want.length,
      indexReadsWhileAppending: reads,
    });
  });
});
