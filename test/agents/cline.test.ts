/**
 * Sessions written into Cline, resumed by the real `cline` (CLI 3.0.65, on the loopback Anthropic
 * stand-in):
 * - Claude Code sessions (signed thinking and two tool calls; a compaction and a sub-agent call), a pi
 *   session (a tool call) and a codex session (developer instructions, reasoning, shell calls) are
 *   converted with `threadbase convert <id> --to cline`;
 * - `cline --id <id>` resumes each with a typed probe: the request it sends holds every turn, tool
 *   call and result of the source's own context, in order, and the calls and their results exactly;
 * - the session Cline appended to is read back (the probe and its answer after the source's turns)
 *   and converted back into Claude Code with nothing of the source lost.
 * Also: a session the real `cline` recorded itself is read (thinking, its read_files call, result) and
 * listed, shown, searched and counted through the CLI; a session with images, an errored call and a
 * call left unanswered is resumed with them.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Context } from '../../src/model/tree.js';
import {
  anthropicRequestItems,
  type ConvertedSession,
  contextItems,
  convertInto,
  copySourceFixtures,
  expectInOrder,
  SOURCE_SESSIONS,
} from '../helpers/agent-fixtures.js';
import { type AnthropicMessage, textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, messageItems, resumeCline, resumedRequest, runCline, setupClineHome } from '../helpers/cline.js';
import { newestSession, okProbeRule, readContext, readSession, withDriver } from '../helpers/conversions.js';
import { chainSession, ONE_PIXEL_PNG, textMessage } from '../helpers/sessions.js';

let home: ClineHome;

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        const m = /READ: (\S+)/.exec(textOf(req.messages.at(-1)));
        const tool = req.tools?.find((t) => t.name === 'read_files');
        const last = req.messages.at(-1);
        const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
        if (!m || !tool || answered) return undefined;
        return { thinking: 'I should read it', toolUse: { name: tool.name, input: { path: m[1] as string } } };
      },
      // the probes answered `ok: <probe>` even where a summary in the session would have the stand-in summarize
      okProbeRule,
    ],
  });
  await copySourceFixtures(home);
});
afterAll(async () => {
  await home?.close();
});

type Written = ConvertedSession;

const convert = (id: string, from: string, to: string): Promise<Written> => convertInto(home, id, from, to);

/** Every text, tool call (id, name, input) and tool result (id, text) of a context, in order, and its signed thinking. */
const sentItems = (ctx: Context): string[] => contextItems(ctx, { signedThinking: true });

/** The same of Anthropic messages as the stand-in got them, signed thinking included. */
const requestItems = (messages: AnthropicMessage[]) => anthropicRequestItems(messages, { thinking: true });

describe.each(SOURCE_SESSIONS)('a $from session converted into Cline ($probe)', ({ from, id, probe, calls }) => {
  let written: Written;
  it('is resumed by the real cline, which sends every turn, tool call and result of the source', async () => {
    written = await convert(id, from, 'cline');
    expect(written.source).toBe('cline');
    expect(written.id).toMatch(/^\d{13}_[a-z0-9]{5}$/);
    expect(written.path).toBe(join(home.data, 'sessions', written.id, `${written.id}.messages.json`));
    await resumeCline(home, written.id, probe);
    const sent = requestItems(resumedRequest(home, probe).messages);
    const source = sentItems(await readContext(home, from, id));
    expect(source.some((s) => s.startsWith('call:'))).toBe(calls);
    // every item of the source's context is sent, in order; the calls and their results exactly so
    expectInOrder(sent, source);
    expect(sent.filter((s) => /^(call|result):/.test(s))).toEqual(source.filter((s) => /^(call|result):/.test(s)));
  }, 180_000);

  it("is read back with Cline's new turn, and goes back into Claude Code with nothing of the source lost", async () => {
    const appended = await readSession(home, 'cline', written.id);
    const texts = (await readContext(home, 'cline', written.id)).messages.map((m) =>
      m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
    );
    expect(texts.slice(-2)).toEqual([probe, `ok: ${probe}`]);
    // the source's entries come back with their own ids, before Cline's two
    const source = await readSession(home, from, id);
    const sourceIds = source.entries.filter((e) => e.kind === 'message').map((e) => e.id);
    const backIds = appended.entries.map((e) => e.id);
    for (const sid of sourceIds) expect(backIds).toContain(sid);

    const back = await convert(appended.id, 'cline', 'claude');
    const claude = await readContext(home, 'claude', back.id);
    const original = await readContext(home, from, id);
    const items = sentItems(claude);
    expect(items.slice(0, sentItems(original).length)).toEqual(sentItems(original));
    expect(items.slice(-2)).toEqual([`user:${probe}`, `assistant:ok: ${probe}`]);
    // usage and cost the source recorded are still there
    const usage = (ctx: Context) => ctx.messages.reduce((n, m) => n + (m.usage?.output ?? 0), 0);
    expect(usage(claude)).toBeGreaterThanOrEqual(usage(original));
  }, 180_000);
});

