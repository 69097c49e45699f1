/**
 * A call the user stopped while it ran, as Claude Code 2.1.332 records it (its refusal and the
 * correction: it may have run in part; the record as test/formats/claude-refused.test.ts has it from a
 * live `sleep 20` interrupted through -p's stream-json), converted into pi: the real pi resuming the
 * copy sends the result in Claude Code's words, correction included (src/formats/claude/denials.ts
 * stoppedCallsInClaudeWords), not its "Operation aborted"; the copy converted back into Claude Code is
 * resumed by the real Claude Code sending what it sends for the original.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import '../../src/formats/all.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import { type Block, comparable, type Msg } from '../helpers/claude-requests.js';
import { STOPPED, stoppedCallTranscript } from '../helpers/claude-stopped.js';
import { readSession, resumeInTarget } from '../helpers/conversions.js';

const ID = '9c3f2e74-4d90-4d83-9c75-2f8b3f4c9e33';
const MODEL = 'claude-sonnet-4-5';

let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome();
  const dir = join(home.root, '.claude', 'projects', encodeProjectPath(home.project));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, `${ID}.jsonl`), `${stoppedCallTranscript({ id: ID, cwd: home.project, model: MODEL })}\n`);
}, 120_000);

afterAll(async () => {
  await home?.close();
});

const resultTexts = (messages: readonly Msg[]) =>
  messages.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((b) => {
          if (b.type !== 'tool_result') return [];
          const c = b.content as string | Block[];
          return [typeof c === 'string' ? c : c.map((x) => String(x.text ?? '')).join('')];
        }),
  );

describe('a call stopped while it ran, through pi and back', () => {
  it('the real pi sends Claude Code’s words with their correction; Claude Code resumes the copy back as the original', async () => {
    const pi = await convertSession(await readSession(home, 'claude', ID), { to: 'pi', env: home.env });
    // back before pi resumes it (its turn would be in the copy)
    const back = await convertSession(await readSession(home, 'pi', pi.id), { to: 'claude', env: home.env });
    const sentByPi = await resumeInTarget(home, 'pi', { id: pi.id, source: 'pi', path: pi.path ?? '' }, 'probe pi');
    expect(resultTexts(sentByPi)).toEqual([STOPPED]);
    const copy = await resumeInTarget(home, 'claude', { id: back.id, source: 'claude', path: '' }, 'probe copy', MODEL);
    const original = await resumeInTarget(home, 'claude', { id: ID, source: 'claude', path: '' }, 'probe original', MODEL);
    expect(resultTexts(original)).toEqual([STOPPED]);
    expect(comparable(copy, 'probe copy')).toEqual(comparable(original, 'probe original'));
  });
});
