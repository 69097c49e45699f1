/**
 * A conversion says each loss once: the summary of what the target cannot keep (convert/losses.ts and
 * each agent's losses.ts) and the warnings its encoder adds are not the same loss twice; and every line,
 * the encoder's too, begins with the converted session and the target (`claude:x → pi: `).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 5, 0, 0, s)).toISOString();

/** A session of `source` with what no other agent keeps as it is: metadata, settings, a label, a system message, a call left unanswered. */
function lossy(project: string, source = 'claude'): Session {
  const entries: Entry[] = [
    { kind: 'metadata', id: 'm1', parentId: null, timestamp: t(0), type: 'attachment', rawSource: source },
    { kind: 'model_change', id: 'mc', parentId: 'm1', timestamp: t(1), model: 'claude-opus-4-5', provider: 'anthropic' },
    messageEntry('s', 'mc', t(2), textMessage('system', 'be brief')),
    messageEntry('u', 's', t(3), {
      role: 'user',
      parts: [
        { type: 'text', text: 'list the files' },
        { type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' },
      ],
    }),
    { kind: 'metadata', id: 'm2', parentId: 'u', timestamp: t(4), type: 'attachment', rawSource: source },
    messageEntry('a', 'm2', t(5), {
      role: 'assistant',
      model: 'claude-opus-4-5',
      parts: [
        { type: 'text', text: 'looking' },
        { type: 'tool_call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      ],
    }),
    { kind: 'label', id: 'l', parentId: 'a', timestamp: t(6), targetId: 'a', label: 'good' },
    { kind: 'metadata', id: 'm3', parentId: 'l', timestamp: t(7), type: 'compact-summary', rawSource: source },
  ];
  for (const e of entries) if (e.kind !== 'metadata') e.rawSource = source;
  return { id: 'x', source, project, createdAt: t(0), updatedAt: t(7), messageCount: 3, entries };
}

/** Each loss, as any warning words it. */
const LOSSES: Record<string, RegExp> = {
  metadata: /metadata/i,
  'model changes': /model\/thinking-level|model_change/i,
  labels: /label/i,
  'system messages': /system message/i,
  'images by URL': /by URL/i,
  'unanswered calls': /without a result|had no result/i,
};

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-losses-once-'));
  await fs.mkdir(join(root, 'project'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** What each target says it loses of `lossy` (the rest it keeps in a form it sends). */
const SAID: Record<string, string[]> = {
  gemini: ['metadata', 'model changes', 'labels', 'system messages', 'unanswered calls'],
  cline: ['metadata', 'model changes', 'labels', 'system messages', 'unanswered calls'],
  pi: ['metadata', 'system messages', 'images by URL'],
  codex: ['metadata', 'model changes', 'labels'],
  qwen: ['metadata', 'model changes', 'labels', 'system messages', 'unanswered calls'],
  continue: ['metadata', 'model changes', 'labels', 'system messages', 'unanswered calls'],
  opencode: ['metadata', 'model changes', 'labels', 'system messages'],
  kilo: ['metadata', 'model changes', 'labels', 'system messages'],
  claude: ['metadata', 'model changes', 'labels', 'system messages'],
  copilot: ['metadata', 'model changes', 'labels', 'system messages', 'images by URL', 'unanswered calls'],
};

describe('a conversion says each loss once', () => {
  for (const [target, said] of Object.entries(SAID)) {
    // a Claude Code session, into Claude Code a pi one
    const source = target === 'claude' ? 'pi' : 'claude';
    it(`${source} → ${target}: ${said.join(', ')}`, async () => {
      if (target === 'opencode') {
        // OpenCode writes into the database OpenCode made
        await fs.mkdir(join(root, '.local', 'share', 'opencode'), { recursive: true });
        await fs.copyFile('test/fixtures/opencode/opencode.db', join(root, '.local', 'share', 'opencode', 'opencode.db'));
      }
      if (target === 'kilo') {
        // and Kilo CLI into the one Kilo made
        await fs.mkdir(join(root, '.local', 'share', 'kilo'), { recursive: true });
        await fs.copyFile('test/fixtures/kilo/real-7.7.7/kilo.db', join(root, '.local', 'share', 'kilo', 'kilo.db'));
      }
      const written = await convertSession(lossy(join(root, 'project'), source), { to: target, env });
      const warnings = (written.meta?.warnings as string[] | undefined) ?? [];
      for (const [loss, words] of Object.entries(LOSSES)) {
        const saying = warnings.filter((w) => words.test(w));
        expect(saying.length, `${loss}:\n${warnings.join('\n')}`).toBe(said.includes(loss) ? 1 : 0);
      }
      // every line, the encoder's too, names the session and the target the same way, and once
      for (const w of warnings) {
        expect(w.startsWith(`${source}:x → ${target}: `), w).toBe(true);
        expect(w.slice(`${source}:x → ${target}: `.length), w).not.toContain(`${source}:x`);
      }
    });
  }
});
