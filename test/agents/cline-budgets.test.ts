/**
 * Cline's budgets of a request, against the real cline 3.0.65 (one launch): a session written with
 * threadbase holds over 6 MB of text (a pasted log, long assistant texts, a long call input, long
 * results, Cline's own JSON with a text item, a string and a file item) and more images than its
 * 8 MiB image budget allows (two of 3 MiB, a third of 3 MiB in a tool result, then a small one, one of
 * an unsupported type and one as a data URL). `cline --id` resumes it: the request it sends is the session after its cuts (images
 * past the budget as its placeholder, the largest texts cut first, then the call input), and
 * `threadbase context` of the session at the probe Cline appended is that request, text and images
 * alike. (At the session's leaf before the probe the context is that request but for the probe's
 * bytes, which Cline counts in the budget too: the call input keeps that much more.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Message } from '../../src/model/types.js';
import { type AnthropicBlock, type AnthropicMessage, conversationOf, textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, resumeCline, resumedRequest, setupClineHome } from '../helpers/cline.js';
import { okProbeRule, readSession, withDriver } from '../helpers/conversions.js';
import { chainSession, ONE_PIXEL_PNG } from '../helpers/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const TEXT_BUDGET = 6_000_000;
const MEDIA_OMITTED = '[media omitted: invalid or exceeds size limit]';
const MIB = 1024 * 1024;

/** A png of `encoded` base64 characters (Cline checks the base64, not the picture). */
const bigPng = (encoded: number, fill: number) => ({
  type: 'image' as const,
  mediaType: 'image/png',
  data: Buffer.alloc((encoded / 4) * 3, fill).toString('base64'),
});
/** `n` characters of numbered lines, so a cut in the wrong place shows. */
const lines = (label: string, n: number): string => {
  let s = '';
  for (let i = 1; s.length < n; i++) s += `${label} ${i}\n`;
  return s.slice(0, n);
};

const imageA = bigPng(3 * MIB, 1);
const imageB = bigPng(3 * MIB, 2);
/** past the 8 MiB of a request after A and B */
const imageC = bigPng(3 * MIB, 3);
const smallPng = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
const bmp = { type: 'image' as const, mediaType: 'image/bmp', data: ONE_PIXEL_PNG };
const dataUrl = { type: 'image' as const, mediaType: 'image/png', data: `data:image/png;base64,${ONE_PIXEL_PNG}` };
const lsJson = [
  { query: 'ls -R', result: lines('listed', 30_000), success: true },
  { type: 'text', text: lines('note', 9_000) },
  // Cline cuts neither a string item nor a file item's path (only its content)
  lines('plain', 9_000),
  { type: 'file', path: `/proj/${'deep/'.repeat(1_800)}f.txt`, content: lines('file line', 9_000) },
];

function bigMessages(): [string, Message][] {
  return [
    [
      'u1',
      { role: 'user', parts: [{ type: 'text', text: `Why does it fail?\n${lines('log line', 5_700_000)}` }, imageA, imageB] },
    ],
    [
      'a1',
      {
        role: 'assistant',
        model: MODEL,
        stopReason: 'tool_use',
        parts: [
          { type: 'thinking', thinking: 'A long log.', signature: 'sig-1' },
          { type: 'text', text: lines('reading', 300_000) },
          {
            type: 'tool_call',
            id: 'toolu_w',
            name: 'write_to_file',
            input: { path: 'notes.md', content: lines('note', 600_000) },
          },
        ],
      },
    ],
    ['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_w', content: lines('wrote', 20_000) }] }],
    [
      'a2',
      {
        role: 'assistant',
        model: MODEL,
        stopReason: 'tool_use',
        parts: [
          // multibyte: the budget counts UTF-8 bytes, the cuts UTF-16 units
          { type: 'text', text: lines('déjà vu 🙂', 150_000) },
          { type: 'tool_call', id: 'toolu_ls', name: 'run_commands', input: { commands: ['ls -R'] } },
          { type: 'tool_call', id: 'toolu_shot', name: 'screenshot', input: {} },
        ],
      },
    ],
    [
      't2',
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_ls',
            name: 'run_commands',
            content: JSON.stringify(lsJson),
            meta: { clineContent: lsJson },
          },
          { type: 'tool_result', callId: 'toolu_shot', content: [{ type: 'text', text: 'the screen:' }, imageC] },
        ],
      },
    ],
    ['u2', { role: 'user', parts: [{ type: 'text', text: 'and these' }, smallPng, bmp, dataUrl] }],
    ['a3', { role: 'assistant', model: MODEL, stopReason: 'end_turn', parts: [{ type: 'text', text: 'Done.' }] }],
  ];
}

