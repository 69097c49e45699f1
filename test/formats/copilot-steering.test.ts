/**
 * A user's message typed while a response's calls ran. Copilot CLI records it among the calls' results
 * (`user.message` with `delivery: "steering"`) and, resumed, sends all the results (in call order) first,
 * then the message (seen with the real 1.0.102: test/agents/copilot-steering.test.ts); its context here
 * says so. Claude Code writes such a response split over records with the message between them: written
 * into Copilot CLI it is one assistant.message with all its calls, their real results, then the message
 * (it was written as two responses, or the first's calls closed as errors and their results left out).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import { type CopilotReadState, initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { CopilotDriver, copilotContext, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { buildContext, pathToLeaf } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { echoCall as call, toolResult as result } from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-steering-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const record = (...parts: Message['parts']): Message => ({
  role: 'assistant',
  responseId: 'msg_r1',
  model: 'claude-sonnet-4-5',
  parts,
});
/** each message as its role and its parts in short, consecutive tool messages (one result an event) as one */
const shape = (ms: readonly Message[]) =>
  ms
    .reduce<Message[]>((out, m) => {
      const last = out.at(-1);
      if (last?.role === 'tool' && m.role === 'tool') out[out.length - 1] = { ...last, parts: [...last.parts, ...m.parts] };
      else out.push(m);
      return out;
    }, [])
    .map((m) => [
      m.role,
      m.parts.map((p) =>
        p.type === 'text'
          ? p.text
          : p.type === 'tool_call'
            ? `call ${p.id}`
            : p.type === 'tool_result'
              ? `${p.callId}: ${p.content}${p.isError ? ' (error)' : ''}`
              : p.type,
      ),
    ]);
const expected = [
  ['user', ['go']],
  ['assistant', ['call c1', 'call c2']],
  ['tool', ['c1: out1', 'c2: out2']],
  ['user', ['also this']],
  ['assistant', ['done']],
];

describe('a split response with a user message between its records, written into Copilot CLI', () => {
  const layouts: [string, [string, Message][]][] = [
    [
      'the results after the message',
      [
        ['a1', record(call('c1', 1))],
        ['u2', textMessage('user', 'also this')],
        ['a2', record(call('c2', 2))],
        ['t1', result('c1', 'out1')],
        ['t2', result('c2', 'out2')],
      ],
    ],
    [
      'a result before the message',
      [
        ['a1', record(call('c1', 1))],
        ['t1', result('c1', 'out1')],
        ['u2', textMessage('user', 'also this')],
        ['a2', record(call('c2', 2))],
        ['t2', result('c2', 'out2')],
      ],
    ],
  ];
  for (const [name, middle] of layouts)
    it(`is one response, its real results, then the message (${name})`, async () => {
      const session = chainSession('s', 'claude', '/p', [
        ['u1', textMessage('user', 'go')],
        ...middle,
        ['a3', textMessage('assistant', 'done', { responseId: 'msg_r2', model: 'claude-sonnet-4-5' })],
      ]);
      const encoded = encodeCopilotEvents(session);
      expect(encoded.warnings).toEqual([]);
      const types = encoded.records.map((r) => r.type as string);
      expect(types).toEqual([
        'session.start',
        'user.message',
        'assistant.message',
        'tool.execution_start',
        'tool.execution_start',
        'tool.execution_complete',
        'tool.execution_complete',
        'user.message',
        'assistant.message',
      ]);
      // the message at its own entry's time
      expect(encoded.records[7]?.timestamp).toBe(session.entries.find((e) => e.id === 'u2')?.timestamp);
      const home = join(dir, name.replaceAll(' ', '-'));
      const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: home } });
      const info = await driver.writeSession(session);
      const back = (await driver.getSession(info.id)) as Session;
      expect(shape(buildContext(back).messages)).toEqual(expected);
    });
});

