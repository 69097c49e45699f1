/**
 * A new temporary HOME holding sessions the real agents wrote (test/fixtures), each copied where its
 * agent keeps them, for the tests that read them as a user's machine holds them.
 */
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Claude Code: three prompts, each answered by one response written as four records (text, three tool calls) */
export const PARALLEL_ID = '6edc4b10-b110-4d68-966d-546219a341a6';
/** pi 0.x: a model change, a thinking level change, a bash call (stop reason toolUse) */
export const PI_TOOL_CALL_ID = '01a204a9-a834-77e0-b180-e676a5436126';

/** Each fixture: what is copied (from the repository's root) to where (under HOME). */
const FIXTURES = {
  /** Claude Code 2.1's projects (compactions, a background task's notification, isMeta notes, …) */
  claude: ['test/fixtures/claude/real/projects', '.claude/projects'],
  /** Claude Code's parallel tool calls, one response over several records (PARALLEL_ID) */
  claudeParallel: [
    'test/fixtures/claude/parallel-tools/transcript.jsonl',
    `.claude/projects/-tmp-cc-parallel/${PARALLEL_ID}.jsonl`,
  ],
  /** codex 0.169's audit home (tool search, an image generated, rollbacks, a sub-agent) */
  codex: ['test/fixtures/codex/audit-home', '.codex'],
  /** codex's older home (a legacy rollout without a working directory) */
  codexLegacy: ['test/fixtures/codex/home', '.codex'],
  /** Gemini CLI 0.61.0 */
  gemini: ['test/fixtures/gemini/real-0.61.0/.gemini', '.gemini'],
  /** pi: PI_TOOL_CALL_ID */
  pi: ['test/fixtures/pi/real-tool-call.jsonl', `.pi/agent/sessions/--proj--/2026-11-22T19-09-17-237Z_${PI_TOOL_CALL_ID}.jsonl`],
  /** OpenCode's database (a bash call, a compaction) */
  opencode: ['test/fixtures/opencode/opencode.db', '.local/share/opencode/opencode.db'],
  /** Zed's threads database */
  zed: ['test/fixtures/zed/home/.local/share/zed', '.local/share/zed'],
} as const satisfies Record<string, readonly [string, string]>;

export type AgentFixture = keyof typeof FIXTURES;

/** A new directory under the system's temp dir (`prefix` names it) holding the given fixtures. */
export async function fixtureHome(prefix: string, fixtures: readonly AgentFixture[]): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  for (const name of fixtures) {
    const [from, to] = FIXTURES[name];
    await cp(resolve(from), join(home, to), { recursive: true });
  }
  return home;
}
