/**
 * A Claude Code session converted back into Claude Code with `--project DIR`, its recorded project
 * missing on this machine: the written records name DIR as their cwd, so it reads back in DIR and the
 * real claude resumes it there (the fixture's compaction summary and the prompt after it sent).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { okProbeRule, readSession, resumeInTarget, textOf, type Written } from '../helpers/conversions.js';

const PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** the fixture's recorded project, made missing here (the copy names a folder under the home) */
const RECORDED = '/tmp/cc/proj';

let home: AgentHome;
let missing: string;
beforeAll(async () => {
  home = await setupAgentHome({ rules: [okProbeRule] });
  missing = join(home.root, 'gone', 'proj');
  const from = 'test/fixtures/claude/real/projects/-tmp-cc-proj';
  const to = join(home.root, '.claude', 'projects', 'gone-proj');
  await fs.mkdir(to, { recursive: true });
  const text = await fs.readFile(join(from, `${PARENT}.jsonl`), 'utf8');
  await fs.writeFile(join(to, `${PARENT}.jsonl`), text.split(RECORDED).join(missing));
}, 180_000);
afterAll(async () => {
  await home?.close();
});

it('claude resumes a Claude Code session converted with --project in that directory', async () => {
  const written = JSON.parse(
    await runCliOk(home.env, ['convert', PARENT, '--source', 'claude', '--to', 'claude', '--project', home.project, '--json']),
  ) as Written;
  expect((await readSession(home, 'claude', written.id)).project).toBe(home.project);
  // resumed in the session's project as it reads back, the request found by the probe sent last
  const sent = await resumeInTarget(home, 'claude', written, 'probe moved project');
  const texts = sent.flatMap((m) => textOf(m.content as string | Block[]));
  expect(texts).toContain('after compact');
}, 180_000);
