/**
 * A response Claude Code split over several records (its thinking, its text, each call a record, every
 * one with the response's usage) shows its tokens once in the exported HTML, on the record whose usage
 * `stats` counts, as the web viewer shows them: each record showed them, read as the tokens spent twice.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';

let root: string;
let env: DriverEnv;
let id: string;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-export-split-' }));
  env = { home: root, env: { HOME: root } };
  const model = 'claude-sonnet-4-5';
  const record = (parts: Message['parts'], responseId: string, input: number, output: number): Message => ({
    role: 'assistant',
    parts,
    model,
    responseId,
    usage: usageOf(input, output),
  });
  const sources = new Sources(env);
  try {
    id = (
      await sources.driver('claude').writeSession?.(
        chainSession('split-response', 'threadbase', join(root, 'proj'), [
          ['u1', textMessage('user', 'look at it')],
          ['a1', record([{ type: 'thinking', thinking: 'Let me look.', signature: 'sig' }], 'msg_one', 2548, 61)],
          ['a2', record([{ type: 'text', text: 'Looking now.' }], 'msg_one', 2548, 61)],
          ['a3', record([{ type: 'tool_call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], 'msg_one', 2548, 61)],
          ['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }],
          ['a4', record([{ type: 'text', text: 'One file.' }], 'msg_two', 2639, 14)],
        ]),
      )
    )?.id as string;
  } finally {
    await sources.close();
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('export html: a response split over records', () => {
  it('shows its tokens on one record, each response once', async () => {
    const html = await runCliOk(env, ['export', id, '--no-index']);
    const metas = [...html.matchAll(/<span class="meta">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(metas).toEqual([
      'claude-sonnet-4-5',
      'claude-sonnet-4-5',
      'claude-sonnet-4-5 · 2548 in · 61 out',
      'claude-sonnet-4-5 · 2639 in · 14 out',
    ]);
    // the head's total counts the split response once
    expect(html).toContain('Usage: 5,262 tokens');
  });
});
