import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseTranscript } from '../../src/formats/claude/parse.js';

const line = (r: Record<string, unknown>) => `${JSON.stringify(r)}\n`;

describe('Claude Code records with content blocks that are not objects', () => {
  const warned = vi.fn();
  beforeEach(() => {
    warned.mockReset();
    process.on('warning', warned);
  });
  afterEach(() => {
    process.off('warning', warned);
  });

  it('are warnings naming file, line and record, and the rest of the message and file load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-claude-skipped-'));
    const file = join(dir, 's.jsonl');
    const base = { sessionId: 's', cwd: '/p', timestamp: '2026-11-01T10:00:00.000Z' };
    writeFileSync(
      file,
      line({ ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }) +
        line({
          ...base,
          type: 'assistant',
          uuid: 'a1',
          parentUuid: 'u1',
          message: { role: 'assistant', model: 'claude-x', content: [null, { type: 'text', text: 'hello' }, 7] },
        }) +
        line({ ...base, type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: 'more' } }),
    );
    const t = await parseTranscript(file);
    expect(t.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'u2']);
    const a1 = t.entries[1];
    expect(a1?.kind === 'message' && a1.message.parts).toEqual([{ type: 'text', text: 'hello' }]);
    expect(t.warnings).toEqual([
      { file, line: 2, id: 'a1', message: expect.stringMatching(/^message\.content\[0\]: a content block is null/) },
      { file, line: 2, id: 'a1', message: expect.stringMatching(/^message\.content\[2\]: a content block is a number/) },
    ]);
    await new Promise((r) => setImmediate(r));
    expect(warned).not.toHaveBeenCalled();
  });
});
