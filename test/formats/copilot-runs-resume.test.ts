/**
 * The resume command of a Copilot CLI sub-agent run (a session of its own: side-chains.ts runSessions)
 * is its session's: Copilot CLI resumes no run by its agentId (test/agents/copilot-run-resume.test.ts
 * runs both with the real binary). A run inside a run resumes the session that holds both.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { subAgentTree } from '../helpers/sub-agents.js';

const WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';

let dir: string;
let env: DriverEnv;
let sources: Sources;
let driver: SessionDriver;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-copilot-runs-resume-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), COPILOT_HOME: join(dir, '.copilot') } };
  cpSync('test/fixtures/copilot/real-1.0.102/.copilot', join(dir, '.copilot'), { recursive: true });
  mkdirSync(join(dir, 'project'));
  sources = new Sources(env);
  driver = sources.driver('copilot');
});
afterAll(async () => {
  await sources.close();
  rmSync(dir, { recursive: true, force: true });
});

const info = async (id: string): Promise<SessionInfo> => {
  const found = (await driver.listSessions()).find((s) => s.id === id);
  if (!found) throw new Error(`${id} not listed`);
  return found;
};

it("a run's resume command resumes the session that holds it", async () => {
  const run = await info(RUN);
  expect(run.parentId).toBe(WITH_RUN);
  const command = driver.resumeCommand?.(run);
  expect(command).toBe(driver.resumeCommand?.(await info(WITH_RUN)));
  expect(command).toContain(`copilot --resume=${WITH_RUN}`);
  expect(command).not.toContain(RUN);
});

it("a run inside a run, and a run as writeChildSession returned it: the outermost session's command", async () => {
  const tree = subAgentTree(join(dir, 'project'));
  const [written] = (await convertSessionAll(tree.parent, { to: 'copilot', env, childrenOf: tree.childrenOf })) as [
    WrittenSession,
  ];
  const child = written.children?.[0] as WrittenSession;
  const grandchild = child.children?.[0] as WrittenSession;
  const expected = `cd ${join(dir, 'project')} && COPILOT_HOME=${join(dir, '.copilot')} copilot --resume=${written.id}`;
  expect(driver.resumeCommand?.(written)).toBe(expected);
  expect(driver.resumeCommand?.(await info(grandchild.id))).toBe(expected);
  expect((await info(grandchild.id)).parentId).toBe(child.id);
  // as written (the driver that wrote the run), and as listed by a driver that did not
  expect(sources.driver('copilot').resumeCommand?.(child)).toBe(expected);
  const fresh = new Sources(env);
  try {
    expect(fresh.driver('copilot').resumeCommand?.(await info(child.id))).toBe(expected);
  } finally {
    await fresh.close();
  }
});