describe('a session the real cline recorded', () => {
  it('is read: its prompt, thinking, read_files call and result, usage and cost', async () => {
    await fs.writeFile(join(home.project, 'notes.txt'), 'hello from notes\n');
    await runCline(home, ['--thinking', 'low', 'READ: notes.txt']);
    const info = await newestSession(home, 'cline');
    expect(info).toMatchObject({ source: 'cline', project: home.project, title: 'READ: notes.txt' });
    expect(info.cost).toBeGreaterThan(0);
    const ctx = await readContext(home, 'cline', info.id);
    const items = sentItems(ctx);
    expect(items[0]).toBe('user:READ: notes.txt');
    expect(items).toContainEqual(expect.stringMatching(/^call:toolu_standin_\d+:read_files:\{"path":"notes.txt"\}$/));
    expect(items).toContainEqual(expect.stringMatching(/^result:toolu_standin_\d+:.*hello from notes/));
    const session = await readSession(home, 'cline', info.id);
    const thinking = session.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'thinking');
    expect(thinking).toMatchObject({ thinking: 'I should read it' });
    // the CLI over the index: listed, shown, found, counted
    const listed = JSON.parse(await runCliOk(home.env, ['sessions', '--source', 'cline', '--json'])) as { id: string }[];
    expect(listed.map((s) => s.id)).toContain(info.id);
    expect(await runCliOk(home.env, ['show', info.id])).toContain('calls read_files(notes.txt)');
    expect(await runCliOk(home.env, ['search', 'hello from notes'])).toContain(info.id);
    const stats = await runCliOk(home.env, ['stats', '--by', 'session', '--json']);
    expect(stats).toContain(info.id);
  }, 120_000);
});

describe('a session with images, an errored call, a call left unanswered and a result with an image', () => {
  it('is resumed by the real cline, which sends the images, the error and the result written for the open call', async () => {
    const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
    const session = chainSession('images', 'pi', home.project, [
      ['u', { role: 'user', parts: [{ type: 'text', text: 'what is this?' }, png] }],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          provider: 'anthropic',
          parts: [
            { type: 'thinking', thinking: 'Look closer.', signature: 'sig-1' },
            { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a.png' } },
            { type: 'tool_call', id: 'c2', name: 'read_file', input: { path: 'missing.png' } },
            { type: 'tool_call', id: 'c3', name: 'read_file', input: { path: 'never.png' } },
          ],
        },
      ],
      [
        'r',
        {
          role: 'tool',
          parts: [
            { type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'the image:' }, png] },
            { type: 'tool_result', callId: 'c2', content: 'no such file', isError: true },
          ],
        },
      ],
      ['b', textMessage('assistant', 'A pixel.')],
    ]);
    const info = await withDriver(home.env, 'cline', async (d) => d.writeSession?.(session));
    const id = info?.id as string;
    await resumeCline(home, id, 'probe images');
    const sent = resumedRequest(home, 'probe images').messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const blocks = (i: number) => sent[i]?.content as Record<string, unknown>[];
    expect(blocks(0)[1]).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG },
    });
    expect(blocks(1)[0]).toMatchObject({ type: 'thinking', thinking: 'Look closer.', signature: 'sig-1' });
    const results = blocks(2);
    expect(results.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      ['c1', false],
      ['c2', true],
      ['c3', true],
    ]);
    expect(JSON.stringify(results[0]?.content)).toContain(ONE_PIXEL_PNG);
    // the open call answered in Cline's words for a call left without a result, as it sends its own such call;
    // threadbase's context of the copy (read back without that result) sends the same
    const interrupted = JSON.stringify([
      { type: 'text', text: 'Tool execution was interrupted before a result was produced. Tool: read_file.' },
    ]);
    const c3 = (ms: AnthropicMessage[]) => ms.flatMap(messageItems).find((s) => s.startsWith('result:c3:'));
    expect(c3(sent)).toBe(`result:c3:${interrupted}`);
    const ctx = JSON.parse(await runCliOk(home.env, ['context', id, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(c3(ctx.messages)).toBe(c3(sent));
    // read back: the source's entries, not the result threadbase added for c3
    const back = await readSession(home, 'cline', id);
    const ids = back.entries.map((e) => e.id);
    expect(ids.slice(0, 4)).toEqual(['u', 'a', 'r', 'b']);
    const r = back.entries[2];
    expect(r?.kind === 'message' && r.message.parts.map((p) => (p.type === 'tool_result' ? p.callId : p.type))).toEqual([
      'c1',
      'c2',
    ]);
  }, 120_000);
});
