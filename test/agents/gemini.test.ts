/**
 * Sessions written into Gemini CLI, resumed by the real `gemini` (0.61.0, on the loopback Gemini API
 * stand-in):
 * - Claude Code sessions (signed thinking and tool calls; a sub-agent call and a compaction), a pi
 *   session (a tool call) and a codex session (developer instructions, reasoning, shell calls) are converted with `threadbase convert <id> --to gemini`;
 * - `gemini --resume <id> -p <probe>` in the project resumes each: the `contents` it sends before the
 *   probe equal what threadbase's Gemini context says it sends (contextToGeminiContents(geminiContext)),
 *   and hold every turn, tool call and result of the source's own context;
 * - the chat Gemini CLI appended to is converted back into Claude Code: the probe and its answer are
 *   there; and Gemini CLI resumes it again with them (a compaction written as `$set.messages` included).
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { NO_RESULT } from '../../src/formats/gemini/encode.js';
import { contextToGeminiContents } from '../../src/formats/gemini/index.js';
import { withRegistryLock } from '../../src/formats/gemini/registry-lock.js';
import { Sources } from '../../src/formats/registry.js';
import type { Context } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import {
  type ConvertedSession,
  contextItems,
  convertInto,
  copySourceFixtures,
  expectInOrder,
  SOURCE_SESSIONS,
} from '../helpers/agent-fixtures.js';
import { readContext, readSession } from '../helpers/conversions.js';
import { type GeminiHome, resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';
import { chainSession, messageEntry, ONE_PIXEL_PNG, textEntry, textMessage } from '../helpers/sessions.js';

let home: GeminiHome;
beforeAll(async () => {
  home = await setupGeminiHome();
  await copySourceFixtures(home);
  // The tests run concurrently: Gemini CLI's session cleanup at start (general.sessionRetention, 30 days by
  // default) would delete another test's chat, written with an older date, before that one resumes it.
  const settingsFile = join(home.root, '.gemini', 'settings.json');
  const settings = JSON.parse(await fs.readFile(settingsFile, 'utf8')) as { general: Record<string, unknown> };
  settings.general.sessionRetention = { enabled: false };
  await fs.writeFile(settingsFile, JSON.stringify(settings));
});
afterAll(async () => {
  await home?.close();
});

type Written = ConvertedSession;

let queue: Promise<unknown> = Promise.resolve();
/**
 * Runs fn after every other fn given here has finished: the tests run concurrently, but the in-process
 * CLI captures process.stdout while it runs, so conversions, writes and reads go one at a time; only the
 * Gemini CLI launches overlap.
 */
function serially<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn);
  queue = run.catch(() => undefined);
  return run;
}

const convert = (id: string, from: string, to: string): Promise<Written> => serially(() => convertInto(home, id, from, to));
const contextOf = (source: string, id: string): Promise<Context> => serially(() => readContext(home, source, id));
const sessionOf = (source: string, id: string): Promise<Session> => serially(() => readSession(home, source, id));

/** Writes a session into Gemini CLI through the driver; what the driver says it wrote. */
const writeGemini = (session: Session) =>
  serially(async () => {
    const sources = new Sources(home.env);
    try {
      return await sources.driver('gemini').writeSession?.(session);
    } finally {
      await sources.close();
    }
  });

/**
 * Every text, tool call (id, name, input) and tool result (id, text) of a context, in order; system
 * messages (codex's developer instructions) are kept as info records Gemini CLI does not send (losses.ts).
 */
const sentItems = (ctx: Context): string[] => contextItems(ctx, { assistantRole: 'model' });

/** The same of Gemini contents as the stand-in got them. */
function contentItems(contents: { role?: string; parts: Record<string, unknown>[] }[]): string[] {
  return contents.flatMap((c) =>
    c.parts.flatMap((p) => {
      if (typeof p.text === 'string' && p.text.trim() && !p.thought) return [`${c.role}:${p.text.trim()}`];
      const fc = p.functionCall as { id: string; name: string; args: unknown } | undefined;
      if (fc) return [`call:${fc.id}:${fc.name}:${JSON.stringify(fc.args)}`];
      const fr = p.functionResponse as { id: string; response: { output?: string; error?: string } } | undefined;
      if (fr) return [`result:${fr.id}:${fr.response.output ?? fr.response.error ?? JSON.stringify(fr.response)}`];
      return [];
    }),
  );
}

