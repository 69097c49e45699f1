/**
 * A tool call the provider ran itself (`meta.providerExecuted`, convert/provider-tools.ts), whatever
 * agent it came from: no result is owed for it, so request bodies do not answer it with an error,
 * and each writer (Claude Code, pi, OpenCode) stores the text note its agent sends, keeping the call
 * beside it so that reading the file gives the call back whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { NO_RESULT_TEXT, pairToolResults } from '../../src/convert/pairing.js';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import * as lib from '../../src/index.js';
import type { Message, Session, ToolCallPart } from '../../src/model/types.js';
import { throughEncoders } from '../helpers/encoders.js';
import { chainSession } from '../helpers/sessions.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-provider-calls-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const SEARCH: ToolCallPart = {
  type: 'tool_call',
  id: 'srv_1',
  name: 'web_search',
  input: { query: 'vitest projects' },
  meta: { providerExecuted: true, kept: 'by the source' },
};
const CALL: ToolCallPart = { type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } };

function session(): Session {
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'look it up, then list' }] },
    { role: 'assistant', model: 'm', provider: 'p', parts: [SEARCH, { type: 'text', text: 'Found it.' }, CALL] },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] },
    { role: 'assistant', model: 'm', provider: 'p', parts: [{ type: 'text', text: 'Done.' }] },
  ];
  return chainSession(
    'src-session',
    'other',
    join(home, 'project'),
    messages.map((m, i): [string, Message] => [`e${i}`, m]),
  );
}

const calls = (s: Session) =>
  s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts.filter((p) => p.type === 'tool_call') : []));

describe('a call the provider ran', () => {
  it('gets no result when a request body pairs calls with results', () => {
    const paired = pairToolResults(
      session().entries.flatMap((e) => (e.kind === 'message' ? [e.message] : [])),
      {
        mergeAssistants: true,
      },
    );
    const results = paired.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'));
    expect(results).toEqual([{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }]);
    // in an Anthropic body it is the note, and the client call keeps its result
    const body = contextToAnthropic(lib.buildContext(session()));
    expect(JSON.stringify(body)).not.toContain(NO_RESULT_TEXT);
    expect(body.messages[1]?.content).toEqual([
      { type: 'text', text: providerCallNote(SEARCH) },
      { type: 'text', text: 'Found it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
    ]);
  });

  it('is written by the Claude Code, pi and OpenCode encoders as the note, and read back as the call', async () => {
    const note = providerCallNote(SEARCH);
    const { claude, pi, opencode, back } = await throughEncoders(session(), join(home, 'files'));
    for (const file of [claude, pi]) {
      // what the agent sends: the note's text, and the one client call
      expect(file.jsonl).toContain(JSON.stringify(note));
      expect(file.jsonl.match(/"type":"(tool_use|toolCall)"/g)).toHaveLength(1);
    }
    const ocParts = opencode.data.messages.flatMap((m) => m.parts);
    expect(ocParts).toContainEqual(expect.objectContaining({ type: 'text', text: note }));
    expect(ocParts.filter((p) => p.type === 'tool')).toHaveLength(1);

    for (const b of back)
      expect(calls(b)).toEqual([SEARCH, expect.objectContaining({ id: 'toolu_1', name: 'bash', input: { command: 'ls' } })]);
  });
});
