/**
 * A rich Claude Code session (a prompt with an image and a plain-text document; signed thinking, a
 * text and four parallel calls whose results came in another order: an image, a text, a refused call,
 * an interrupted call; redacted thinking and a call whose result holds a text, a document and an image;
 * usage with cache writes) converted with `threadbase convert` into Cline and Kilo CLI: the real cline
 * and kilo resume the copy and send what threadbase's context of it says (Cline's: a file as its text in
 * a `<file_content>` tag, a result holding a file as JSON text, redacted and unsigned thinking left out),
 * `threadbase stats` counts the copy's tokens as the original's, and the Cline copy converted back into
 * Claude Code is the original. Both copies hold unsigned thinking (beside the redacted), which neither
 * agent sends: Kilo's AI SDK drops reasoning without a signature, as OpenCode's context leaves it out
 * (src/formats/opencode/context.ts withoutUnsignedThinking).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { Message } from '../../src/model/types.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicMessage, conversationOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, resumeCline, resumedRequest, setupClineHome } from '../helpers/cline.js';
import { okProbeRule, readContext, withDriver } from '../helpers/conversions.js';
import { createKiloDatabase, kiloProbeRule, kiloRequestEndingWith, runKilo, setupKiloHome } from '../helpers/kilo.js';
import { chainSession, ONE_PIXEL_PNG } from '../helpers/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };

function richMessages(): [string, Message][] {
  return [
    [
      'u1',
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'look at this' },
          png,
          { type: 'file', mediaType: 'text/plain', text: 'doc body', name: 'notes.txt' },
        ],
      },
    ],
    [
      'a1',
      {
        role: 'assistant',
        model: MODEL,
        responseId: 'r1',
        usage: { input: 10, output: 20, cacheRead: 7, cacheWrite: 11, reasoning: 0 },
        stopReason: 'tool_use',
        parts: [
          { type: 'thinking', thinking: 'Three things.', signature: 'sig123' },
          { type: 'text', text: 'Running.' },
          { type: 'tool_call', id: 'toolu_1', name: 'Bash', input: { command: 'echo one' } },
          { type: 'tool_call', id: 'toolu_2', name: 'Read', input: { file_path: '/p/pixel.png' } },
          { type: 'tool_call', id: 'toolu_3', name: 'Bash', input: { command: 'rm -rf x' } },
          { type: 'tool_call', id: 'toolu_4', name: 'Bash', input: { command: 'sleep 100' } },
        ],
      },
    ],
    [
      't1',
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', callId: 'toolu_2', content: [png] },
          { type: 'tool_result', callId: 'toolu_1', content: 'one' },
          { type: 'tool_result', callId: 'toolu_3', content: 'refused', isError: true, meta: { refused: true } },
          { type: 'tool_result', callId: 'toolu_4', content: 'interrupted', isError: true, meta: { cancelled: true } },
        ],
      },
    ],
    ['u2', { role: 'user', parts: [{ type: 'text', text: 'now list' }] }],
    [
      'a3',
      {
        role: 'assistant',
        model: MODEL,
        responseId: 'r3',
        usage: { input: 5, output: 6, cacheRead: 1, cacheWrite: 4, reasoning: 0 },
        stopReason: 'tool_use',
        parts: [
          { type: 'redacted_thinking', data: 'ENCRYPTED' },
          { type: 'thinking', thinking: 'An unsigned thought.' },
          { type: 'tool_call', id: 'toolu_5', name: 'Read', input: { file_path: '/p/a.txt' } },
          { type: 'tool_call', id: 'toolu_6', name: 'Read', input: { file_path: '/p/b.txt' } },
        ],
      },
    ],
    [
      't2',
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_5',
            content: [
              { type: 'text', text: 'listed' },
              { type: 'file', mediaType: 'text/plain', text: 'file text', name: 'a.txt' },
              png,
            ],
          },
          {
            type: 'tool_result',
            callId: 'toolu_6',
            content: [
              { type: 'text', text: 'read' },
              { type: 'file', mediaType: 'text/plain', text: 'b text', name: 'b.txt' },
            ],
          },
        ],
      },
    ],
    [
      'a2',
      {
        role: 'assistant',
        model: MODEL,
        responseId: 'r2',
        usage: { input: 30, output: 5, cacheRead: 3, cacheWrite: 2, reasoning: 0 },
        stopReason: 'end_turn',
        parts: [{ type: 'text', text: 'Done.' }],
      },
    ],
  ];
}

async function writeClaudeOriginal(home: Pick<AgentHome, 'env' | 'project'>): Promise<string> {
  const session = chainSession('rich', 'claude', home.project, richMessages());
  const info = await withDriver(home.env, 'claude', async (d) => d.writeSession?.(session));
  return info?.id as string;
}

/** The copy's tokens as `threadbase stats --source <agent>` counts them equal its original's (before the agent resumes it). */
async function expectSameTokens(home: Pick<AgentHome, 'env'>, agent: string): Promise<void> {
  const tokens = async (source: string) => {
    const [row] = JSON.parse(await runCliOk(home.env, ['stats', '--by', 'source', '--source', source, '--json'])) as Record<
      string,
      unknown
    >[];
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, messages } = row ?? {};
    return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, messages };
  };
  expect(await tokens(agent)).toEqual({
    inputTokens: 45,
    outputTokens: 31,
    cacheReadTokens: 11,
    cacheWriteTokens: 17,
    messages: 3,
  });
  expect(await tokens('claude')).toEqual(await tokens(agent));
}

