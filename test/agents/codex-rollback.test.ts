/**
 * A codex thread rolled back across a compaction, resumed by the real codex-cli 0.169.0 against the
 * loopback Responses stand-in:
 * - real codex records three turns, compacting before the second (`model_auto_compact_token_limit`): a
 *   `compacted` record whose replacement_history is codex's skills instructions, its environment
 *   context, the first prompt and the summary; then the second and third turns;
 * - a `thread_rolled_back` record of N turns is appended, in the shape and numbering codex writes it:
 *   codex 0.169 rolls back no thread non-interactively (`codex exec` has no rollback; its app-server
 *   answers `thread/rollback` with "unknown variant", and `thread/revert` takes only paginated threads,
 *   not rollouts; the TUI's backtrack needs a terminal), as for the earlier rollback fixture
 *   (test/fixtures/codex/README.md); then `codex exec resume` replays the rollout and sends its history;
 * - codex drops the last N user turns of the history it replayed, the replacement history included
 *   (drop_last_n_user_turns; its summary is no turn): 1 or 2 turns cut after the compaction, its history
 *   whole; 3 reach into it and drop the first prompt and the summary after it; 9 (more than exist) cut
 *   at the first prompt, the context before it kept; after a rollback codex injects its context again
 *   before the next prompt, and a rollback of that prompt (2, then 1) trims that context back to the
 *   compaction;
 * - threadbase's context (the library and `context --format openai-responses`) is that input, for each.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToResponses, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, runCodex, setupAgentHome, writeCodexConfig } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import {
  itemText,
  type ResponsesItem,
  type ResponsesStandIn,
  startResponsesStandIn,
} from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const SUMMARY = 'Stand-in summary of the conversation so far.';

let home: AgentHome;
let responses: ResponsesStandIn;

interface Thread {
  codexHome: string;
  env: DriverEnv;
  id: string;
}

interface Case {
  name: string;
  thread: Thread;
  prompt: string;
  /** the input codex sent for the prompt after the rollback */
  sent: ResponsesItem[];
  /** our context then (a later rollback of the same thread moves on): the library's, and the CLI's */
  ours: ReturnType<typeof contextToResponses>;
  printed: { input: ResponsesItem[] };
}
const cases = new Map<string, Case>();

const codexIn = (t: Pick<Thread, 'codexHome'>, args: string[]) =>
  runCodex({ cwd: home.project, home: home.root, codexHome: t.codexHome }, args);

async function session(t: Thread): Promise<Session> {
  const sources = new Sources(t.env);
  try {
    const s = await sources.driver('codex').getSession(t.id);
    if (!s) throw new Error(`codex session ${t.id} not found`);
    return s;
  } finally {
    await sources.close();
  }
}

/** Three turns in their own CODEX_HOME, codex compacting before the second. */
async function recordThread(name: string): Promise<Thread> {
  const codexHome = join(home.root, `codex-${name}`);
  await writeCodexConfig(codexHome, responses.baseUrl, { extra: ['model_auto_compact_token_limit = 100000000'] });
  await codexIn({ codexHome }, ['first question']);
  const env: DriverEnv = { home: home.root, env: { CODEX_HOME: codexHome } };
  const sources = new Sources(env);
  const [listed] = await sources.driver('codex').listSessions();
  await sources.close();
  if (!listed) throw new Error('codex recorded no session');
  const t = { codexHome, env, id: listed.id };
  // the first turn's tokens are far over 2000: codex compacts before this turn
  await codexIn(t, ['resume', t.id, '-c', 'model_auto_compact_token_limit=2000', 'second question']);
  await codexIn(t, ['resume', t.id, 'third question']);
  return t;
}

/** Appends `{"type":"thread_rolled_back","num_turns":n}` as codex writes it (the next ordinal), then resumes with a prompt. */
async function rollBackAndResume(name: string, t: Thread, n: number): Promise<void> {
  const file = (await session(t)).path as string;
  const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
  const last = JSON.parse(lines.at(-1) as string) as { ordinal: number };
  const record = {
    timestamp: new Date().toISOString(),
    ordinal: last.ordinal + 1,
    type: 'event_msg',
    payload: { type: 'thread_rolled_back', num_turns: n },
  };
  await fs.appendFile(file, `${JSON.stringify(record)}\n`);
  const prompt = `after rollback ${name}`;
  await codexIn(t, ['resume', t.id, prompt]);
  const sent = responses.responseRequests().at(-1)?.input ?? [];
  expect(itemText(sent.at(-1))).toBe(prompt);
  const sources = new Sources(t.env);
  const ours = contextToResponses(await sources.driver('codex').getContext(t.id));
  await sources.close();
  const printed = JSON.parse(await runCliOk(t.env, ['context', t.id, '--format', 'openai-responses'])) as {
    input: ResponsesItem[];
  };
  cases.set(name, { name, thread: t, prompt, sent, ours, printed });
}

