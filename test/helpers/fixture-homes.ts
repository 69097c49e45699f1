/**
 * A new temporary HOME holding agent sessions from test/fixtures, each copied where its agent keeps
 * them, for the tests that read them as a user's machine holds them: named fixtures (`fixtures`), or
 * every fixture of some agents (`agents`: the hardening tests run over all of them), or both.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DriverEnv } from '../../src/model/driver.js';

/** Claude Code: three prompts, each answered by one response written as four records (text, three tool calls) */
export const PARALLEL_ID = '6edc4b10-b110-4d68-966d-546219a341a6';
/** pi 0.x: a model change, a thinking level change, a bash call (stop reason toolUse) */
export const PI_TOOL_CALL_ID = '01a204a9-a834-77e0-b180-e676a5436126';

/** Each fixture: what is copied (from the repository's root) to where (under HOME). */
const FIXTURES = {
  /** Claude Code 2.1's projects (compactions, a background task's notification, isMeta notes, …) */
  claude: [['test/fixtures/claude/real/projects', '.claude/projects']],
  /** Claude Code's older projects (an in-file side chain, a summary title, a future record type) and todos */
  claudeOlder: [
    ['test/fixtures/claude/older/projects', '.claude/projects'],
    ['test/fixtures/claude/older/todos', '.claude/todos'],
  ],
  /** Claude Code's parallel tool calls, one response over several records (PARALLEL_ID) */
  claudeParallel: [
    ['test/fixtures/claude/parallel-tools/transcript.jsonl', `.claude/projects/-tmp-cc-parallel/${PARALLEL_ID}.jsonl`],
  ],
  /** Cline CLI 3.0.65: a read and a command (with thinking), a session that ran a sub-agent */
  cline: [['test/fixtures/cline/real-3.0.65/data', '.cline/data']],
  /** Continue CLI 1.5.47: Bash calls (one failed) and resumed turns */
  continue: [['test/fixtures/continue/real-1.5.47/.continue', '.continue']],
  /** codex 0.169's audit home (tool search, an image generated, rollbacks, a sub-agent) */
  codex: [['test/fixtures/codex/audit-home', '.codex']],
  /** codex's older home (a legacy rollout without a working directory) */
  codexLegacy: [['test/fixtures/codex/home', '.codex']],
  /** GitHub Copilot CLI 1.0.102: a bash call, then a resumed turn with thinking and cache tokens */
  copilot: [['test/fixtures/copilot/real-1.0.102/.copilot', '.copilot']],
  /** Gemini CLI 0.61.0 */
  gemini: [['test/fixtures/gemini/real-0.61.0/.gemini', '.gemini']],
  /** Gemini CLI's hand-built home: chats (a rewind, a sub-agent), the older JSON chat, checkpoints */
  geminiHome: [['test/fixtures/gemini/home/.gemini', '.gemini']],
  /** Kilo CLI 7.7.7's database (bash calls, signed thinking, an image, a compaction) */
  kilo: [['test/fixtures/kilo/real-7.7.7/kilo.db', '.local/share/kilo/kilo.db']],
  /** Qwen Code 0.24.4: a chat with thinking and tool calls (resumed once), a chat that ran a sub-agent */
  qwen: [['test/fixtures/qwen/real-0.24.4', '.qwen']],
  /** pi: PI_TOOL_CALL_ID */
  pi: [
    ['test/fixtures/pi/real-tool-call.jsonl', `.pi/agent/sessions/--proj--/2026-11-22T19-09-17-237Z_${PI_TOOL_CALL_ID}.jsonl`],
  ],
  /** pi: every session file of test/fixtures/pi (versions 1–3, compactions, branches, damaged lines) in one project */
  piAll: [['test/fixtures/pi/*.jsonl', '.pi/agent/sessions/--work-proj--']],
  /** OpenCode's database (a bash call, a compaction) */
  opencode: [['test/fixtures/opencode/opencode.db', '.local/share/opencode/opencode.db']],
  /** OpenCode's older JSON file storage */
  opencodeStorage: [['test/fixtures/opencode/storage', '.local/share/opencode/storage']],
  /** Zed's threads database */
  zed: [['test/fixtures/zed/home/.local/share/zed', '.local/share/zed']],
} as const satisfies Record<string, readonly (readonly [string, string])[]>;

export type AgentFixture = keyof typeof FIXTURES;

export const AGENTS = [
  'claude',
  'pi',
  'cline',
  'codex',
  'continue',
  'copilot',
  'gemini',
  'kilo',
  'opencode',
  'qwen',
  'zed',
] as const;
export type AgentName = (typeof AGENTS)[number];

/** Every fixture of each agent (`agents`). */
const AGENT_FIXTURES: Record<AgentName, readonly AgentFixture[]> = {
  claude: ['claude', 'claudeOlder'],
  pi: ['piAll'],
  cline: ['cline'],
  codex: ['codexLegacy'],
  continue: ['continue'],
  copilot: ['copilot'],
  gemini: ['geminiHome'],
  kilo: ['kilo'],
  opencode: ['opencode', 'opencodeStorage'],
  qwen: ['qwen'],
  zed: ['zed'],
};

export interface FixtureHome {
  home: string;
  /** The home as the drivers see it: HOME and each agent's own override pointing into it. */
  env: DriverEnv;
  /** The directory of each agent's own store inside home. */
  dirs: Record<AgentName, string>;
}

