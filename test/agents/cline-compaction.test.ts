/**
 * The real cline 3.0.65 compacting offline (test/fixtures/cline/compaction-3.0.65/README.md): the
 * loopback stand-in answers once with "prompt is too long", Cline compacts (overflow recovery, basic)
 * and retries. `threadbase context` at the compaction it recorded is what Cline sent then.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicMessage, AnthropicRequest } from '../helpers/anthropic-standin.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, runCline, setupClineHome } from '../helpers/cline.js';
import { newestSession } from '../helpers/conversions.js';

let home: ClineHome;
let overflowed = false;
const lastUser = (r: AnthropicRequest) => textOf(r.messages.findLast((m) => m.role === 'user'));

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        const last = lastUser(req);
        if (last.includes('beta line')) {
          if (overflowed) return { text: 'finished reading both' };
          overflowed = true;
          return {
            error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' },
          };
        }
        if (last.includes('alpha line')) return { toolUse: { name: 'read_files', input: { path: 'b.txt' } } };
        return { toolUse: { name: 'read_files', input: { path: 'a.txt' } } };
      },
    ],
  });
  await fs.writeFile(join(home.project, 'a.txt'), 'alpha line\n'.repeat(200));
  await fs.writeFile(join(home.project, 'b.txt'), 'beta line\n'.repeat(200));
});
afterAll(async () => {
  await home?.close();
});

/** A message as comparable items: its role and text (blocks joined), its calls, its results' heads. */
function items(m: AnthropicMessage): string[] {
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  const text = blocks.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])).join('\n');
  return [
    `${m.role}:${text}`,
    ...blocks.flatMap((b) => {
      if (b.type === 'tool_use') return [`call:${String(b.id)}:${String(b.name)}:${JSON.stringify(b.input)}`];
      if (b.type === 'tool_result')
        return [`result:${String(b.tool_use_id)}:${textOf({ role: 'user', content: [b] }).slice(0, 200)}`];
      return [];
    }),
  ];
}

describe('a session the real cline compacted', () => {
  it('reads its compaction: the context at it is what Cline sent after compacting', async () => {
    await runCline(home, ['--compaction', 'basic', 'READ: a.txt and b.txt']);
    const info = await newestSession(home, 'cline');
    const files = await fs.readdir(join(home.data, 'sessions', info.id));
    expect(files).toContain(`${info.id}.compaction.json`);
    const sent = home.standIn.messageRequests().at(-1) as AnthropicRequest;
    expect(textOf(sent.messages[0])).toContain('Earlier context was compacted');

    const ctx = JSON.parse(
      await runCliOk(home.env, ['context', info.id, '--leaf', `${info.id}:compaction`, '--format', 'anthropic']),
    ) as { messages: AnthropicMessage[] };
    expect(ctx.messages.map(items)).toEqual(sent.messages.map(items));
    // at the leaf: then Cline's answer
    const atLeaf = JSON.parse(await runCliOk(home.env, ['context', info.id, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(atLeaf.messages.map(items)).toEqual([...sent.messages.map(items), ['assistant:finished reading both']]);
  }, 120_000);
});
