/**
 * The real cline (3.0.65, on the loopback stand-in) killed while a tool runs (SIGKILL mid `run_commands`):
 * its files stay as a live run's (the call without a result, the manifest `running`). While its process
 * lives the call reads open; once the process is gone (Cline's own rule: a live status whose pid is gone
 * is a dead run) it reads with Cline's interrupted result, marked cancelled, without a file changing, and
 * the unit's version changes so an index reads it again. Resumed, cline sends that result, and
 * threadbase's context of the session is the request cline sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import type { SourceUnit } from '../../src/model/driver.js';
import type { ToolResultPart } from '../../src/model/types.js';
import type { AnthropicMessage } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import {
  blocksOf,
  CLINE_BIN,
  type ClineHome,
  messageItems,
  resumedWithProbe,
  runCommandRule,
  setupClineHome,
} from '../helpers/cline.js';
import { okProbeRule } from '../helpers/conversions.js';
import { toolResultsOf } from '../helpers/sessions.js';

let home: ClineHome;
let run: ChildProcess | undefined;
let clinePid = 0;

beforeAll(async () => {
  home = await setupClineHome({
    rules: [runCommandRule, okProbeRule],
  });
});
afterAll(async () => {
  // only what this test started: the wrapper and the cline it ran
  for (const pid of [clinePid, run?.pid ?? 0]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await home?.close();
});

function alive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const INTERRUPTED = JSON.stringify([
  { type: 'text', text: 'Tool execution was interrupted before a result was produced. Tool: run_commands.' },
]);

it('a run killed mid-call reads open while it lives, interrupted once gone, and is resumed as threadbase says', async () => {
  const sessions = join(home.data, 'sessions');
  run = spawn(CLINE_BIN, ['-P', 'anthropic', '--data-dir', home.data, 'RUN: sleep 20'], {
    cwd: home.project,
    env: { PATH: process.env.PATH ?? '', HOME: home.root, TERM: 'xterm-256color', NO_COLOR: '1' },
    stdio: 'ignore',
  });
  // the call answered and sleep running: the manifest names cline's own process (the wrapper's child)
  await expect.poll(() => home.standIn.messageRequests().length, { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
  await new Promise((r) => setTimeout(r, 2000));
  const [id] = await fs.readdir(sessions);
  const manifestFile = join(sessions, id as string, `${id}.json`);
  const manifest = JSON.parse(await fs.readFile(manifestFile, 'utf8')) as { status: string; pid: number };
  clinePid = manifest.pid;
  expect(manifest.status).toBe('running');
  expect(alive(clinePid)).toBe(true);

  const driver = new ClineDriver(home.env);
  const unitOf = async (): Promise<SourceUnit | undefined> => (await driver.listUnits()).find((u) => u.sessionId === id);
  const live = await driver.getSession(id as string);
  const call = live?.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).find((p) => p.type === 'tool_call');
  expect(call).toMatchObject({ name: 'run_commands', input: { commands: ['sleep 20'] } });
  // live: the call is open (its result may yet come)
  expect(toolResultsOf(live)).toEqual([]);
  const liveUnit = await unitOf();

  // killed while the tool runs: its files are left as they were
  const files = async () => Promise.all([fs.readFile(manifestFile, 'utf8'), fs.readFile(live?.path as string, 'utf8')]);
  const before = await files();
  process.kill(clinePid, 'SIGKILL');
  run.kill('SIGKILL');
  await expect.poll(() => alive(clinePid), { timeout: 10_000, interval: 100 }).toBe(false);
  expect(await files()).toEqual(before);

  // gone: Cline's answer to the call, marked cancelled; the unit's version says it changed
  const dead = await new ClineDriver(home.env).getSession(id as string);
  const results: ToolResultPart[] = toolResultsOf(dead);
  expect(results.map((r) => [r.callId, r.isError, r.meta?.cancelled])).toEqual([
    [call?.type === 'tool_call' && call.id, true, true],
  ]);
  expect(JSON.stringify(results[0]?.content)).toBe(INTERRUPTED);
  expect((await unitOf())?.version).not.toBe(liveUnit?.version);
  // the same driver (its cache) reads it again too
  expect(toolResultsOf(await driver.getSession(id as string))).toEqual(results);

  // threadbase's context is the request the resumed cline sends, the call answered in Cline's words
  const ctx = JSON.parse(await runCliOk(home.env, ['context', id as string, '--source', 'cline', '--format', 'anthropic'])) as {
    messages: AnthropicMessage[];
  };
  // the turn ended with the call: cline sends the probe in the message of its result, after it
  const request = await resumedWithProbe(home, id as string, 'probe killed', 1500);
  const last = request.messages.at(-1);
  expect(blocksOf(last).at(-1)).toMatchObject({ type: 'text', text: 'probe killed' });
  const sent = [...request.messages.slice(0, -1), { ...last, content: blocksOf(last).slice(0, -1) } as AnthropicMessage].flatMap(
    messageItems,
  );
  expect(sent.filter((s) => s.startsWith('result:'))).toEqual([`result:${call?.type === 'tool_call' && call.id}:${INTERRUPTED}`]);
  expect(ctx.messages.flatMap(messageItems)).toEqual(sent);
  // cline marked the run failed on resume (its reconciler), and still keeps no result in the file:
  // read again, the result is there once, with the probe and its answer after it
  const after = JSON.parse(await fs.readFile(manifestFile, 'utf8')) as { metadata?: { terminal_marker?: string } };
  expect(after.metadata?.terminal_marker).toBe('failed_external_process_exit');
  const resumed = await new ClineDriver(home.env).getSession(id as string);
  expect(toolResultsOf(resumed).map((r) => r.callId)).toEqual(results.map((r) => r.callId));
}, 240_000);
