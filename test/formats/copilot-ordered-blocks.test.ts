/**
 * A reply of several thinking and text blocks in Copilot CLI (formats/copilot/part-layout.ts).
 * copilot-ordered-blocks.events.jsonl was recorded by the real Copilot CLI 1.0.102 against the
 * Anthropic stand-in answering `MULTI-b.` with thinking, text, text and `MULTI-g.` with thinking,
 * thinking, text, a bash call, text (its system prompt shortened); copilot-ordered-blocks.sent.json is
 * what it sent when resumed after them (the prompt of that run left out). It records such replies'
 * blocks in order as `reasoningBlocks.orderedBlocks` and sends them so; threadbase reads them so and
 * writes them so, and keeps the texts and unsigned thinking parts of a reply without thinking blocks
 * apart beside its joined `content` (`threadbase.partLayout`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { copilotContext } from '../../src/formats/copilot/context.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Part, Session } from '../../src/model/types.js';
import { plainMessage } from '../helpers/copilot.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const RECORDED = '491f5b45-2717-4b95-abbf-9ba646564d23';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-ordered-'));
  const dir = join(home, '.copilot', 'session-state', RECORDED);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'events.jsonl'), readFileSync('test/formats/copilot-ordered-blocks.events.jsonl'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

type Event = { type: string; data: Record<string, unknown> };
const eventsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Event);
const assistantEvents = (path: string) => eventsOf(path).filter((e) => e.type === 'assistant.message');
/** each reply's parts, its records joined, without meta */
const replies = (s: Session) =>
  buildContext(s)
    .messages.filter((m) => m.role === 'assistant')
    .map((m) => m.parts.map(({ meta: _m, ...p }) => p as Part));

describe("Copilot CLI's own reply of several thinking and text blocks", () => {
  it('is read with its blocks in order, and resumed as Copilot CLI sent it', async () => {
    const copilot = new CopilotDriver(homeEnv(home));
    const s = (await copilot.getSession(RECORDED)) as Session;
    const [first, second] = replies(s);
    expect(first).toEqual([
      { type: 'thinking', thinking: 'tC', signature: 'sC' },
      { type: 'text', text: 'two' },
      { type: 'text', text: 'three' },
    ]);
    expect(second?.map((p) => (p.type === 'text' ? p.text : p.type === 'thinking' ? p.thinking : p.type))).toEqual([
      'tG',
      'tH',
      'eleven',
      'tool_call',
      'twelve',
    ]);
    const sent = JSON.parse(readFileSync('test/formats/copilot-ordered-blocks.sent.json', 'utf8'));
    expect(contextToAnthropic(copilotContext(s)).messages.map(plainMessage)).toEqual(sent);
  });
});

describe('Claude Code → Copilot CLI → Claude Code, a reply of several blocks', () => {
  const model = { model: 'claude-sonnet-4-5', responseId: 'msg_multi', stopReason: 'tool_use' };
  const call: Part = { type: 'tool_call', id: 'toolu_m1', name: 'Bash', input: { command: 'echo m' } };
  const result: Message = {
    role: 'tool',
    parts: [{ type: 'tool_result', callId: 'toolu_m1', content: 'm' }],
  };

  async function roundTrip(reply: Message): Promise<{ source: Session; copied: Session; back: Session; path: string }> {
    const env = homeEnv(home);
    const claude = new ClaudeDriver(env);
    const copilot = new CopilotDriver(env);
    const written = await claude.writeSession(
      chainSession(`multi-${Math.random()}`, 'threadbase', '/p', [
        ['u1', textMessage('user', 'go')],
        ['a1', reply],
        ['t1', result],
        ['a2', textMessage('assistant', 'done', { model: 'claude-sonnet-4-5', responseId: 'msg_done' })],
      ]),
    );
    const source = (await claude.getSession(written.id)) as Session;
    const inCopilot = await convertSession(source, copilot);
    const copied = (await copilot.getSession(inCopilot.id)) as Session;
    const back = (await claude.getSession((await convertSession(copied, claude)).id)) as Session;
    return { source, copied, back, path: inCopilot.path as string };
  }

  it('signed thinking blocks and several texts: written as Copilot CLI records them (orderedBlocks), back as they were', async () => {
    const parts: Part[] = [
      { type: 'thinking', thinking: 'first thought', signature: 'sig-1' },
      { type: 'thinking', thinking: 'second thought', signature: 'sig-2' },
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
      call,
    ];
    const { source, copied, back, path } = await roundTrip({ role: 'assistant', ...model, parts });
    const [written] = assistantEvents(path);
    expect(written?.data.content).toBe('onetwo');
    expect(written?.data.reasoningBlocks).toEqual({
      provider: 'anthropic-messages',
      orderedBlocks: [
        { type: 'thinking', thinking: 'first thought', signature: 'sig-1' },
        { type: 'thinking', thinking: 'second thought', signature: 'sig-2' },
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
        { type: 'tool_use', id: 'toolu_m1' },
      ],
    });
    expect(replies(source)[0]).toEqual(parts);
    expect(replies(copied)[0]).toEqual(parts);
    expect(replies(back)).toEqual(replies(source));
    // Copilot CLI sends the blocks in order
    expect(copilotContext(copied).messages[1]?.parts).toEqual(parts);
  });

  it('unsigned thinking parts and several texts: Copilot CLI keeps them joined, threadbase their layout beside them, back as they were', async () => {
    const parts: Part[] = [
      { type: 'thinking', thinking: 'first thought' },
      { type: 'text', text: 'one' },
      { type: 'thinking', thinking: 'second thought' },
      { type: 'text', text: 'two' },
      call,
    ];
    const { source, copied, back, path } = await roundTrip({ role: 'assistant', ...model, parts });
    const [written] = assistantEvents(path);
    expect(written?.data).toMatchObject({ content: 'onetwo', reasoningText: 'first thought\n\nsecond thought' });
    expect(written?.data.reasoningBlocks).toBeUndefined();
    expect(replies(source)[0]).toEqual(parts);
    expect(replies(copied)[0]).toEqual(parts);
    expect(replies(back)).toEqual(replies(source));
    // Copilot CLI sends its content, then its calls (not the thinking it has no signature for)
    expect(copilotContext(copied).messages[1]?.parts).toEqual([{ type: 'text', text: 'onetwo' }, call]);
  });
});
