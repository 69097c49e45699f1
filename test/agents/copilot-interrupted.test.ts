/**
 * A call the user interrupted and the real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the
 * Anthropic stand-in). Interrupted while it ran (Esc Esc, the session of test/fixtures/copilot/rejected-1.0.102
 * 5e9e3f07-…), Copilot CLI writes no tool.execution_complete for the call, only an `abort`; resumed
 * (`copilot --resume=<id> -p …`), it sends "The execution of this tool, or a previous tool was interrupted."
 * for every call of the response the abort left unanswered (no is_error; one that finished keeps its
 * result), the results in the order of the calls. threadbase reads those results so (events.ts) and its
 * context is what Copilot CLI sends: for the fixture's session (whole, the results and the resumed turn's
 * message two user messages), for the same with two calls (none, the first or the second finished), and for
 * its copy written by threadbase (a tool.execution_complete in those words, which Copilot CLI resumes the
 * same way). Without the abort Copilot CLI sends other words (not read: the
 * call may still be running). Across turns (test/fixtures/copilot/interrupted-1.0.102): a call still open at
 * the user's next message is sent in the interrupted words too, and a completion Copilot CLI wrote after a
 * session.resume for a call made before it is not sent; an abort while a sub-agent ran answers its task call.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import {
  copilotHomeForFile,
  type CopilotEvent as Event,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  writeCopilotEvents,
} from '../helpers/copilot.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/copilot/rejected-1.0.102');
const ID = '5e9e3f07-dc4c-4efa-a81e-50c87dfa2b5b';
const RECORDED_CWD = '/tmp/copilot-rejected-proj';
/** calls left open across turns, an abort while a sub-agent ran (its README) */
const ACROSS = resolve('test/fixtures/copilot/interrupted-1.0.102');
const ACROSS_CWD = '/tmp/copilot-interrupted/proj';
const ACROSS_TURNS = '9e05153b-1b7a-4333-9eb9-430005ab2096';
const SUB_AGENT = '330fb555-100e-405f-923d-c33039a3e2a9';
const FIRST = 'toolu_standin_0029';
const SECOND = 'toolu_second';

const home = copilotHomeForFile('tb-copilot-interrupted-');

/**
 * The fixture's session up to its first shutdown (before the recorded resume), edited, as a new session in
 * the home; `whole`: all of it, the recorded resume's turn too.
 */
function sessionFrom(edit: (events: Event[]) => Event[] = (e) => e, whole = false): Promise<string> {
  const upTo = (events: Event[]) =>
    events.slice(0, whole ? events.length : events.findIndex((e) => e.type === 'session.shutdown') + 1);
  return copyOf(FIXTURE, ID, RECORDED_CWD, (events) => edit(upTo(events)));
}