// Every test resumes its own chat with its own probe (the requests are told apart by it), and Gemini CLI
// takes a lock on projects.json to register a project: the tests run concurrently, in the one home.
describe.concurrent.each(SOURCE_SESSIONS)('a $from session converted into Gemini CLI ($probe)', ({ from, id, probe, calls }) => {
  /** The conversion and the first resume, once: the second test goes on from the chat Gemini CLI appended to. */
  let firstResume: Promise<{ written: Written; expected: ReturnType<typeof contextToGeminiContents> }> | undefined;
  const resumedOnce = () =>
    (firstResume ??= (async () => {
      const written = await convert(id, from, 'gemini');
      const expected = contextToGeminiContents(await contextOf('gemini', written.id));
      await runGemini(home, ['--resume', written.id, '-p', probe]);
      return { written, expected };
    })());

  it('is resumed by the real gemini with the context threadbase says it sends', async () => {
    const { written, expected } = await resumedOnce();
    expect(written.source).toBe('gemini');
    expect(written.path.startsWith(join(home.root, '.gemini', 'tmp'))).toBe(true);
    const sent = resumedContents(home, probe);
    expect(sent).toEqual(expected);

    // every turn, tool call and result the source agent sends is there, in order (the same result may come twice)
    const source = sentItems(await contextOf(from, id));
    const got = contentItems(sent);
    expectInOrder(got, source);
    expect(source.some((s) => s.startsWith('call:'))).toBe(calls);
  }, 180_000);

  it("goes back into Claude Code with Gemini CLI's new turn, and is resumed again", async () => {
    const { written } = await resumedOnce();
    const appended = await sessionOf('gemini', written.id);
    const back = await convert(appended.id, 'gemini', 'claude');
    const texts = (await contextOf('claude', back.id)).messages.map((m) =>
      m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
    );
    expect(texts.slice(-2)).toEqual([probe, `ok: ${probe}`]);
    // and Gemini CLI resumes its appended chat again with that turn in it
    await runGemini(home, ['--resume', written.id, '-p', `${probe} again`]);
    const again = contentItems(resumedContents(home, `${probe} again`));
    expect(again.slice(-2)).toEqual([`user:${probe}`, `model:ok: ${probe}`]);
  }, 180_000);
});

describe.concurrent('a session with a search the provider ran and a call left without a result', () => {
  it('is resumed by the real gemini: the search as its note, the call answered by the error result written for it', async () => {
    const session = chainSession('mid-turn', 'codex', home.project, [
      ['u', textMessage('user', 'look it up')],
      [
        'a',
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'ws_1',
              name: 'web_search',
              input: { type: 'search', query: 'x' },
              meta: { providerExecuted: true },
            },
            { type: 'tool_call', id: 'call_2', name: 'run_shell_command', input: { command: 'ls' } },
          ],
        },
      ],
    ]);
    const info = await writeGemini(session);
    const expected = contextToGeminiContents(await contextOf('gemini', info?.id as string));
    expect(JSON.stringify(expected)).toContain(NO_RESULT);
    await runGemini(home, ['--resume', info?.id as string, '-p', 'probe mid-turn']);
    expect(resumedContents(home, 'probe mid-turn')).toEqual(expected);
  }, 120_000);
});