describe('cline', () => {
  let home: ClineHome;
  beforeAll(async () => {
    home = await setupClineHome({ rules: [okProbeRule] });
  });
  afterAll(async () => home?.close());
  it('resumes the copy', async () => {
    const original = await writeClaudeOriginal(home);
    const copy = JSON.parse(await runCliOk(home.env, ['convert', original, '--to', 'cline', '--json'])) as { id: string };
    const ours = contextToAnthropic(await readContext(home, 'cline', copy.id)).messages as AnthropicMessage[];
    await expectSameTokens(home, 'cline');
    // back into Claude Code, the session is the original: Cline's file keeps every part and its meta
    const back = JSON.parse(await runCliOk(home.env, ['convert', copy.id, '--to', 'claude', '--json'])) as { id: string };
    const claudeContext = async (id: string) =>
      contextToAnthropic(await readContext(home, 'claude', id)).messages as AnthropicMessage[];
    expect(conversationOf(await claudeContext(back.id))).toEqual(conversationOf(await claudeContext(original)));
    await resumeCline(home, copy.id, 'probe rich');
    expect(conversationOf(resumedRequest(home, 'probe rich').messages)).toEqual(conversationOf(ours));
  }, 240_000);
});

describe('kilo', () => {
  let home: AgentHome;
  beforeAll(async () => {
    home = await setupKiloHome({ rules: [kiloProbeRule] });
    await createKiloDatabase(home);
  }, 120_000);
  afterAll(async () => home?.close());
  it('resumes the copy', async () => {
    const original = await writeClaudeOriginal(home);
    const copy = JSON.parse(await runCliOk(home.env, ['convert', original, '--to', 'kilo', '--json'])) as { id: string };
    const ours = contextToAnthropic(await readContext(home, 'kilo', copy.id)).messages as AnthropicMessage[];
    await expectSameTokens(home, 'kilo');
    await runKilo(home, ['run', '-s', copy.id, 'probe', 'rich']);
    const sent = kiloRequestEndingWith(home, 'probe rich').messages.slice(0, -1);
    expect(conversationOf(sent)).toEqual(conversationOf(ours));
    expect(JSON.stringify(sent)).not.toContain('An unsigned thought.');
    expect(JSON.stringify(sent)).toContain('ENCRYPTED');
  }, 240_000);
});
