/**
 * A codex session that codex compacted in the middle of a turn, carried into the real Claude Code, pi
 * and OpenCode (each resumed against the loopback Anthropic stand-in) and back. The before-a-prompt
 * case is convert-codex-compaction.test.ts; here the token limit is crossed in a tool loop:
 * - real codex records against the Responses stand-in: a first turn with a shell call, then a turn of
 *   four shell calls (the second one's output large) with a low `model_auto_compact_token_limit`: codex
 *   compacts after a call's output, before its next request (codex's inline auto compaction with its
 *   initial context injected before the last user prompt: a `compacted` line whose
 *   `replacement_history` is the earlier prompt, codex's instructions and environment context, the
 *   turn's prompt, then the summary), and the turn goes on with the two other calls after it; a third
 *   turn follows, whose request is what codex sends when it resumes after the compaction;
 * - threadbase's context (codexContext, and `context --format openai-responses`) is that input;
 * - `convert --to claude|pi|opencode`: each target resumes with its own compaction form (the summary
 *   first), the messages codex kept after it (the earlier prompt, the environment context, the turn's
 *   prompt), then the rest of the turn (the calls after the compaction, their outputs, the answer)
 *   and the third turn, as in convert-codex-compaction.test.ts;
 * - converted back `--to codex`, codex resumes with the input it sent for its own session.
 * The source is recorded once (beforeAll); the resumes run one after another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { codexContext, contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { type CodexAgentHome, codexResumeInput, createOpencodeDatabase } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import {
  convertWith,
  newestSession,
  readSession,
  resumeInTarget,
  setupCodexCompactionHome,
  targetCompactionTurns,
  withoutPiItemIds,
} from '../helpers/conversions.js';
import {
  itemText,
  type ResponsesItem,
  type ResponsesRequest,
  type ResponsesRule,
  shellCall,
} from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

type Agent = 'claude' | 'pi' | 'opencode';
const AGENTS: Agent[] = ['claude', 'pi', 'opencode'];

const FIRST = 'RUN: echo before-midturn';
const STEPS = 'STEPS: run the four steps';
const LATER = 'after the midturn compaction';
const DONE = 'all steps done';
const SUMMARY = 'Stand-in summary of the conversation so far.';
/** The turn's four commands; the second prints enough that codex compacts before the request after it. */
const COMMANDS = ['echo step-1', 'seq 1 6000; echo step-2', 'echo step-3', 'echo step-4'];

const userTexts = (req: ResponsesRequest) =>
  req.input.filter((i) => (i.type ?? 'message') === 'message' && i.role === 'user').map((i) => itemText(i));

/**
 * Responses side, in the STEPS turn: the next command after the prompt, after each output and after
 * codex's summary (the turn goes on after a mid-turn compaction), then DONE; codex's compaction
 * request itself (its prompt last) is left to the default rules, which answer SUMMARY.
 */
let issued = 0;
const stepsRule: ResponsesRule = (req) => {
  const users = userTexts(req);
  if (!users.includes(STEPS)) return undefined;
  const last = req.input.at(-1);
  const lastUser = users.at(-1) ?? '';
  const goOn =
    last?.type === 'function_call_output' ||
    (last?.role === 'user' && (lastUser === STEPS || lastUser.startsWith(`${SUMMARY_PREFIX}\n`)));
  if (!goOn) return undefined;
  const cmd = COMMANDS[issued];
  if (cmd === undefined) return { text: DONE };
  issued++;
  const call = shellCall(req, cmd);
  return call ? { functionCall: call } : undefined;
};

let home: CodexAgentHome;
let codexId = '';
/** The input codex sent for the third turn, after the mid-turn compaction: its own history then. */
let codexSent: ResponsesItem[] = [];
/** The input codex sent for the request right after its compaction. */
let afterCompaction: ResponsesItem[] = [];

async function recordCodex(): Promise<string> {
  await home.codex([FIRST]);
  const listed = await newestSession(home, 'codex');
  // The first turn's requests are about 5,300 tokens: under the limit before the turn and after its
  // first call; the second call's large output takes the history over it, so codex compacts mid-turn.
  await home.codex(['resume', listed.id, '-c', 'model_auto_compact_token_limit=6000', STEPS]);
  const summaryAt = home.responses
    .responseRequests()
    .findIndex((r) => itemText(r.input.at(-1)).startsWith(`${SUMMARY_PREFIX}\n`));
  afterCompaction = home.responses.responseRequests()[summaryAt]?.input ?? [];
  await home.codex(['resume', listed.id, LATER]);
  codexSent = home.responses.responseRequests().at(-1)?.input ?? [];
  return listed.id;
}