/** A fixture's session, edited (each event's parentId then the one before it), as a new session in the home. */
async function copyOf(fixture: string, fixtureId: string, cwd: string, edit: (events: Event[]) => Event[]): Promise<string> {
  const id = randomUUID();
  const dir = join(fixture, '.copilot', 'session-state', fixtureId);
  const own = (t: string) => t.replaceAll(fixtureId, id).replaceAll(cwd, home.project);
  const lines = own(await fs.readFile(join(dir, 'events.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean);
  const target = await writeCopilotEvents(home, id, edit(lines.map((l) => JSON.parse(l) as Event)));
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

  it("the whole fixture session (its recorded resume's turn too): the result and the next user message go as two messages", async () => {
    const id = await sessionFrom(undefined, true);
    const { sent, ours } = await resumedByCopilot(home, id, 'probe whole');
    const roles = (ms: typeof sent) => ms.map((m) => [m.role, (m.content as { type: string }[]).map((b) => b.type)]);
    expect(roles(sent)).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['user', ['text']],
      ['assistant', ['text']],
    ]);
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
    // all of it: the abort's result, then the recorded resume's turn
    const entries = original.entries;
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

/** The completion Copilot CLI wrote on resume for the call the crash left open, edited; `undefined`: taken away. */
const lateCompletion = (edit: (e: Event) => Event | undefined) => (events: Event[]) =>
  events.flatMap((e) => {
    if (e.type === 'session.warning') return [];
    if (e.type !== 'tool.execution_complete') return [e];
    const edited = edit(e);
    return edited ? [edited] : [];
  });

/** The first turn's interaction, which Copilot CLI writes on a completion in that turn. */
const FIRST_INTERACTION = '4570bcdf-e883-4622-a12a-7e2bfdfe8856';

/** A completion as Copilot CLI writes one in the call's turn: a success. */
const succeeded = (e: Event): Event => ({
  ...e,
  data: {
    toolCallId: e.data.toolCallId,
    model: 'claude-sonnet-4.5',
    interactionId: FIRST_INTERACTION,
    success: true,
    result: { content: 'slept' },
  },
});

describe.skipIf(SKIP)('calls left open across turns and the real Copilot CLI', () => {
  const interrupted = (call: string) => [call, COPILOT_INTERRUPTED, undefined];

  it('a call a crash left open, then an abort in a later turn: every call sent interrupted, as threadbase reads them', async () => {
    const cases: [string, (e: Event[]) => Event[], unknown[]][] = [
      // the completion Copilot CLI wrote after the session.resume is not sent
      ['as recorded', (e) => e, [interrupted('toolu_standin_0001'), interrupted('toolu_standin_0002')]],
      [
        'no completion written',
        lateCompletion(() => undefined),
        [interrupted('toolu_standin_0001'), interrupted('toolu_standin_0002')],
      ],
      [
        'a success after the resume',
        lateCompletion(succeeded),
        [interrupted('toolu_standin_0001'), interrupted('toolu_standin_0002')],
      ],
      // open at the next user message, no abort after it: interrupted all the same (the last one is not read)
      [
        'no resume, no abort',
        (events) => lateCompletion(() => undefined)(events).filter((e) => e.type !== 'session.resume' && e.type !== 'abort'),
        [
          interrupted('toolu_standin_0001'),
          ['toolu_standin_0002', expect.stringMatching(/^Tool execution was interrupted/), undefined],
        ],
      ],
      // before the session.resume it is the call's result
      [
        'a success before the resume',
        (events) => {
          const done = succeeded(events.find((e) => e.type === 'tool.execution_complete') as Event);
          const rest = lateCompletion(() => undefined)(events);
          const at = rest.findIndex((e) => e.type === 'tool.execution_start') + 1;
          return [...rest.slice(0, at), done, ...rest.slice(at)];
        },
        [['toolu_standin_0001', 'slept', undefined], interrupted('toolu_standin_0002')],
      ],
    ];
    for (const [name, edit, expected] of cases) {
      const id = await copyOf(ACROSS, ACROSS_TURNS, ACROSS_CWD, edit);
      const { sent, ours } = await resumedByCopilot(home, id, `probe ${name}`);
      expect([name, resultsSent(sent)]).toEqual([name, expected]);
      // the last call of the case without an abort: not read, so threadbase's context has no such result
      if (name === 'no resume, no abort') expect([name, resultsSent(ours)[0]]).toEqual([name, expected[0]]);
      else expect([name, sent]).toEqual([name, ours]);
    }
  }, 600_000);

  it('an abort while a sub-agent ran: the task call sent interrupted, nothing of the run, as threadbase has it', async () => {
    const id = await copyOf(ACROSS, SUB_AGENT, ACROSS_CWD, (e) => e);
    const { sent, ours } = await resumedByCopilot(home, id, 'probe sub-agent');
    expect(resultsSent(sent)).toEqual([interrupted('toolu_standin_0006')]);
    expect(JSON.stringify(sent)).not.toContain('toolu_standin_0007');
    expect(sent).toEqual(ours);
  }, 240_000);
});
