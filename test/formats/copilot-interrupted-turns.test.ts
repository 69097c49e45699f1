/**
 * Calls Copilot CLI 1.0.102 left open across turns and an abort while a sub-agent ran, recorded from the real
 * CLI on a pseudo-terminal (test/fixtures/copilot/interrupted-1.0.102, its README): a call a crash left open,
 * the `tool.execution_complete` Copilot CLI wrote for it after the `session.resume`, and an abort in the
 * later turn. Resumed, Copilot CLI sends every such call as interrupted (test/agents/copilot-interrupted.test.ts),
 * and threadbase reads them so: a call the user's next message finds open is answered before it, and a
 * completion after a session.resume for a call made before it is no result.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import { initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { pathToLeaf, resultText } from '../../src/model/tree.js';
import type { Entry } from '../../src/model/types.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/copilot/interrupted-1.0.102');
const ACROSS_TURNS = '9e05153b-1b7a-4333-9eb9-430005ab2096';
const SUB_AGENT = '330fb555-100e-405f-923d-c33039a3e2a9';
const driver = () => new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });

const rawType = (e: Entry) => (e.raw as { type?: string } | undefined)?.type;
const resultsOf = (entries: Entry[]) =>
  entries.flatMap((e) =>
    e.kind === 'message'
      ? e.message.parts.flatMap((p) =>
          p.type === 'tool_result' ? [[p.callId, resultText(p.content), p.isError, p.meta?.cancelled]] : [],
        )
      : [],
  );

describe('a call a crash left open, then an abort in a later turn (real 1.0.102)', () => {
  it('both calls read as interrupted, the first before the next user message; the completion written on resume is no result', async () => {
    const session = await driver().getSession(ACROSS_TURNS);
    if (!session) throw new Error('no fixture session');
    expect(resultsOf(session.entries)).toEqual([
      ['toolu_standin_0001', COPILOT_INTERRUPTED, undefined, true],
      ['toolu_standin_0002', COPILOT_INTERRUPTED, undefined, true],
    ]);
    const path = pathToLeaf(session, session.leafId ?? undefined);
    const steps = path.flatMap((e) => (e.kind === 'message' ? [`${e.message.role}:${rawType(e) ?? '-'}`] : []));
    expect(steps).toEqual([
      'user:user.message',
      'assistant:assistant.message',
      'tool:-',
      'user:user.message',
      'assistant:assistant.message',
      'tool:abort',
    ]);
    const late = session.entries.find((e) => rawType(e) === 'tool.execution_complete');
    expect(late?.kind).toBe('metadata');
  });

  it("its context is what Copilot CLI sends: the results in Copilot CLI's words, no is_error", async () => {
    const request = contextToAnthropic(await driver().getContext(ACROSS_TURNS));
    expect(sentToolResults(request.messages).map((b) => [b.tool_use_id, b.content, b.is_error])).toEqual([
      ['toolu_standin_0001', COPILOT_INTERRUPTED, undefined],
      ['toolu_standin_0002', COPILOT_INTERRUPTED, undefined],
    ]);
  });

  it('read in two appends (the state kept as JSON between them, as the index does), it reads the same', async () => {
    const text = await readFile(join(FIXTURE, '.copilot', 'session-state', ACROSS_TURNS, 'events.jsonl'), 'utf8');
    const dir = await mkdtemp(join(tmpdir(), 'tb-copilot-turns-'));
    try {
      const copy = join(dir, 'events.jsonl');
      // cut right after the session.resume: the call it left open is stale from the next read on
      const cut = text.indexOf('\n', text.indexOf('{"type":"session.resume"')) + 1;
      await writeFile(copy, text.slice(0, cut));
      const before = await parseEvents(copy, initialState(ACROSS_TURNS, '2026-11-26T00:00:00.000Z'));
      await writeFile(copy, text);
      const state = JSON.parse(JSON.stringify(before.state)) as typeof before.state;
      const after = await parseEvents(copy, state, { start: before.offset });
      expect(resultsOf([...before.entries, ...after.entries])).toEqual(
        resultsOf((await driver().getSession(ACROSS_TURNS))?.entries ?? []),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an abort while a sub-agent ran (real 1.0.102)', () => {
  it("the task call reads as interrupted, the run's own call too (in the run: test/formats/copilot-run-interrupted.test.ts)", async () => {
    const session = await driver().getSession(SUB_AGENT);
    expect(toolResultsOf(session).map((r) => [r.callId, resultText(r.content), r.isError, r.meta?.cancelled])).toEqual([
      ['toolu_standin_0006', COPILOT_INTERRUPTED, undefined, true],
      ['toolu_standin_0007', COPILOT_INTERRUPTED, undefined, true],
    ]);
    const runCalls = (session?.entries ?? []).flatMap((e) =>
      e.kind === 'message' && e.sidechain
        ? e.message.parts.filter((p) => p.type === 'tool_call').map((p) => p.type === 'tool_call' && p.id)
        : [],
    );
    expect(runCalls).toEqual(['toolu_standin_0007']);
    const request = contextToAnthropic(await driver().getContext(SUB_AGENT));
    expect(sentToolResults(request.messages).map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ['toolu_standin_0006', undefined],
    ]);
  });
});
