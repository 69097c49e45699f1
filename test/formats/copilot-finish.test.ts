/**
 * A response's stop reason and wire API written into Copilot CLI's session.usage_record as Copilot CLI
 * 1.0.102 records its own (`finishReason` in OpenAI's words, `apiEndpoint`; formats/copilot/finish.ts),
 * read back in the model's words: a Claude Code session's end_turn / tool_use / max_tokens survive
 * claude → copilot → claude, and pi's words and APIs survive pi → copilot → pi (what finishReason cannot
 * tell kept in the assistant.message's `threadbase`). Copilot CLI's own records read as the model's words.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { PiDriver } from '../../src/formats/pi/index.js';
import { resumeContextOf } from '../../src/model/resume.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { stopsSession } from '../helpers/copilot.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-finish-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const replies = (s: Session) => buildContext(s).messages.filter((m) => m.role === 'assistant');
const usageRecords = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data: { usage?: Record<string, unknown> } })
    .filter((e) => e.type === 'session.usage_record')
    .map((e) => e.data.usage ?? {});

describe('stop reasons and APIs into Copilot CLI and back', () => {
  it("a Claude Code session's end_turn / tool_use / max_tokens: Copilot CLI's words in the file, the same back in Claude Code", async () => {
    const env = homeEnv(home);
    const claude = new ClaudeDriver(env);
    const copilot = new CopilotDriver(env);
    const written = await claude.writeSession(
      stopsSession('threadbase', '/p', ['tool_use', 'max_tokens', 'end_turn'], 'anthropic-messages', 'anthropic'),
    );
    const source = (await claude.getSession(written.id)) as Session;
    expect(replies(source).map((m) => m.stopReason)).toEqual(['tool_use', 'max_tokens', 'end_turn']);

    const inCopilot = await convertSession(source, copilot);
    expect(usageRecords(inCopilot.path as string).map((u) => [u.finishReason, u.apiEndpoint])).toEqual([
      ['tool_calls', '/v1/messages'],
      ['length', '/v1/messages'],
      ['stop', '/v1/messages'],
    ]);
    const copied = (await copilot.getSession(inCopilot.id)) as Session;
    expect(replies(copied).map((m) => [m.stopReason, m.api])).toEqual([
      ['tool_use', 'anthropic-messages'],
      ['max_tokens', 'anthropic-messages'],
      ['end_turn', 'anthropic-messages'],
    ]);

    const back = await convertSession(copied, claude);
    const again = (await claude.getSession(back.id)) as Session;
    expect(replies(again).map((m) => [m.stopReason, m.api])).toEqual([
      ['tool_use', 'anthropic-messages'],
      ['max_tokens', 'anthropic-messages'],
      ['end_turn', 'anthropic-messages'],
    ]);
  });

  it("pi's stop reasons and API: Copilot CLI's words in the file, pi's own back (what they cannot tell kept beside them)", async () => {
    const env = homeEnv(home);
    const pi = new PiDriver(env);
    const copilot = new CopilotDriver(env);
    const written = await pi.writeSession(
      stopsSession('threadbase', '/p', ['toolUse', 'length', 'stop'], 'openai-completions', 'openrouter'),
    );
    const source = (await pi.getSession(written.id)) as Session;
    expect(replies(source).map((m) => [m.stopReason, m.api])).toEqual([
      ['toolUse', 'openai-completions'],
      ['length', 'openai-completions'],
      ['stop', 'openai-completions'],
    ]);
    const inCopilot = await convertSession(source, copilot);
    expect(usageRecords(inCopilot.path as string).map((u) => [u.finishReason, u.apiEndpoint])).toEqual([
      ['tool_calls', '/chat/completions'],
      ['length', '/chat/completions'],
      ['stop', '/chat/completions'],
    ]);
    const copied = (await copilot.getSession(inCopilot.id)) as Session;
    expect(replies(copied).map((m) => [m.stopReason, m.api])).toEqual([
      ['toolUse', 'openai-completions'],
      ['length', 'openai-completions'],
      ['stop', 'openai-completions'],
    ]);
    const back = await convertSession(copied, pi);
    const again = (await pi.getSession(back.id)) as Session;
    expect(replies(again).map((m) => [m.stopReason, m.api])).toEqual([
      ['toolUse', 'openai-completions'],
      ['length', 'openai-completions'],
      ['stop', 'openai-completions'],
    ]);
  });

  it('an API Copilot CLI has no endpoint for, and a stop reason of a reply with no usage record, are kept beside the message', async () => {
    const copilot = new CopilotDriver(homeEnv(home));
    const session = chainSession('no-usage', 'threadbase', '/p', [
      ['u1', textMessage('user', 'hi')],
      [
        'a1',
        {
          role: 'assistant',
          model: 'gemini-2.5-pro',
          api: 'google-generative-ai',
          stopReason: 'stop_sequence',
          parts: [{ type: 'text', text: 'hello' }],
        },
      ],
    ]);
    const written = await copilot.writeSession(session);
    expect(usageRecords(written.path as string)).toEqual([]);
    const copied = (await copilot.getSession(written.id)) as Session;
    expect(replies(copied).map((m) => [m.stopReason, m.api])).toEqual([['stop_sequence', 'google-generative-ai']]);
  });

  it("a response's cost in USD is kept beside it (Copilot CLI's usage cost counts premium requests) and read back into pi", async () => {
    const env = homeEnv(home);
    const pi = new PiDriver(env);
    const copilot = new CopilotDriver(env);
    const priced = stopsSession('threadbase', '/p', ['toolUse', 'length', 'stop'], 'openai-completions', 'openrouter');
    let n = 0;
    for (const e of priced.entries) if (e.kind === 'message' && e.message.role === 'assistant') e.message.cost = 0.25 * ++n;
    const source = (await pi.getSession((await pi.writeSession(priced)).id)) as Session;
    expect(replies(source).map((m) => m.cost)).toEqual([0.25, 0.5, 0.75]);
    const inCopilot = await convertSession(source, copilot);
    expect(usageRecords(inCopilot.path as string).map((u) => u.cost)).toEqual([undefined, undefined, undefined]);
    expect(inCopilot.meta?.warnings).toContainEqual(expect.stringContaining('kept in a field it ignores'));
    const copied = (await copilot.getSession(inCopilot.id)) as Session;
    expect(replies(copied).map((m) => m.cost)).toEqual([0.25, 0.5, 0.75]);
    const again = (await pi.getSession((await convertSession(copied, pi)).id)) as Session;
    expect(replies(again).map((m) => m.cost)).toEqual([0.25, 0.5, 0.75]);
  });

  it("pi's failed turn keeps its stop reason and error through Copilot CLI, so pi leaves it out again", async () => {
    const env = homeEnv(home);
    const pi = new PiDriver(env);
    const copilot = new CopilotDriver(env);
    const failed = chainSession('failed', 'threadbase', '/p', [
      ['u1', textMessage('user', 'try')],
      [
        'a1',
        {
          role: 'assistant',
          model: 'gpt-5',
          provider: 'openai',
          api: 'openai-responses',
          stopReason: 'error',
          error: '429 rate limited',
          parts: [{ type: 'text', text: 'Partial' }],
        },
      ],
      ['u2', textMessage('user', 'again')],
      [
        'a2',
        {
          role: 'assistant',
          model: 'gpt-5',
          provider: 'openai',
          api: 'openai-responses',
          stopReason: 'stop',
          parts: [{ type: 'text', text: 'ok' }],
        },
      ],
    ]);
    const source = (await pi.getSession((await pi.writeSession(failed)).id)) as Session;
    const copied = (await copilot.getSession((await convertSession(source, copilot)).id)) as Session;
    const again = (await pi.getSession((await convertSession(copied, pi)).id)) as Session;
    for (const s of [source, copied, again]) {
      const turns = s.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
      expect(
        turns.map((m) => [m.stopReason, m.error]),
        s.source,
      ).toEqual([
        ['error', '429 rate limited'],
        ['stop', undefined],
      ]);
    }
    // pi leaves the failed turn out of what it sends, again
    const piContext = resumeContextOf('pi');
    const sentText = (s: Session) =>
      piContext?.(s).messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));
    expect(sentText(again)).toEqual(['try', 'again', 'ok']);
    expect(sentText(again)).toEqual(sentText(source));
  });

  it('usage terms the usage record has no field for (1-hour cache writes, place, advisor requests) are kept beside it and read back', async () => {
    const copilot = new CopilotDriver(homeEnv(home));
    const usage = {
      input: 1000,
      output: 200,
      cacheRead: 5000,
      cacheWrite: 300,
      cacheWrite1h: 200,
      reasoning: 0,
      inferenceGeo: 'us',
      advisors: [{ model: 'claude-opus-5', input: 4000, output: 500, cacheRead: 2000, cacheWrite: 800, cacheWrite1h: 600 }],
    };
    const session = chainSession('advised', 'threadbase', '/p', [
      ['u1', textMessage('user', 'ask')],
      [
        'a1',
        { role: 'assistant', model: 'claude-sonnet-5', responseId: 'msg_1', usage, parts: [{ type: 'text', text: 'advised' }] },
      ],
    ]);
    const written = await copilot.writeSession(session);
    expect(written.meta?.warnings ?? []).toEqual([]);
    const copied = (await copilot.getSession(written.id)) as Session;
    expect(replies(copied)[0]?.usage).toEqual(usage);
    // the advisor's tokens counted too, as for the original
    expect(copied.usage).toEqual(summarizeUsage(session.entries).usage);
    expect(copied.usage?.input).toBe(5000);
  });
});
