/**
 * A call the user interrupted and the real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the
 * Anthropic stand-in). Interrupted while it ran (Esc Esc, the session of test/fixtures/copilot/rejected-1.0.102
 * 5e9e3f07-…), Copilot CLI writes no tool.execution_complete for the call, only an `abort`; resumed
 * (`copilot --resume=<id> -p …`), it sends "The execution of this tool, or a previous tool was interrupted."
 * for every call of the response the abort left unanswered (no is_error; one that finished keeps its
 * result), the results in the order of the calls. threadbase reads those results so (events.ts) and its
 * context is what Copilot CLI sends: for the fixture's session, for the same with two calls (none, the first
 * or the second finished), and for its copy written by threadbase (a tool.execution_complete in those words,
 * which Copilot CLI resumes the same way). Without the abort Copilot CLI sends other words (not read: the
 * call may still be running).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import {
  type CopilotHome,
  closeCopilotHome,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  setupCopilotHome,
} from '../helpers/copilot.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/copilot/rejected-1.0.102');
const ID = '5e9e3f07-dc4c-4efa-a81e-50c87dfa2b5b';
const RECORDED_CWD = '/tmp/copilot-rejected-proj';
const FIRST = 'toolu_standin_0029';
const SECOND = 'toolu_second';

type Event = { type: string; data: Record<string, unknown>; id: string; timestamp: string; parentId: string | null };

let home: CopilotHome;
beforeAll(async () => {
  if (SKIP) return;
  home = await setupCopilotHome('tb-copilot-interrupted-');
});
afterAll(() => closeCopilotHome(home));

/** The fixture's session up to its first shutdown (before the recorded resume), edited, as a new session in the home. */
async function sessionFrom(edit: (events: Event[]) => Event[] = (e) => e): Promise<string> {
  const id = randomUUID();
  const dir = join(FIXTURE, '.copilot', 'session-state', ID);
  const own = (t: string) => t.replaceAll(ID, id).replaceAll(RECORDED_CWD, home.project);
  const lines = own(await fs.readFile(join(dir, 'events.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean);
  const events = lines.map((l) => JSON.parse(l) as Event);
  const shutdown = events.findIndex((e) => e.type === 'session.shutdown');
  const target = join(home.dir, '.copilot', 'session-state', id);
  await fs.mkdir(target, { recursive: true });
  await fs.writeFile(
    join(target, 'events.jsonl'),
    `${edit(events.slice(0, shutdown + 1))
      .map((e) => JSON.stringify(e))
      .join('\n')}\n`,
  );
  await fs.writeFile(join(target, 'workspace.yaml'), own(await fs.readFile(join(dir, 'workspace.yaml'), 'utf8')));
  return id;
}

/** A second call in the interrupted response. */
function twoCalls(events: Event[]): Event[] {
  return events.map((e) => {
    if (e.type !== 'assistant.message') return e;
    const second = { toolCallId: SECOND, name: 'bash', arguments: { command: 'echo 2' }, type: 'function' };
    return { ...e, data: { ...e.data, toolRequests: [...(e.data.toolRequests as unknown[]), second] } };
  });
}

/** twoCalls with `call` finished (its tool.execution_complete after the approval, before the abort). */
const finished = (call: string, output: string) => (events: Event[]) => {
  const out = twoCalls(events);
  const at = out.findIndex((e) => e.type === 'permission.completed') + 1;
  const done: Event = {
    type: 'tool.execution_complete',
    data: { toolCallId: call, success: true, result: { content: output } },
    id: randomUUID(),
    timestamp: '2026-11-26T17:39:40.000Z',
    parentId: out[at - 1]?.id ?? null,
  };
  return [...out.slice(0, at), done, ...out.slice(at)];
};

const resultsSent = (sent: Parameters<typeof sentToolResults>[0]) =>
  sentToolResults(sent).map((b) => [b.tool_use_id, b.content, b.is_error]);

describe.skipIf(SKIP)('a call the user interrupted and the real Copilot CLI', () => {
  it("the fixture's interrupted call is resumed in Copilot CLI's words, no error, as threadbase's context has it", async () => {
    const id = await sessionFrom();
    const { sent, ours } = await resumedByCopilot(home, id, 'probe interrupted');
    expect(resultsSent(sent)).toEqual([[FIRST, COPILOT_INTERRUPTED, undefined]]);
    expect(sent).toEqual(ours);
  }, 240_000);

  it('every call the abort left unanswered gets those words, a finished one its result, in call order', async () => {
    const cases: [string, (e: Event[]) => Event[], unknown[]][] = [
      [
        'none finished',
        twoCalls,
        [
          [FIRST, COPILOT_INTERRUPTED, undefined],
          [SECOND, COPILOT_INTERRUPTED, undefined],
        ],
      ],
      [
        'first finished',
        finished(FIRST, 'slept'),
        [
          [FIRST, 'slept', undefined],
          [SECOND, COPILOT_INTERRUPTED, undefined],
        ],
      ],
      // recorded second first: sent in the order of the calls
      [
        'second finished',
        finished(SECOND, '2'),
        [
          [FIRST, COPILOT_INTERRUPTED, undefined],
          [SECOND, '2', undefined],
        ],
      ],
    ];
    for (const [name, edit, expected] of cases) {
      const id = await sessionFrom(edit);
      const { sent, ours } = await resumedByCopilot(home, id, `probe ${name}`);
      expect([name, resultsSent(sent)]).toEqual([name, expected]);
      expect([name, sent]).toEqual([name, ours]);
    }
  }, 480_000);

  it('without the abort Copilot CLI sends other words (the call is not read as interrupted)', async () => {
    const id = await sessionFrom((events) => events.filter((e) => e.type !== 'abort'));
    expect(toolResultsOf(await home.driver.getSession(id))).toEqual([]);
    const { sent } = await resumedByCopilot(home, id, 'probe no abort');
    expect(resultsSent(sent)).toEqual([
      [FIRST, expect.stringMatching(/^Tool execution was interrupted before a result was recorded\./), undefined],
    ]);
  }, 240_000);

  it("threadbase's copy of the interrupted session is resumed the same way", async () => {
    const fixture = new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: join(FIXTURE, '.copilot') } });
    const original = await fixture.getSession(ID);
    if (!original) throw new Error('no fixture session');
    // up to the abort's results (the recorded resume's turn left out: the probe follows them)
    const at = original.entries.findIndex((e) => (e.raw as { type?: string } | undefined)?.type === 'abort');
    const entries = original.entries.slice(0, at + 1);
    const info = await home.driver.writeSession({
      ...original,
      entries,
      leafId: entries.at(-1)?.id ?? null,
      project: home.project,
    });
    const events = (await fs.readFile(join(home.dir, '.copilot', 'session-state', info.id, 'events.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event);
    // written as a failed tool.execution_complete in Copilot CLI's words (its schema has no abort that answers a call)
    expect(events.filter((e) => e.type === 'tool.execution_complete').map((e) => [e.data.success, e.data.error])).toEqual([
      [false, { message: COPILOT_INTERRUPTED }],
    ]);
    const copy = toolResultsOf(await home.driver.getSession(info.id));
    expect(copy.map((r) => [r.content, r.meta?.cancelled])).toEqual([[COPILOT_INTERRUPTED, true]]);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe copy');
    expect(resultsSent(sent)).toEqual([[expect.any(String), COPILOT_INTERRUPTED, undefined]]);
    expect(sent).toEqual(ours);
  }, 240_000);
});