/** Where each agent's store lives under a home, as homeEnv tells the drivers. */
export function agentDirs(home: string): Record<AgentName, string> {
  const xdg = join(home, '.local', 'share');
  return {
    claude: join(home, '.claude'),
    pi: join(home, '.pi', 'agent'),
    cline: join(home, '.cline'),
    codex: join(home, '.codex'),
    continue: join(home, '.continue'),
    copilot: join(home, '.copilot'),
    gemini: join(home, '.gemini'),
    kilo: join(xdg, 'kilo'),
    opencode: join(xdg, 'opencode'),
    qwen: join(home, '.qwen'),
    zed: join(xdg, 'zed'),
  };
}

export function homeEnv(home: string, extra: Record<string, string> = {}): DriverEnv {
  const dirs = agentDirs(home);
  return {
    home,
    env: {
      HOME: home,
      XDG_DATA_HOME: join(home, '.local', 'share'),
      CLAUDE_CONFIG_DIR: dirs.claude,
      PI_CODING_AGENT_DIR: dirs.pi,
      CODEX_HOME: dirs.codex,
      CLINE_DIR: dirs.cline,
      COPILOT_HOME: dirs.copilot,
      CONTINUE_GLOBAL_DIR: dirs.continue,
      THREADBASE_HOME: join(home, '.threadbase'),
      ...extra,
    },
  };
}

/** Copies `from` (a file, a directory, or `dir/*.ext`: those files of dir into the directory `to`). */
async function copy(from: string, to: string): Promise<void> {
  const glob = /^(.*)\/\*(\.[a-z]+)$/.exec(from);
  if (!glob) {
    await fs.cp(resolve(from), to, { recursive: true });
    return;
  }
  const [, dir, ext] = glob as unknown as [string, string, string];
  await fs.mkdir(to, { recursive: true });
  for (const f of await fs.readdir(resolve(dir))) if (f.endsWith(ext)) await fs.copyFile(resolve(dir, f), join(to, f));
}

/**
 * A new directory under the system's temp dir (`prefix` names it) holding the named `fixtures` and
 * every fixture of the `agents` (none of either: an empty home).
 */
export async function fixtureHome(
  opts: { prefix?: string; fixtures?: readonly AgentFixture[]; agents?: readonly AgentName[] } = {},
): Promise<FixtureHome> {
  const home = await fs.mkdtemp(join(tmpdir(), opts.prefix ?? 'tb-fixtures-'));
  const names = new Set([...(opts.fixtures ?? []), ...(opts.agents ?? []).flatMap((a) => AGENT_FIXTURES[a])]);
  for (const name of names) for (const [from, to] of FIXTURES[name]) await copy(from, join(home, to));
  return { home, env: homeEnv(home), dirs: agentDirs(home) };
}

/**
 * Fixture sessions holding text their agent wrote itself (instructions, context, notifications): each
 * fold's label and the text it opens with, in order, and the user's own prompt, which stays open. The
 * HTML and Markdown exports fold the same text under the same labels.
 */
export const INJECTED_TEXT_CASES = [
  {
    agent: 'codex',
    id: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    folded: [
      ['developer instructions', '<skills_instructions>'],
      ['environment_context, added by codex', '<environment_context>'],
    ],
    prompt: 'SPAWN',
  },
  {
    agent: 'qwen',
    id: '1865e916-c5ec-4265-a939-6e90168805d2',
    folded: [['notification, added by Qwen Code', '<task-notification>']],
    prompt: 'AGENT: count the files',
  },
  {
    agent: 'gemini',
    id: '1feb6904-698a-4392-9399-e06da18b836d',
    folded: [['session_context, added by Gemini CLI', '<session_context>']],
    prompt: 'RUN: echo hello-from-gemini',
  },
] as const;

/**
 * Fixture sessions that ran a sub-agent: the parent, the call that ran it, the sub-agent's session id,
 * its prompt and the start of its answer as the agent wrote it. The HTML and Markdown exports show the
 * sub-agent's turns under that call.
 */
export const SUB_AGENT_RUNS = [
  {
    agent: 'qwen',
    parent: '1865e916-c5ec-4265-a939-6e90168805d2',
    call: 'agent',
    child: 'general-purpose-toolu_standin_0001',
    prompt: 'count the files',
    answer: 'Plain answer from the stand-in.',
  },
  {
    agent: 'cline',
    parent: '1795666477967_183oc',
    call: 'spawn_agent',
    child: '1795666477967_183oc__agent_1795666478619_7xmhpw',
    prompt: 'subtask alpha',
    answer: 'ok: subtask alpha',
  },
  {
    agent: 'codex',
    parent: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    call: 'spawn_agent',
    child: '01a21356-267a-73e0-9768-3144907e69c8',
    prompt: 'CHILDTASK',
    answer: 'child done',
  },
  {
    agent: 'claude',
    parent: '0afea31a-5ccc-4b41-8d19-4c8571cb3a03',
    call: 'Agent',
    child: 'ac5303661b5759184',
    prompt: 'say hello',
    answer: 'ok: <system-reminder>',
  },
] as const;

/**
 * A home for the CLI's tests (a new temp dir, `prefix` names it): Claude Code's older projects where
 * Claude Code keeps them ("Counting cats in pictures", 11111111-1111-4111-8111-111111111111, among
 * them) and threadbase's own files under `.tb`; the drivers are told only HOME, not homeEnv's overrides.
 */
export async function claudeOlderCliHome(prefix: string): Promise<{ root: string; env: DriverEnv }> {
  const root = await fs.mkdtemp(join(tmpdir(), prefix));
  await fs.mkdir(join(root, '.claude'), { recursive: true });
  await fs.cp(resolve('test/fixtures/claude/older/projects'), join(root, '.claude', 'projects'), { recursive: true });
  return { root, env: { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } } };
}