/** Copilot CLI's events of a response whose second call ended first, the user's message typed between the two results */
function recordedEvents(id: string) {
  const ev = (type: string, data: Record<string, unknown>) => ({ type, data });
  return [
    ev('session.start', { sessionId: id, startTime: '2026-01-02T10:00:00.000Z', context: { cwd: '/p' } }),
    ev('user.message', { content: 'go' }),
    ev('assistant.message', {
      apiCallId: 'r1',
      content: '',
      toolRequests: [call('c1', 1), call('c2', 2)].map((c) => ({ toolCallId: c.id, name: c.name, arguments: c.input })),
    }),
    ev('tool.execution_start', { toolCallId: 'c1', toolName: 'bash' }),
    ev('tool.execution_start', { toolCallId: 'c2', toolName: 'bash' }),
    ev('tool.execution_complete', { toolCallId: 'c2', success: true, result: { content: 'out2' } }),
    ev('user.message', { content: 'also this', delivery: 'steering' }),
    ev('tool.execution_complete', { toolCallId: 'c1', success: true, result: { content: 'out1' } }),
    ev('assistant.message', { apiCallId: 'r2', content: 'done', toolRequests: [] }),
  ].map((e, i) => ({ ...e, id: `ev-${i + 1}`, timestamp: `2026-01-02T10:00:0${i}.000Z`, parentId: i ? `ev-${i}` : null }));
}
const lines = (events: unknown[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

describe("a Copilot CLI session with a response's results out of call order, a user's message among them", () => {
  it('is read as Copilot CLI sends it: the results in call order, then the message (entries relinked, ids and times kept)', async () => {
    const id = '7d1f2c7e-0b8a-4c55-9f5e-2b4c3d6e7f80';
    const d = join(dir, 'recorded', 'session-state', id);
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'events.jsonl'), lines(recordedEvents(id)));
    const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: join(dir, 'recorded') } });
    const session = (await driver.getSession(id)) as Session;
    expect(shape(buildContext(session).messages)).toEqual(expected);
    expect(shape(copilotContext(session).messages)).toEqual(expected);
    const path = pathToLeaf(session).map((e) => e.id);
    expect(path).toEqual(['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5', 'ev-8', 'ev-6', 'ev-7', 'ev-9']);
    // the entries listed in that order too, each at its event's time
    expect(session.entries.map((e) => e.id)).toEqual(path);
    expect(session.entries.find((e) => e.id === 'ev-8')?.timestamp).toBe('2026-01-02T10:00:07.000Z');
  });

  it('a queued message among them is placed so too; a call still open at the next response is answered as interrupted', async () => {
    const cases: [string, (events: ReturnType<typeof recordedEvents>) => unknown[], string][] = [
      [
        'queued',
        (events) => events.map((e) => (e.id === 'ev-7' ? { ...e, data: { ...e.data, delivery: 'queued' } } : e)),
        'c1: out1',
      ],
      // the first call never ended: no completion before the next response
      ['unended', (events) => events.filter((e) => e.id !== 'ev-8'), `c1: ${COPILOT_INTERRUPTED}`],
      // no delivery (an older Copilot CLI's, another writer's), or idle: the result after it is still the call's
      // (Copilot CLI sends it, not the interrupted words: test/agents/copilot-plain-user.test.ts)
      ['plain', (events) => events.map((e) => (e.id === 'ev-7' ? { ...e, data: { content: 'also this' } } : e)), 'c1: out1'],
      [
        'idle',
        (events) => events.map((e) => (e.id === 'ev-7' ? { ...e, data: { ...e.data, delivery: 'idle' } } : e)),
        'c1: out1',
      ],
      // the result after the next response too
      [
        'plain, the result after the next response',
        (events) => {
          const [c1, said, next] = ['ev-8', 'ev-7', 'ev-9'].map(
            (id) => events.find((e) => e.id === id) as (typeof events)[number],
          );
          const rest = events.filter((e) => ![c1, said, next].includes(e));
          return [...rest, { ...said, data: { content: 'also this' } }, next, c1];
        },
        'c1: out1',
      ],
    ];
    for (const [name, edit, first] of cases) {
      const id = `7d1f2c7e-0b8a-4c55-9f5e-2b4c3d6e7f9${cases.findIndex((c) => c[0] === name)}`;
      const d = join(dir, name.replace(/\W+/g, '-'), 'session-state', id);
      await mkdir(d, { recursive: true });
      await writeFile(join(d, 'events.jsonl'), lines(edit(recordedEvents(id))));
      const driver = new CopilotDriver({
        home: join(dir, 'nohome'),
        env: { COPILOT_HOME: join(dir, name.replace(/\W+/g, '-')) },
      });
      const session = (await driver.getSession(id)) as Session;
      const want = expected.map(([role, parts]) => [role, role === 'tool' ? [first, 'c2: out2'] : parts]);
      expect(shape(buildContext(session).messages), name).toEqual(want);
      expect(shape(copilotContext(session).messages), name).toEqual(want);
    }
  });

  it("a plain message read in one part, the result in the next: read whole again, the result in the words' place", async () => {
    const id = '7d1f2c7e-0b8a-4c55-9f5e-2b4c3d6e7f82';
    const file = join(dir, 'appended-plain', 'events.jsonl');
    await mkdir(dirname(file), { recursive: true });
    const events = recordedEvents(id).map((e) => (e.id === 'ev-7' ? { ...e, data: { content: 'also this' } } : e));
    await writeFile(file, lines(events.slice(0, 7)));
    const first = await parseEvents(file, initialState(id, '2026-01-02T10:00:00.000Z'));
    await writeFile(file, lines(events));
    const state = JSON.parse(JSON.stringify(first.state)) as CopilotReadState;
    expect((await parseEvents(file, state, { start: first.offset })).rewound).toBe(true);
    const whole = await parseEvents(file, initialState(id, '2026-01-02T10:00:00.000Z'));
    const results = whole.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .filter((p) => p.type === 'tool_result');
    expect(results.map((p) => (p.type === 'tool_result' ? `${p.callId}: ${p.content}` : ''))).toEqual(['c1: out1', 'c2: out2']);
  });

  it("read in two parts, the second with a result to go before the first part's: read whole again", async () => {
    const id = '7d1f2c7e-0b8a-4c55-9f5e-2b4c3d6e7f81';
    const file = join(dir, 'appended', 'events.jsonl');
    await mkdir(dirname(file), { recursive: true });
    const events = recordedEvents(id);
    // up to the user's message: the first part places nothing
    await writeFile(file, lines(events.slice(0, 7)));
    const first = await parseEvents(file, initialState(id, '2026-01-02T10:00:00.000Z'));
    expect(first.rewound).toBe(false);
    await writeFile(file, lines(events));
    const state = JSON.parse(JSON.stringify(first.state)) as CopilotReadState;
    expect((await parseEvents(file, state, { start: first.offset })).rewound).toBe(true);
    // appended where nothing goes before what was read: read from the offset
    await writeFile(file, lines(events.slice(0, 5)));
    const upTo = await parseEvents(file, initialState(id, '2026-01-02T10:00:00.000Z'));
    await writeFile(file, lines([...events.slice(0, 5), events[7], events[5], events[6], events[8]]));
    const more = await parseEvents(file, JSON.parse(JSON.stringify(upTo.state)) as CopilotReadState, { start: upTo.offset });
    expect(more.rewound).toBe(false);
  });
});
