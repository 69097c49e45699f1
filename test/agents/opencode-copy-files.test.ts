/**
 * A Claude Code session with a plain-text and a Markdown file and an image in its prompt, a result
 * holding a text, a plain-text file and an image, and one response whose first call's result Claude
 * Code recorded before its second call, converted with `threadbase convert --to opencode`: the real
 * opencode resumes the copy and sends each file as the "Called the Read tool" note naming it and its
 * text, the image, the result's texts as its output then its image, and the two calls as one turn,
 * as threadbase says OpenCode sends them (asOpenCodeSends); read back, the copy has the original's files,
 * and `threadbase stats` counts the split response once, as the original's.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { opencodeContext } from '../../src/formats/opencode/context.js';
import { asOpenCodeSends } from '../../src/formats/opencode/parse.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { agentHomeForFile } from '../helpers/agents.js';
import { type Block, comparable, type Msg } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { okProbeRule, readSession, resumeInTarget, withDriver } from '../helpers/conversions.js';
import { chainSession, ONE_PIXEL_PNG } from '../helpers/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const notes = { type: 'file' as const, mediaType: 'text/plain', text: 'doc body', name: 'notes.txt' };
const readme = { type: 'file' as const, mediaType: 'text/markdown', text: '# Read me', name: 'README.md' };
const listed = { type: 'file' as const, mediaType: 'text/plain', text: 'file text', name: 'a.txt' };

const messages: [string, Message][] = [
  ['u1', { role: 'user', parts: [{ type: 'text', text: 'look at these' }, png, notes, readme] }],
  [
    'a1',
    {
      role: 'assistant',
      model: MODEL,
      responseId: 'r1',
      usage,
      parts: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_call', id: 'toolu_1', name: 'Read', input: { file_path: '/p/a.txt' } },
      ],
    },
  ],
  [
    't1',
    {
      role: 'tool',
      parts: [{ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'listed' }, listed, png] }],
    },
  ],
  [
    'a1b',
    {
      role: 'assistant',
      model: MODEL,
      responseId: 'r1',
      usage,
      stopReason: 'tool_use',
      parts: [{ type: 'tool_call', id: 'toolu_2', name: 'Bash', input: { command: 'echo two' } }],
    },
  ],
  ['t2', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_2', content: 'two' }] }],
  ['a2', { role: 'assistant', model: MODEL, responseId: 'r2', usage, parts: [{ type: 'text', text: 'Done.' }] }],
];

const home = agentHomeForFile({ rules: [okProbeRule], opencodeDatabase: true, timeout: 120_000 });

describe('claude → opencode of files in a prompt and a result, and a response split around a result', () => {
  it('the real opencode sends the files, the image and the calls as threadbase says', async () => {
    const session = chainSession('files', 'claude', home.project, messages);
    const original = (await withDriver(home.env, 'claude', async (d) => d.writeSession?.(session)))?.id as string;
    const written = JSON.parse(await runCliOk(home.env, ['convert', original, '--to', 'opencode', '--json'])) as {
      id: string;
      path: string;
    };
    const copy = await readSession(home, 'opencode', written.id);
    const messagesOf = (s: Session) => pathToLeaf(s).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const read = messagesOf(copy);
    const claude = messagesOf(await readSession(home, 'claude', original));
    // read back: the prompt's files and the result's as Claude Code has them (a Markdown file as text/plain)
    const files = (m: Message | undefined) => m?.parts.filter((p) => p.type === 'file');
    expect(files(read[0])).toEqual(files(claude[0]));
    expect(files(read[0])?.map((p) => p.type === 'file' && [p.name, p.text])).toEqual([
      [notes.name, notes.text],
      [readme.name, readme.text],
    ]);
    const results = (m: Message | undefined) => m?.parts.flatMap((p) => (p.type === 'tool_result' ? [p.content] : []));
    expect(results(read[2])).toEqual([[{ type: 'text', text: 'listed' }, listed, png], 'two']);
    expect(results(read[2])).toEqual([...(results(claude[2]) ?? []), ...(results(claude[4]) ?? [])]);

    // stats counts the response split around its result once, with its original (copyKeyOf)
    const tokens = async (source: string) => {
      const rows = JSON.parse(await runCliOk(home.env, ['stats', '--by', 'source', '--source', source, '--json']));
      const { inputTokens, outputTokens, messages } = (rows as Record<string, unknown>[])[0] ?? {};
      return { inputTokens, outputTokens, messages };
    };
    expect(await tokens('opencode')).toEqual({ inputTokens: 20, outputTokens: 10, messages: 2 });
    expect(await tokens('claude')).toEqual(await tokens('opencode'));

    const sent = await resumeInTarget(
      home,
      'opencode',
      { id: written.id, source: 'opencode', path: written.path },
      'probe files',
    );
    const got = comparable(sent, 'probe files');
    const image: Block = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG } };
    expect(got[0]?.content).toEqual([
      { type: 'text', text: 'look at these' },
      image,
      { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"notes.txt"}' },
      { type: 'text', text: 'doc body' },
      { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"README.md"}' },
      { type: 'text', text: '# Read me' },
    ]);
    // one turn with both calls, the first call's result its output then its image
    expect(got[1]?.content.map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(got[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'listed\nfile text' }, image] },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'two' }] },
    ]);
    // what threadbase says OpenCode sends: its context of the copy, each message as OpenCode sends it
    const entries = copy.entries.map((e) => (e.kind === 'message' ? { ...e, message: asOpenCodeSends(e.message) } : e));
    const ours = contextToAnthropic(opencodeContext({ entries, leafId: copy.leafId })).messages as Msg[];
    expect(got).toEqual(comparable(ours));
  }, 240_000);
});
