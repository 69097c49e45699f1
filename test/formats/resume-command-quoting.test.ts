/**
 * The resume commands the drivers print (convert --handoff, the viewer's handoff) are run by a shell:
 * each agent's command, run by bash with a project path (and CODEX_HOME, a session file) holding a
 * space, `$`, a backtick, a single quote, `!` and a double quote, reaches that very directory and passes
 * those very words, with the agent replaced by a stand-in that prints what it got.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { shellQuote } from '../../src/formats/shared/shell.js';
import type { SessionInfo } from '../../src/model/types.js';

const AWKWARD = `it's a "$HOME" \`id\` dir! $(echo x)`;
/** The variable naming each agent's home that its resume command sets (when threadbase was given one). */
const HOME_VARS: Record<string, string | undefined> = {
  claude: undefined,
  pi: undefined,
  opencode: undefined,
  kilo: undefined,
  codex: 'CODEX_HOME',
  gemini: 'GEMINI_CLI_HOME',
  qwen: 'QWEN_HOME',
  cline: 'CLINE_DIR',
  copilot: 'COPILOT_HOME',
  continue: 'CONTINUE_GLOBAL_DIR',
};
/** The agents whose command is not their name. */
const BIN_NAMES: Record<string, string> = { continue: 'cn' };
let root: string;
let project: string;
let bin: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'tb-resume-quoting-')));
  project = join(root, AWKWARD);
  await mkdir(project, { recursive: true });
  bin = join(root, 'bin');
  await mkdir(bin);
  // each agent's stand-in prints its directory, its home variable and each argument on a line
  for (const [agent, home] of Object.entries(HOME_VARS)) {
    const file = join(bin, BIN_NAMES[agent] ?? agent);
    await writeFile(file, `#!/bin/sh\nprintf "%s\\n" "$PWD" "\${${home ?? 'NO_HOME_VAR'}}" "$@"\n`);
    await chmod(file, 0o755);
  }
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** What the stand-in printed when bash ran `command`: [directory, CODEX_HOME, ...arguments]. */
function run(command: string): string[] {
  const out = execFileSync('bash', ['-c', command], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: '/nonexistent-home' },
    encoding: 'utf8',
  });
  return out.replace(/\n$/, '').split('\n');
}

function info(source: string, extra: Partial<SessionInfo> = {}): SessionInfo {
  const now = new Date().toISOString();
  return { id: 'abc-123', source, project, createdAt: now, updatedAt: now, messageCount: 1, ...extra };
}

it('shellQuote gives back every word as it is through bash, and leaves plain words bare', () => {
  const words = [AWKWARD, '', "'", "''", '\\', 'a\nb', '~/x', '-n', 'a=b', '*', '#x', 'é 日本', '%1'];
  for (const w of words) expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(w)}`], { encoding: 'utf8' })).toBe(w);
  expect(shellQuote('/home/me/proj-1.2_x')).toBe('/home/me/proj-1.2_x');
  expect(shellQuote('0afea31a-5ccc-4b41-8d19-4c8571cb3a03')).toBe('0afea31a-5ccc-4b41-8d19-4c8571cb3a03');
});

it("each agent's resume command reaches the project directory and passes its words whole", () => {
  const homeOf = (agent: string) => join(root, `${agent} $home 'x'`);
  const env: Record<string, string> = { HOME: root };
  for (const [agent, name] of Object.entries(HOME_VARS)) if (name) env[name] = homeOf(agent);
  const sources = new Sources({ home: root, env });
  const sessionFile = join(project, 'session `1`.jsonl');
  const expected: Record<string, string[]> = {
    claude: [project, '', '--resume', 'abc-123'],
    pi: [project, '', '--session', sessionFile],
    codex: [project, homeOf('codex'), 'resume', 'abc-123'],
    opencode: [project, '', '--session', 'abc-123'],
    kilo: [project, '', '--session', 'abc-123'],
    gemini: [project, homeOf('gemini'), '--resume', 'abc-123'],
    qwen: [project, homeOf('qwen'), '--resume', 'abc-123'],
    cline: [project, homeOf('cline'), '--id', 'abc-123'],
    copilot: [project, homeOf('copilot'), '--resume=abc-123'],
    continue: [project, homeOf('continue'), '--fork', 'abc-123'],
  };
  for (const [agent, want] of Object.entries(expected)) {
    const command = sources.driver(agent).resumeCommand?.(info(agent, agent === 'pi' ? { path: sessionFile } : {}));
    expect(command, agent).toBeDefined();
    expect(run(command as string), `${agent}: ${command}`).toEqual(want);
  }
});