/** The UTF-8 bytes of every string in a value, images left out (as Cline's text budget counts them). */
function textBytes(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + textBytes(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  const o = v as Record<string, unknown>;
  if (o.type === 'image') return 0;
  if (o.type === 'tool_use') return textBytes(o.input);
  if (o.type === 'tool_result') return textBytes(o.content);
  if (o.type === 'text' || o.type === 'thinking') return textBytes(o.text ?? o.thinking);
  return Object.values(o).reduce((n: number, x) => n + textBytes(x), 0);
}
/** The text bytes of model messages (their parts' texts, thinking, call inputs and results). */
const sessionTextBytes = (messages: Message[]): number =>
  messages.reduce(
    (n, m) =>
      n +
      m.parts.reduce((k, p) => {
        if (p.type === 'text') return k + textBytes(p.text);
        if (p.type === 'thinking') return k + textBytes(p.thinking);
        if (p.type === 'tool_call') return k + textBytes(p.input);
        if (p.type === 'tool_result') return k + textBytes(p.content);
        return k;
      }, 0),
    0,
  );

/** The base64 length of each image sent, in order (in messages and in tool results). */
const imageLengths = (messages: AnthropicMessage[]): number[] =>
  messages
    .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
    .flatMap((b) => (b.type === 'tool_result' && Array.isArray(b.content) ? (b.content as AnthropicBlock[]) : [b]))
    .flatMap((b) => (b.type === 'image' ? [(b.source as { data: string }).data.length] : []));
const blockAt = (messages: AnthropicMessage[], m: number, b: number): AnthropicBlock | undefined => {
  const content = messages[m]?.content;
  return Array.isArray(content) ? content[b] : undefined;
};

let home: ClineHome;
beforeAll(async () => {
  home = await setupClineHome({ rules: [okProbeRule] });
});
afterAll(async () => home?.close());

describe('a session past both of Cline’s budgets', () => {
  it('is sent by the real cline cut as threadbase’s context of it says, images and text', async () => {
    const messages = bigMessages();
    const info = await withDriver(home.env, 'cline', async (d) =>
      d.writeSession?.(chainSession('budgets', 'pi', home.project, messages)),
    );
    const id = info?.id as string;
    // auto compaction off: the request is the session, not a summary of it; typed once the transcript shows
    await resumeCline(home, id, 'probe budgets', home.project, ['--compaction', 'off'], 'Done.');
    const sent = resumedRequest(home, 'probe budgets').messages;

    // Cline's own JSON: its text item cut to fit like a result's text, before the call input; the string
    // item (an object of its characters once Cline copied it for the budget) and the file's path not cut
    const [, note, plain, file] = JSON.parse(String(blockAt(sent, 4, 0)?.content)) as [
      unknown,
      { text: string },
      Record<string, string>,
      { path: string; content: string },
    ];
    expect(note.text).toContain('to fit provider request budget]');
    expect([Object.values(plain).join(''), file.path]).toEqual([lsJson[2], (lsJson[3] as { path: string }).path]);
    expect(file.content).toContain('...[truncated ');

    // the cuts happened: the session's text is over 6 MB, the request's within it (give or take the keys,
    // quotes and escapes of its own tools' JSON, sent as JSON text after the cut, and what Cline does not count)
    expect(sessionTextBytes(messages.map(([, m]) => m))).toBeGreaterThan(TEXT_BUDGET + 500_000);
    const uncounted = Buffer.byteLength(JSON.stringify(plain)) + Buffer.byteLength(file.path);
    expect(textBytes(sent) - uncounted).toBeLessThanOrEqual(TEXT_BUDGET + 1_000);
    // the prompt never cut; the assistant's text cut to its 40,000 bytes, the call input after it
    const prompt = messages[0]?.[1].parts[0];
    expect(blockAt(sent, 0, 0)?.text).toBe(prompt?.type === 'text' ? prompt.text : undefined);
    const reading = String(blockAt(sent, 1, 1)?.text);
    expect(reading).toContain('to fit provider request budget]');
    expect(Buffer.byteLength(reading)).toBeLessThanOrEqual(40_000);
    expect(JSON.stringify(blockAt(sent, 1, 2)?.input)).toContain('to fit provider request budget]');
    // images: A and B kept, C past 8 MiB and the bmp as the placeholder, the small png and the data URL kept
    expect(imageLengths(sent)).toEqual([imageA.data.length, imageB.data.length, ONE_PIXEL_PNG.length, ONE_PIXEL_PNG.length]);
    expect(JSON.stringify(sent).split(MEDIA_OMITTED)).toHaveLength(3);

    // the context at the probe (the session Cline appended to, read back) is that request, the probe last
    const back = await readSession(home, 'cline', id);
    const probe = back.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'probe budgets'),
    );
    const ctx = JSON.parse(await runCliOk(home.env, ['context', id, '--leaf', String(probe?.id), '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(textOf(ctx.messages.at(-1))).toBe('probe budgets');
    expect(conversationOf(ctx.messages.slice(0, -1))).toEqual(conversationOf(sent));
  }, 90_000);
});