describe.concurrent('a session with a call the user refused', () => {
  it('is written as Gemini CLI records a declined call (status cancelled) and resumed by the real gemini with its refusal sent', async () => {
    const refusal = "The user doesn't want to proceed with this tool use. The tool use was rejected.";
    const session = chainSession('refused', 'claude', home.project, [
      ['u', textMessage('user', 'delete the file')],
      [
        'a',
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_r', name: 'run_shell_command', input: { command: 'rm x' } }],
        },
      ],
      [
        'r',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'call_r', content: refusal, isError: true, meta: { refused: true } }],
        },
      ],
      ['b', textMessage('assistant', 'I left it alone.')],
    ]);
    const info = await writeGemini(session);
    const chat = await fs.readFile(info?.path as string, 'utf8');
    expect(chat).toContain('"status":"cancelled"');
    const expected = contextToGeminiContents(await contextOf('gemini', info?.id as string));
    await runGemini(home, ['--resume', info?.id as string, '-p', 'probe refused']);
    const sent = resumedContents(home, 'probe refused');
    expect(sent).toEqual(expected);
    expect(contentItems(sent)).toContain(`result:call_r:${refusal}`);
    // the chat Gemini CLI appended to still reads the call as refused
    const back = await sessionOf('gemini', info?.id as string);
    const result = back.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_result' && p.callId === 'call_r');
    expect(result).toMatchObject({ isError: true, meta: { refused: true } });
  }, 120_000);
});

describe.concurrent('a session with images, an errored call and a result with an image', () => {
  it('is resumed by the real gemini with the contents threadbase says it sends', async () => {
    const t = '2026-01-02T00:00:00.000Z';
    const png = { type: 'image' as const, mediaType: 'image/png', data: ONE_PIXEL_PNG };
    const session: Session = {
      id: 'images',
      source: 'pi',
      project: home.project,
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries: [
        messageEntry('u', null, t, {
          role: 'user',
          // a plain-text document: sent as its text, kept as a document in the record's threadbase field
          parts: [
            { type: 'text', text: 'what is this?' },
            png,
            { type: 'file', mediaType: 'text/plain', text: 'notes: one pixel', name: 'notes.txt' },
          ],
        }),
        messageEntry('a', 'u', t, {
          role: 'assistant',
          parts: [
            { type: 'thinking', thinking: 'Look closer.', signature: 'sig' },
            { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a.png' } },
            { type: 'tool_call', id: 'c2', name: 'read_file', input: { path: 'missing.png' } },
          ],
        }),
        messageEntry('r', 'a', t, {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              callId: 'c1',
              // a plain-text document too: sent in the output, as Gemini CLI joins a tool's texts
              content: [{ type: 'text', text: 'the image:' }, png, { type: 'file', mediaType: 'text/plain', text: 'its notes' }],
            },
            { type: 'tool_result', callId: 'c2', content: 'no such file', isError: true },
          ],
        }),
        messageEntry('b', 'r', t, { role: 'assistant', parts: [{ type: 'text', text: 'A pixel.' }] }),
      ],
      leafId: 'b',
    };
    const info = await writeGemini(session);
    const expected = contextToGeminiContents(await contextOf('gemini', info?.id as string));
    await runGemini(home, ['--resume', info?.id as string, '-p', 'probe images']);
    expect(resumedContents(home, 'probe images')).toEqual(expected);
    expect(JSON.stringify(expected)).toContain('"error":"no such file"');
    expect(JSON.stringify(expected).split(ONE_PIXEL_PNG).length).toBe(4);
    expect(expected[0]?.parts).toContainEqual({ text: 'notes: one pixel' });
    expect(JSON.stringify(expected)).toContain('"output":"the image:\\nits notes"');
  }, 120_000);
});

