/**
 * A tool result that returned an image, in Gemini CLI's chat files. Gemini CLI 0.61
 * (convertToFunctionResponse) puts the image beside the functionResponse when the model takes no
 * multimodal function responses, and records the result twice: on the call (`toolCalls[].result`) and
 * as the user record after it. The second is a repeat, images and all: read as one result with its
 * image, not a second result and a loose image. An image-only result from another agent (Claude Code's
 * Read of a PNG) goes into Gemini with an empty output and reads back as the image alone, without an
 * empty text block (which the Messages API refuses) in front of it.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { chainSession, ONE_PIXEL_PNG as PNG, textMessage, toolResultsOf } from '../helpers/sessions.js';

const PROJECT = '/tmp/gem/proj';
const CALL = 'read_file__read_file_1795375260200_0';
const ID = '5a1e0c1d-2b1f-4c47-9a57-1a3ee00d0b7e';

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-image-results-'));
  await fs.mkdir(join(root, '.gemini', 'tmp', 'proj', 'chats'), { recursive: true });
  await fs.writeFile(join(root, '.gemini', 'projects.json'), JSON.stringify({ projects: { [PROJECT]: 'proj' } }));
  await fs.writeFile(join(root, '.gemini', 'tmp', 'proj', '.project_root'), PROJECT);
  env = { home: root, env: { GEMINI_CLI_HOME: root } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** read_file of a PNG as Gemini CLI 0.61 records it for a model without multimodal function responses. */
async function writeImageReadChat(): Promise<void> {
  const response = [
    { functionResponse: { id: CALL, name: 'read_file', response: { output: 'Binary content provided (1 item(s)).' } } },
    { inlineData: { mimeType: 'image/png', data: PNG } },
  ];
  const records = [
    {
      sessionId: ID,
      projectHash: 'x',
      startTime: '2026-11-22T19:21:00.111Z',
      lastUpdated: '2026-11-22T19:21:01.000Z',
      kind: 'main',
    },
    { id: 'u1', timestamp: '2026-11-22T19:21:00.179Z', type: 'user', content: [{ text: 'read pixel.png' }] },
    {
      id: 'g1',
      timestamp: '2026-11-22T19:21:00.259Z',
      type: 'gemini',
      content: '',
      thoughts: [],
      tokens: { input: 1002, output: 12, cached: 0, thoughts: 0, tool: 0, total: 1014 },
      model: 'gemini-2.5-flash',
      toolCalls: [
        {
          id: CALL,
          name: 'read_file',
          args: { file_path: 'pixel.png' },
          result: response,
          status: 'success',
          timestamp: '2026-11-22T19:21:00.329Z',
        },
      ],
    },
    { id: 'u2', timestamp: '2026-11-22T19:21:00.335Z', type: 'user', content: response },
    {
      id: 'g2',
      timestamp: '2026-11-22T19:21:00.355Z',
      type: 'gemini',
      content: 'A single pixel.',
      thoughts: [],
      tokens: { input: 1003, output: 4, cached: 0, thoughts: 0, tool: 0, total: 1007 },
      model: 'gemini-2.5-flash',
    },
  ];
  await fs.writeFile(
    join(root, '.gemini', 'tmp', 'proj', 'chats', 'session-2026-11-22T19-21-5a1e0c1d.jsonl'),
    `${records.map((r) => JSON.stringify(r)).join('\n')}\n`,
  );
}

describe('Gemini tool results with images', () => {
  it("reads Gemini CLI's repeated result with its image beside it as the one result it repeats", async () => {
    await writeImageReadChat();
    const driver = new GeminiDriver(env);
    const s = (await driver.getSession(ID)) as Session;
    const roles = pathToLeaf(s).flatMap((e) => (e.kind === 'message' ? [e.message.role] : []));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const results = toolResultsOf(s);
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toEqual([
      { type: 'text', text: 'Binary content provided (1 item(s)).' },
      { type: 'image', mediaType: 'image/png', data: PNG },
    ]);
    // into another agent: one result, the image in it, no image in a turn of its own
    const sent = contextToAnthropic(await driver.getContext(ID)).messages;
    const blocks = sent.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(blocks.filter((b) => b.type === 'tool_result')).toHaveLength(1);
    expect(blocks.filter((b) => b.type === 'image')).toHaveLength(0);
  });

  it('an image-only result from another agent reads back as the image alone', async () => {
    const claude = chainSession('c1', 'claude', PROJECT, [
      ['a', textMessage('user', 'read pixel.png')],
      [
        'b',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'toolu_1', name: 'Read', input: { file_path: 'pixel.png' } }],
        },
      ],
      [
        'c',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'image', mediaType: 'image/png', data: PNG }] }],
        },
      ],
      ['d', textMessage('assistant', 'A single pixel.', { model: 'claude-sonnet-4-5' })],
    ]);
    const written = await convertSession(claude, { to: 'gemini', env });
    const back = (await new GeminiDriver(env).getSession(written.id)) as Session;
    const results = toolResultsOf(back);
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toEqual([{ type: 'image', mediaType: 'image/png', data: PNG }]);
    const roles = pathToLeaf(back).flatMap((e) => (e.kind === 'message' ? [e.message.role] : []));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
