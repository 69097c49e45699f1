/**
 * Hardening (issue 11), with a real agent: the real pi appends to its session (prompts continued
 * with -c, a real bash tool call) against the loopback Anthropic stand-in while `threadbase sync
 * --watch` runs as its own process and the test reads the index it builds. Every read sees whole
 * entries only, the index never goes back, and once pi is done the watch has indexed exactly the
 * entries pi wrote, with no warning.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { recordFigures } from '../hardening/stores.js';
import { type StandIn, startAnthropicStandIn } from '../helpers/anthropic-standin.js';

const PI = resolve('node_modules/.bin/pi');
const PROVIDER = 'standin';
const MODEL = 'claude-standin';
const PROMPTS = ['say hello', 'RUN: echo one > a.txt', 'say more', 'RUN: echo two > b.txt', 'say bye'];

let standIn: StandIn;
let home: string;
let project: string;
let env: DriverEnv;
let watch: ChildProcess | undefined;

function pi(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(PI, ['--provider', PROVIDER, '--model', MODEL, ...args], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: home, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`pi ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

beforeAll(async () => {
  standIn = await startAnthropicStandIn();
  home = await fs.mkdtemp(join(tmpdir(), 'tb-hard-watch-'));
  project = join(home, 'project');
  await fs.mkdir(project, { recursive: true });
  await fs.mkdir(join(home, '.pi', 'agent'), { recursive: true });
  await fs.writeFile(
    join(home, '.pi', 'agent', 'models.json'),
    JSON.stringify({
      providers: {
        [PROVIDER]: {
          baseUrl: standIn.url,
          api: 'anthropic-messages',
          apiKey: 'offline',
          models: [{ id: MODEL, name: 'stand-in', reasoning: false, input: ['text'], contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    }),
  );
  env = { home, env: {} };
});

afterAll(async () => {
  if (watch && watch.exitCode === null) watch.kill('SIGKILL');
  await standIn?.close();
  await fs.rm(home, { recursive: true, force: true });
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