beforeAll(async () => {
  home = await setupCodexCompactionHome([stepsRule]);
  codexId = await recordCodex();
  await createOpencodeDatabase(home);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

/** Items without the ids and statuses the API assigns and codex's internal metadata field. */
function bare(items: readonly ResponsesItem[]): unknown[] {
  return items.map((it) => {
    const { id: _id, status: _status, internal_chat_message_metadata_passthrough: _m, ...rest } = it;
    return rest;
  });
}

const isDeveloper = (item: ResponsesItem) => item.role === 'developer';

const describeItem = (i: ResponsesItem) =>
  i.type === 'function_call'
    ? `call ${JSON.parse(String(i.arguments)).cmd}`
    : i.type === 'function_call_output'
      ? `output ${/step-\d/.exec(itemText(i))?.[0]}`
      : `${i.role} ${itemText(i).split('\n')[0]?.slice(0, 30)}`;

describe('a codex session codex compacted mid-turn, resumed by Claude Code, pi and OpenCode', () => {
  it('codex compacted between a call output and its next request, the turn going on after it', async () => {
    const s = await readSession(home, 'codex', codexId);
    const path = s.entries.filter((e) => e.kind === 'message' || e.kind === 'compaction');
    const at = path.findIndex((e) => e.kind === 'compaction');
    expect(path[at]).toMatchObject({ kind: 'compaction', summary: SUMMARY });
    // in the STEPS turn: the second call's output, then the answer to codex's compaction request (which
    // codex records, not its prompt), the compaction, and the third call right after it
    const [output, answer, , next] = path.slice(at - 2, at + 2).map((e) => (e.kind === 'message' ? e.message : undefined));
    expect(output?.parts).toMatchObject([{ type: 'tool_result', content: expect.stringContaining('step-2') }]);
    expect(answer).toMatchObject({ role: 'assistant', parts: [{ type: 'text', text: SUMMARY }] });
    expect(next?.parts).toMatchObject([{ type: 'tool_call', input: { cmd: COMMANDS[2] } }]);
    // codex's mid-turn replacement history: its initial context right before the turn's prompt, the summary last
    expect(afterCompaction.slice(1).map(describeItem)).toEqual([
      `user ${FIRST}`,
      'developer <skills_instructions>',
      'user <environment_context>',
      `user ${STEPS}`,
      `user ${SUMMARY_PREFIX.slice(0, 30)}`,
    ]);
  });

  it("threadbase's context is the input codex sends when it resumes after the mid-turn compaction", async () => {
    const s = await readSession(home, 'codex', codexId);
    const ctx = contextToResponses(codexContext(s));
    // the first item codex sends is its base instructions as a developer message (threadbase: `instructions`)
    expect(bare(ctx.input.slice(0, -1))).toEqual(bare(codexSent.slice(1)));
    expect(codexSent.slice(1).map(describeItem)).toEqual([
      `user ${FIRST}`,
      'developer <skills_instructions>',
      'user <environment_context>',
      `user ${STEPS}`,
      `user ${SUMMARY_PREFIX.slice(0, 30)}`,
      `call ${COMMANDS[2]}`,
      'output step-3',
      `call ${COMMANDS[3]}`,
      'output step-4',
      `assistant ${DONE}`,
      `user ${LATER}`,
    ]);
    // and as the CLI prints it
    const printed = JSON.parse(await runCliOk(home.env, ['context', codexId, '--format', 'openai-responses'])) as {
      input: ResponsesItem[];
    };
    expect(bare(printed.input)).toEqual(bare(ctx.input));
  });

  for (const to of AGENTS)
    it(`codex → ${to}: the summary, the messages codex kept, then the rest of the turn`, async () => {
      const source = await readSession(home, 'codex', codexId);
      const written = await convertWith(home, codexId, 'codex', to);
      // warned: the three messages codex kept (its developer message is a system message, warned as such)
      expect(written.warnings?.join('\n')).toMatch(
        new RegExp(`messages codex's compaction kept .* are written after ${to}'s compaction summary.* \\(3\\)`),
      );
      const ctx = codexContext(source);
      const expected = comparable(contextToAnthropic(ctx).messages as Msg[]);
      const probe = `probe midturn to ${to}`;
      // pi sends a call's id with codex's item id joined (withoutPiItemIds), call and result alike
      const sent = withoutPiItemIds(comparable(await resumeInTarget(home, to, written, probe), probe));

      // What codex sends: one user turn of the earlier prompt, its environment context, the turn's
      // prompt and the summary; then the rest of the turn: the third and fourth calls with their
      // outputs, the answer; then the third turn and its answer.
      const codexSummary = `${SUMMARY_PREFIX}\n${SUMMARY}`;
      const [first, ...after] = expected;
      expect(first?.content.map((b) => String(b.text).split('\n')[0])).toEqual([
        FIRST,
        '<environment_context>',
        STEPS,
        SUMMARY_PREFIX,
      ]);
      const calls = after.flatMap((m) => m.content).filter((b) => b.type === 'tool_use');
      expect(calls.map((c) => (c.input as { cmd: string }).cmd)).toEqual(COMMANDS.slice(2));

      // Each target's own compaction form, the summary first and the messages codex kept after it.
      const kept = (first?.content ?? []).filter((b) => b.text !== codexSummary);
      expect(sent).toEqual([...targetCompactionTurns(to, SUMMARY, kept), ...after]);
      // nothing twice, nothing from before the compaction that codex no longer sends
      const all = JSON.stringify(sent);
      for (const text of [FIRST, STEPS, 'environment_context>'])
        expect(all.split(text).length, text).toBe(text.endsWith('>') ? 3 : 2);
      expect(all).not.toContain('step-1');
      expect(all).not.toContain('Tool finished');

      // And back: codex resumes the target's session (with its resumed turn) with its own history first.
      const again = await convertWith(home, written.id, to, 'codex');
      expect(again.warnings?.join('\n') ?? '').not.toMatch(/compaction kept/);
      const input = await codexResumeInput(home, again.id, `back from ${to}`);
      // (codex's developer messages left out: no target sends a system message, so none comes back;
      // its environment context does, where codex sent it: before the turn's prompt)
      const original = bare(contextToResponses(ctx).input.filter((i) => !isDeveloper(i)));
      expect(bare(input.filter((i) => !isDeveloper(i))).slice(0, original.length)).toEqual(original);
    });
});
