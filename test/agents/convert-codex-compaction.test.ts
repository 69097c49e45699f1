/**
 * A codex session that codex itself compacted, with a shell command that failed, carried into the
 * real Claude Code, pi and OpenCode (each resumed against the loopback Anthropic stand-in) and back:
 * - real codex records against the Responses stand-in: a first turn with a shell call that succeeds,
 *   a second turn before which codex compacts (a `compacted` line whose `replacement_history` holds
 *   codex's instructions, its environment context, the user's earlier prompt and the summary), and a
 *   third turn with a shell command that exits 2;
 * - `threadbase convert --to claude|pi|opencode`: each target resumes sending the codex context as
 *   contextToAnthropic(codexContext) renders it: the user messages codex kept and the summary (in
 *   the target's own compaction form), the failed call with its output, nothing from before the
 *   compaction that codex no longer sends, nothing twice; the differences each agent makes are
 *   stated and asserted below;
 * - converted back `--to codex`, codex resumes with the input it sent for its own session.
 * The source is recorded once (beforeAll); the resumes run one after another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { codexContext, contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { type CodexAgentHome, codexResumeInput, createOpencodeDatabase } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import {
  convertWith,
  newestSession,
  readSession,
  resumeInTarget,
  setupCodexCompactionHome,
  targetCompactionTurns,
  withoutPiItemIds,
} from '../helpers/conversions.js';
import { codexHistory, itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

type Agent = 'claude' | 'pi' | 'opencode';
const AGENTS: Agent[] = ['claude', 'pi', 'opencode'];

const FAILING = 'ls /nonexistent-threadbase-dir';
const SUMMARY = 'Stand-in summary of the conversation so far.';

let home: CodexAgentHome;
let codexId = '';
/** The input codex sent for the third turn's answer, after the failed call: its own history then. */
let codexSent: ResponsesItem[] = [];

/** Codex compacts before a turn once the last response's tokens pass this limit; lifted for every other turn. */
const compactAt = (limit: number) => ['-c', `model_auto_compact_token_limit=${limit}`];

async function recordCodex(): Promise<string> {
  await home.codex(['RUN: echo before-compaction']);
  const listed = await newestSession(home, 'codex');
  // the first turn's tokens are far over 2000: codex compacts before this turn (a text answer, so not again in it)
  await home.codex(['resume', listed.id, ...compactAt(2000), 'second question']);
  await home.codex(['resume', listed.id, `RUN: ${FAILING}`]);
  codexSent = home.responses.responseRequests().at(-1)?.input ?? [];
  return listed.id;
}

beforeAll(async () => {
  home = await setupCodexCompactionHome();
  codexId = await recordCodex();
  await createOpencodeDatabase(home);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

/** codexHistory, also without codex's internal metadata field. */
function history(items: readonly ResponsesItem[]): unknown[] {
  return codexHistory(items).map(({ internal_chat_message_metadata_passthrough: _m, ...rest }) => rest);
}

describe('a codex session codex compacted, with a failed command, resumed by Claude Code, pi and OpenCode', () => {
  it('codex recorded a compaction with its replacement history and a command that exited 2', async () => {
    const s = await readSession(home, 'codex', codexId);
    expect(s.entries.filter((e) => e.kind === 'compaction')).toMatchObject([{ summary: SUMMARY }]);
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    // the failed command's output as codex recorded it, an error result (codex's exit code, in its UI event)
    const failed = parts.filter((p) => p.type === 'tool_result' && p.isError);
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed)).toMatch(/Process exited with code 2.*No such file or directory/);
    // our context is what codex sent for the answer after the failed command (then the answer)
    const input = contextToResponses(codexContext(s)).input;
    expect(history(input.slice(0, -1))).toEqual(history(codexSent.slice(1)));
    // after the compaction: the user's first prompt and the summary, not the first call or its output
    const texts = input.map((i) => itemText(i));
    expect(texts).toContain('RUN: echo before-compaction');
    expect(texts).toContain(`${SUMMARY_PREFIX}\n${SUMMARY}`);
    expect(JSON.stringify(input)).not.toContain('echo before-compaction\\"');
  });

  for (const to of AGENTS)
    it(`codex → ${to}: the target sends the context after codex's compaction and the failed command`, async () => {
      const source = await readSession(home, 'codex', codexId);
      const written = await convertWith(home, codexId, 'codex', to);
      const ctx = codexContext(source);
      const expected = comparable(contextToAnthropic(ctx).messages as Msg[]);
      const probe = `probe compaction to ${to}`;
      // pi sends a call's id with codex's item id joined (withoutPiItemIds), call and result alike
      const sent = withoutPiItemIds(comparable(await resumeInTarget(home, to, written, probe), probe));

      // What codex sends: one user turn of its environment context, the prompt it kept, the summary
      // (its prefix on it) and the next prompt; then that turn's answer, the failed call, its error
      // output (an error result), the answer to it.
      const codexSummary = { type: 'text', text: `${SUMMARY_PREFIX}\n${SUMMARY}` };
      const [first, ...after] = expected;
      expect(first?.content.map((b) => String(b.text).split('\n')[0])).toEqual([
        '<environment_context>',
        'RUN: echo before-compaction',
        SUMMARY_PREFIX,
        'second question',
      ]);
      const call = after.flatMap((m) => m.content).find((b) => b.type === 'tool_use');
      expect(call).toMatchObject({ name: 'exec_command', input: { cmd: FAILING } });
      const result = after.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
      expect(result).toMatchObject({ tool_use_id: call?.id, is_error: true });
      expect(JSON.stringify(result)).toMatch(/Process exited with code 2.*No such file or directory/);

      // The one difference: each target's own compaction form, with the summary first and the
      // messages codex kept after it (every target sends what follows its summary), worded its way.
      const kept = (first?.content ?? []).filter((b) => b.text !== codexSummary.text);
      expect(sent).toEqual([...targetCompactionTurns(to, SUMMARY, kept), ...after]);
      // nothing twice, nothing from before the compaction but the prompt codex kept
      const all = JSON.stringify(sent);
      expect(all.split('RUN: echo before-compaction').length).toBe(2);
      expect(all).not.toContain('echo before-compaction\\"');
      expect(all.split('environment_context>').length).toBe(3);

      // And back: the target's session (with its resumed turn) converted into codex again, which real
      // codex resumes with the history it sent for its own session first.
      const again = await convertWith(home, written.id, to, 'codex');
      const input = await codexResumeInput(home, again.id, `back from ${to}`);
      const original = history(contextToResponses(ctx).input);
      expect(history(input).slice(0, original.length)).toEqual(original);
    });
});
