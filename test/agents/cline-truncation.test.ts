/**
 * What the real cline 3.0.65 sends of a session beyond its messages (its message builder):
 * - a long tool result cut (past 8,000 characters, head and tail around `...[truncated N chars]...`):
 *   `threadbase context` of the session it recorded is that request, the result cut as Cline cut it;
 * - a call left without a result answered with its error result: the context of such a session is
 *   what Cline sends when it resumes it, that result marked cancelled (interrupted, in Cline's words).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicMessage, AnthropicRequest } from '../helpers/anthropic-standin.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import {
  type ClineHome,
  messageItems as items,
  resumeCline,
  resumedRequest,
  runCline,
  setupClineHome,
} from '../helpers/cline.js';
import { newestSession } from '../helpers/conversions.js';

let home: ClineHome;

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        const last = req.messages.at(-1);
        const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
        if (answered) return { text: 'read it' };
        const file = /READ: (\S+)/.exec(textOf(last))?.[1];
        if (file) return { toolUse: { name: 'read_files', input: { path: file } } };
        return undefined;
      },
    ],
  });
  // numbered lines, so a cut in the wrong place shows
  const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the big file`);
  await fs.writeFile(join(home.project, 'big.txt'), `${lines.join('\n')}\n`);
});
afterAll(async () => {
  await home?.close();
});

describe('a session whose tool result Cline cut short', () => {
  it('has as context the request Cline sent, the result cut as Cline cut it', async () => {
    await runCline(home, ['READ: big.txt']);
    const info = await newestSession(home, 'cline');
    const sent = home.standIn.messageRequests().at(-1) as AnthropicRequest;
    const sentResult = items(sent.messages.at(-1) as AnthropicMessage).find((s) => s.startsWith('result:')) ?? '';
    expect(sentResult).toMatch(/\.\.\.\[truncated \d+ chars\]\.\.\./);
    expect(sentResult).toContain('line 1 of the big file');

    // at the leaf: the request, then Cline's answer to it
    const ctx = JSON.parse(await runCliOk(home.env, ['context', info.id, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(ctx.messages.flatMap(items)).toEqual([...sent.messages.flatMap(items), 'assistant:read it']);
  }, 120_000);
});

describe('a session with a call left without a result', () => {
  it("has as context what Cline sends on resume, the call answered with Cline's error result", async () => {
    await fs.writeFile(join(home.project, 'small.txt'), 'small file\n');
    await runCline(home, ['READ: small.txt']);
    const info = await newestSession(home, 'cline');
    // the result's message gone (as when Cline is stopped while the tool runs)
    const file = join(home.data, 'sessions', info.id, `${info.id}.messages.json`);
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { messages: { content: { type: string }[] | string }[] };
    const messages = doc.messages.filter((m) => !(Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result')));
    expect(messages).toHaveLength(doc.messages.length - 1);
    await fs.writeFile(file, JSON.stringify({ ...doc, messages }));

    const ctx = JSON.parse(await runCliOk(home.env, ['context', info.id, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    await resumeCline(home, info.id, 'probe missing');
    const sent = resumedRequest(home, 'probe missing').messages.flatMap(items);
    // Cline's error result, its blocks sent as their JSON text
    const missing = [{ type: 'text', text: 'Tool execution was interrupted before a result was produced. Tool: read_files.' }];
    const result = sent.find((item) => item.startsWith('result:'));
    expect(result?.replace(/^result:toolu_standin_\d+:/, '')).toBe(JSON.stringify(missing));
    expect(ctx.messages.flatMap(items)).toEqual(sent);
    // Cline's words say it was interrupted: cancelled, as the Markdown context shows it
    const markdown = await runCliOk(home.env, ['context', info.id, '--format', 'markdown']);
    expect(markdown).toMatch(/\*\*tool result\*\* \(toolu_standin_\d+\) — \*\*cancelled\*\*/);
  }, 180_000);
});
