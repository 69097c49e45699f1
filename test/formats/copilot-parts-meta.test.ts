/**
 * What another agent keeps on a response's reasoning and calls that Copilot CLI has no place for (pi's
 * OpenAI reasoning item: its id and encrypted content; a call's Responses item id, which that API pairs the
 * reasoning item with) is kept in the assistant.message's `threadbase` (encode.ts keptPartsMeta) and read
 * back on the same parts, so pi → copilot → pi writes the same thinkingSignature and call ids pi sends.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { PiDriver } from '../../src/formats/pi/index.js';
import type { Session } from '../../src/model/types.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-parts-meta-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

/** pi's assistant records of a file: their thinking signatures and call ids */
function piAssistant(path: string): { signatures: unknown[]; calls: unknown[] }[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; message?: { role: string; content: Record<string, unknown>[] } })
    .filter((r) => r.type === 'message' && r.message?.role === 'assistant')
    .map((r) => ({
      signatures: (r.message?.content ?? []).filter((b) => b.type === 'thinking').map((b) => b.thinkingSignature),
      calls: (r.message?.content ?? []).filter((b) => b.type === 'toolCall').map((b) => b.id),
    }));
}

describe("another agent's reasoning and call meta through Copilot CLI", () => {
  it("pi → copilot → pi keeps the OpenAI reasoning item and the calls' item ids", async () => {
    const env = homeEnv(home);
    const pi = new PiDriver(env);
    const copilot = new CopilotDriver(env);
    const session = chainSession('meta', 'threadbase', '/p', [
      ['u1', textMessage('user', 'run two')],
      [
        'a1',
        {
          role: 'assistant',
          model: 'gpt-5',
          provider: 'openai',
          api: 'openai-responses',
          parts: [
            { type: 'thinking', thinking: 'Two at once.', meta: { encryptedContent: 'ENC-1', codexItemId: 'rs_1' } },
            { type: 'tool_call', id: 'call_a', name: 'bash', input: { command: 'echo a' }, meta: { piItemId: 'fc_a' } },
            { type: 'tool_call', id: 'call_b', name: 'bash', input: { command: 'echo b' }, meta: { piItemId: 'fc_b' } },
          ],
        },
      ],
      [
        't1',
        {
          role: 'tool',
          parts: [
            { type: 'tool_result', callId: 'call_a', content: 'a' },
            { type: 'tool_result', callId: 'call_b', content: 'b' },
          ],
        },
      ],
      [
        'a2',
        { role: 'assistant', model: 'gpt-5', provider: 'openai', api: 'openai-responses', parts: [{ type: 'text', text: 'ok' }] },
      ],
    ]);
    const source = (await pi.getSession((await pi.writeSession(session)).id)) as Session;
    const want = piAssistant(source.path as string);
    expect(want[0]?.calls).toEqual(['call_a|fc_a', 'call_b|fc_b']);
    expect(JSON.parse(String(want[0]?.signatures[0]))).toMatchObject({ id: 'rs_1', encrypted_content: 'ENC-1' });

    const copied = (await copilot.getSession((await convertSession(source, copilot)).id)) as Session;
    const back = await convertSession(copied, pi);
    expect(piAssistant(back.path as string)).toEqual(want);
  });
});
