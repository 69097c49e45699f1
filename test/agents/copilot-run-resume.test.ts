/**
 * The resume command the driver gives a Copilot CLI sub-agent run (a session of its own in threadbase,
 * its id the run's agentId) run by bash with the real `copilot` (@github/copilot 1.0.102) offline against
 * the Anthropic stand-in: it resumes the session that holds the run, which sends its main chain (the run's
 * result in it). Copilot CLI itself refuses the run's own id: no session has it.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { copilotOfflineEnv } from '../helpers/agents.js';
import { type AnthropicMessage, type StandIn, startAnthropicStandIn, textOf } from '../helpers/anthropic-standin.js';
import { COPILOT_SKIP } from '../helpers/copilot.js';

const WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';

let dir: string;
let env: DriverEnv;
let standIn: StandIn;

beforeAll(async () => {
  if (COPILOT_SKIP) return;
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-copilot-run-resume-'));
  await fs.cp('test/fixtures/copilot/real-1.0.102/.copilot', join(dir, '.copilot'), { recursive: true });
  // the session's project here (the resume command goes there first)
  const project = join(dir, 'work3');
  await fs.mkdir(project);
  const workspace = join(dir, '.copilot', 'session-state', WITH_RUN, 'workspace.yaml');
  await fs.writeFile(workspace, (await fs.readFile(workspace, 'utf8')).replace(/^cwd: .*$/m, `cwd: ${project}`));
  standIn = await startAnthropicStandIn();
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), COPILOT_HOME: join(dir, '.copilot') } };
});
afterAll(async () => {
  await standIn?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** Runs a printed command plus print-mode flags with bash, as a user pasting it would; its exit code and output. */
async function runPrinted(command: string, probe: string): Promise<{ code: number; output: string }> {
  try {
    const r = await promisify(execFile)('bash', ['-c', `${command} -p ${probe} --allow-all-tools --no-auto-update < /dev/null`], {
      cwd: dir,
      timeout: 180_000,
      env: copilotOfflineEnv(dir, standIn.url, `${resolve('node_modules/.bin')}:${process.env.PATH}`),
    });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

const plain = (m: AnthropicMessage) => ({ role: m.role, text: textOf(m) });

describe.skipIf(COPILOT_SKIP)("a Copilot CLI run's resume command", () => {
  it('resumes the session that holds the run (its main chain sent); the run id alone Copilot CLI refuses', async () => {
    const sources = new Sources(env);
    const driver = sources.driver('copilot');
    const run = (await driver.listSessions()).find((s) => s.id === RUN);
    expect(run?.parentId).toBe(WITH_RUN);
    const command = driver.resumeCommand?.(run as NonNullable<typeof run>) as string;
    const expected = contextToAnthropic(await driver.getContext(WITH_RUN)).messages as AnthropicMessage[];
    await sources.close();

    const before = standIn.messageRequests().length;
    const resumed = await runPrinted(command, 'PROBE-RUN-RESUME');
    expect(resumed.code, resumed.output).toBe(0);
    const sent = standIn.messageRequests().slice(before)[0]?.messages ?? [];
    expect(textOf(sent.at(-1))).toContain('PROBE-RUN-RESUME');
    // the session's turns as threadbase's context of it says (its main chain: the run's call and result)
    expect(expected.length).toBeGreaterThan(2);
    expect(sent.slice(0, -1).map(plain)).toEqual(expected.map(plain));

    // what the run's id would have given: Copilot CLI has no session by it
    const refused = await runPrinted(command.replace(`--resume=${WITH_RUN}`, `--resume=${RUN}`), 'PROBE-RUN-ID');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`No session, task, or name matched '${RUN}'`);
  });
});