describe.concurrent("Gemini CLI's lock on projects.json", () => {
  it('the real gemini waits while threadbase holds it, then registers its project beside ours and resumes our chat', async () => {
    // a home of its own: Gemini CLI writes its empty registry just before it takes the lock, which says it got there
    const own = await setupGeminiHome();
    try {
      const registry = join(own.root, '.gemini', 'projects.json');
      const registered = async () =>
        (JSON.parse(await fs.readFile(registry, 'utf8')) as { projects: Record<string, string> }).projects;
      const theirs = join(own.root, 'proj-lock-theirs');
      const ours = join(own.root, 'proj-lock-ours');
      await fs.mkdir(theirs);
      await fs.mkdir(ours);
      let run: Promise<string> | undefined;
      await withRegistryLock(registry, async () => {
        run = runGemini(own, ['-p', 'probe while locked'], theirs);
        while (!(await fs.stat(registry).catch(() => undefined))) await sleep(100);
        // time enough to register its project and send the prompt, had it not waited for the lock
        await sleep(3000);
        expect(await registered()).toEqual({});
        expect(own.standIn.chatRequests()).toEqual([]);
      });
      await run;
      // it went on once the lock was released: its new chat sent the prompt
      expect(resumedContents(own, 'probe while locked')).toEqual([]);
      expect(await registered()).toEqual({ [theirs]: 'proj-lock-theirs' });

      const sources = new Sources(own.env);
      const info = await sources.driver('gemini').writeSession?.(
        chainSession('locked', 'pi', ours, [
          ['u', textMessage('user', 'written under the lock')],
          ['a', textMessage('assistant', 'noted', { model: 'gemini-2.5-pro' })],
        ]),
      );
      await sources.close();
      expect(await registered()).toEqual({ [theirs]: 'proj-lock-theirs', [ours]: 'proj-lock-ours' });
      await runGemini(own, ['--resume', info?.id as string, '-p', 'probe after lock'], ours);
      expect(contentItems(resumedContents(own, 'probe after lock'))).toEqual(['user:written under the lock', 'model:noted']);
    } finally {
      await own.close();
    }
  }, 180_000);
});

describe.concurrent('a session with sub-agent work (side chains) converted into Gemini CLI', () => {
  it('its sub-agent chats sit beside the main chat, and the real gemini resumes the main chat as threadbase says', async () => {
    const task = { type: 'tool_call' as const, id: 'task1', name: 'Task', input: { prompt: 'count the files' } };
    const side = (e: Entry): Entry => ({ ...e, sidechain: true });
    const entries: Entry[] = [
      textEntry('u', null, 1, 'user', 'how many files?'),
      messageEntry('a', 'u', 2, { role: 'assistant', model: 'gemini-2.5-pro', parts: [task] }),
      side(messageEntry('s1', null, 3, textMessage('user', 'count the files', { meta: { parent_tool_use_id: 'task1' } }))),
      side(
        messageEntry(
          's2',
          's1',
          4,
          textMessage('assistant', 'there are 3', { model: 'gemini-2.5-flash', meta: { parent_tool_use_id: 'task1' } }),
        ),
      ),
      messageEntry('r', 'a', 5, { role: 'tool', parts: [{ type: 'tool_result', callId: 'task1', content: 'there are 3' }] }),
      messageEntry('b', 'r', 6, textMessage('assistant', 'Three files.', { model: 'gemini-2.5-pro' })),
    ];
    const t = entries[0]?.timestamp as string;
    const session: Session = {
      id: 'sdk-sub',
      source: 'threadbase',
      project: home.project,
      createdAt: t,
      updatedAt: t,
      messageCount: 4,
      entries,
      leafId: 'b',
    };
    const { written, subs } = await serially(async () => {
      const written = await convertSession(session, { to: 'gemini', env: home.env });
      const sources = new Sources(home.env);
      const subs = await sources.driver('gemini').listSessions({ parentId: written.id });
      await sources.close();
      return { written, subs };
    });
    expect(subs.map((s) => [s.path, s.parentToolCallId])).toEqual([
      [join(dirname(written.path as string), written.id, `${subs[0]?.id}.jsonl`), 'task1'],
    ]);
    const expected = contextToGeminiContents(await contextOf('gemini', written.id));
    await runGemini(home, ['--resume', written.id, '-p', 'probe sub-agents']);
    const sent = resumedContents(home, 'probe sub-agents');
    expect(sent).toEqual(expected);
    expect(contentItems(sent)).toEqual([
      'user:how many files?',
      'call:task1:Task:{"prompt":"count the files"}',
      'result:task1:there are 3',
      'result:task1:there are 3',
      'model:Three files.',
    ]);
    // Gemini CLI appended to the main chat and left the sub-agent's alone
    expect((await sessionOf('gemini', subs[0]?.id as string)).messageCount).toBe(2);
  }, 120_000);
});