beforeAll(async () => {
  home = await setupAgentHome();
  responses = await startResponsesStandIn();
  for (const n of [1, 2, 3, 9]) await rollBackAndResume(String(n), await recordThread(String(n)), n);
  // rolled back again, by one turn: the prompt after the first rollback (and the context codex injected before it)
  await rollBackAndResume('2+1', (cases.get('2') as Case).thread, 1);
  await rollBackAndResume('3+1', (cases.get('3') as Case).thread, 1);
}, 240_000);

afterAll(async () => {
  await responses?.close();
  await home?.close();
});

/** Items without the ids and statuses the API assigns, and codex's internal metadata field. */
const bare = (items: readonly ResponsesItem[]) =>
  items.map(({ id: _id, status: _status, internal_chat_message_metadata_passthrough: _m, ...rest }) => rest);

/** Each item as `role text-start`, to read what codex sent. */
const outline = (items: readonly ResponsesItem[]) =>
  items.map((i) => `${String(i.role ?? i.type)} ${itemText(i).split('\n')[0]?.slice(0, 30)}`);

const SKILLS = 'developer <skills_instructions>';
const ENV = 'user <environment_context>';
const SUMMARY_LINE = `user ${SUMMARY_PREFIX.split('\n')[0]?.slice(0, 30)}`;

/** What codex sent after its own instructions (the first item), as outlines. */
const EXPECTED: Record<string, string[]> = {
  // the third turn dropped; the replacement history and the second turn stay
  '1': [SKILLS, ENV, 'user first question', SUMMARY_LINE, 'user second question', 'assistant ok: second question'],
  // both turns after the compaction dropped: its history stays whole; codex injects its context again
  '2': [SKILLS, ENV, 'user first question', SUMMARY_LINE, SKILLS, ENV],
  // one more: the first prompt goes from the replacement history, and the summary after it
  '3': [SKILLS, ENV, SKILLS, ENV],
  // more than exist: cut at the first prompt, the context before it kept
  '9': [SKILLS, ENV, SKILLS, ENV],
  // the prompt after the rollback and the context injected right before it go: the compaction's history again
  '2+1': [SKILLS, ENV, 'user first question', SUMMARY_LINE, SKILLS, ENV],
  // the replacement history has no prompt left: only the turn after the rollback is dropped
  '3+1': [SKILLS, ENV, SKILLS, ENV, SKILLS, ENV],
};

describe('codex rollback across a compaction: our context is the input codex sends on resume', () => {
  it('codex recorded the compaction with its replacement history before the second turn', async () => {
    const s = await session((cases.get('1') as Case).thread);
    expect(s.entries.filter((e) => e.kind === 'compaction')).toMatchObject([{ summary: SUMMARY }]);
    const raw = s.entries.find((e) => e.kind === 'compaction')?.raw as { payload: { replacement_history: unknown[] } };
    expect(outline(raw.payload.replacement_history as ResponsesItem[])).toEqual([
      SKILLS,
      ENV,
      'user first question',
      SUMMARY_LINE,
    ]);
  });

  for (const name of Object.keys(EXPECTED))
    it(`rolled back ${name}: codex's input, and ours`, async () => {
      const c = cases.get(name) as Case;
      expect(outline(c.sent.slice(1, -1))).toEqual(EXPECTED[name]);
      const { ours, printed } = c;
      // ours ends with codex's answer to the prompt; codex sent its instructions first
      expect(itemText(ours.input.at(-1))).toBe(`ok: ${c.prompt}`);
      expect(bare(ours.input.slice(0, -1))).toEqual(bare(c.sent.slice(1)));
      // and as the CLI prints it
      expect(bare(printed.input)).toEqual(bare(ours.input));
      // the rolled-back turns stay in the tree as an abandoned branch
      const s = await session(c.thread);
      expect(JSON.stringify(s.entries)).toContain('third question');
    });
});
