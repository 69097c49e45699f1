/** Hand-made codex rollouts (lines as real codex leaves them, trimmed), written to a temp file and read back. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { Session } from '../../src/model/types.js';

/** The time of a line `s` seconds into the rollouts' one minute. */
export const rolloutTime = (s: number): string => `2026-11-26T01:01:${String(s).padStart(2, '0')}.000Z`;

/** A Responses message of one text (output_text for the assistant, input_text else); `extra`: its other fields. */
export const textItem = (role: string, text: string, extra: object = {}) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
  ...extra,
});

/** A `response_item` line at second `s`. */
export const responseItem = (s: number, payload: object) => ({ timestamp: rolloutTime(s), type: 'response_item', payload });

/**
 * For this test file: `read` writes `lines` as session `id`'s rollout in a new temp folder (`prefix`…)
 * and reads it; those folders, and any the test adds to `temps`, are removed after each test.
 */
export function tempRollouts(prefix: string): { read(id: string, lines: object[]): Promise<Session>; temps: string[] } {
  const temps: string[] = [];
  afterEach(async () => {
    for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
  });
  return {
    temps,
    read: async (id, lines) => {
      const dir = await fs.mkdtemp(join(tmpdir(), prefix));
      temps.push(dir);
      const file = join(dir, `rollout-2026-11-26T01-01-00-${id}.jsonl`);
      await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      return readRollout(file);
    },
  };
}
