/**
 * A chat the real Gemini CLI 0.61 resumed (test/fixtures/gemini/real-0.61.0-resumed: `gemini --yolo -p 'RUN: cat
 * notes.txt'`, then `--resume <id> -p 'RUN: cat /nonexistent-file'` and `--resume <id> -p 'plain third turn'` on the
 * Gemini stand-in; the chat as the third launch loaded it: its lines before those it appended). On resume Gemini CLI rewrites the history as `$set.messages`, where a `gemini` record holds its
 * thought and its functionCall in `content` as well as in `thoughts` and `toolCalls`; its replay
 * (convertSessionToClientHistory) then sends `content` alone. sent-third-turn.json is the `contents` it sent for the
 * third turn. threadbase reads each thought and call once (it read them twice: two calls of one id, one answered).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { contextToGeminiContents, GeminiDriver, geminiContext } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';

const REAL = resolve('test/fixtures/gemini/real-0.61.0-resumed');
const ID = 'c7c5248b-019a-40e0-beb3-c42b14ada5cd';

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-resumed-'));
  await fs.cp(join(REAL, '.gemini'), join(root, '.gemini'), { recursive: true });
  env = { home: root, env: { GEMINI_CLI_HOME: root } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it('reads each thought and call of a record Gemini CLI rewrote on resume once', async () => {
  const session = (await new GeminiDriver(env).getSession(ID)) as Session;
  const assistant = session.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));
  const calls = assistant.flatMap((m) => m.parts.filter((p) => p.type === 'tool_call'));
  expect(calls.map((c) => (c.type === 'tool_call' ? c.input : null))).toEqual([
    { command: 'cat notes.txt' },
    { command: 'cat /nonexistent-file' },
  ]);
  // toolCalls' own fields go on the call read from content
  expect(calls.map((c) => c.meta?.status)).toEqual(['success', 'success']);
  expect(assistant.map((m) => m.parts.filter((p) => p.type === 'thinking').length)).toEqual([1, 0, 1, 0]);
});

it('has as context what Gemini CLI sent before the third prompt (its fresh session context aside)', async () => {
  const session = (await new GeminiDriver(env).getSession(ID)) as Session;
  const sent = JSON.parse(await fs.readFile(join(REAL, 'sent-third-turn.json'), 'utf8')) as { parts: unknown[] }[];
  const ours = contextToGeminiContents(geminiContext(session));
  // Gemini CLI puts a fresh <session_context> text first (threadbase leaves the recorded one out), the prompt last
  sent[0]?.parts.shift();
  expect(sent.pop()).toEqual({ role: 'user', parts: [{ text: 'plain third turn' }] });
  expect(ours).toEqual(sent);
});
