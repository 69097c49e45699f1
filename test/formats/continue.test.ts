/**
 * Continue CLI sessions read from a real session (test/fixtures/continue/real-1.5.47, made by cn
 * 1.5.47 offline against the Anthropic stand-in: a Bash call, a failed one, two more turns) and from
 * damaged copies of it; a session Continue compacted (its summary item, built from its source); and
 * what threadbase writes read back whole.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver, continueContext } from '../../src/formats/continue/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { Context } from '../../src/model/tree.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const REAL = '7b09ce44-8f9e-4247-a51c-208af9b03dd2';
const FIXTURE = resolve('test/fixtures/continue/real-1.5.47/.continue');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-continue-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const roles = (ms: Message[]) => ms.map((m) => m.role);

/** A copy of the fixture's folder, its session file replaced by `text` when given. */
async function globalDir(name: string, text?: (real: string) => string): Promise<ContinueDriver> {
  const root = join(dir, name);
  await cp(FIXTURE, root, { recursive: true });
  const file = join(root, 'sessions', `${REAL}.json`);
  if (text) await writeFile(file, text(await readFile(file, 'utf8')));
  return new ContinueDriver({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: root } });
}

/** Texts, calls and results of a context or of Anthropic messages, in order. */
function items(ctx: Context): string[] {
  return ctx.messages.flatMap((m) =>
    m.parts.flatMap((p) => {
      const who = m.role === 'assistant' ? 'assistant' : 'user';
      if (p.type === 'text') return [`${who}:${p.text}`];
      if (p.type === 'tool_call') return [`call:${p.id}:${p.name}:${JSON.stringify(p.input)}`];
      if (p.type === 'tool_result') return [`result:${p.callId}:${typeof p.content === 'string' ? p.content : ''}`];
      return [];
    }),
  );
}

type Block = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
function requestItems(messages: { role: string; content: string | Block[] }[]): string[] {
  return messages.flatMap((m) =>
    (typeof m.content === 'string' ? [{ type: 'text', text: m.content } as Block] : m.content).flatMap((b) => {
      if (b.type === 'text') return [`${m.role}:${b.text}`];
      if (b.type === 'tool_use') return [`call:${b.id}:${b.name}:${JSON.stringify(b.input)}`];
      if (b.type === 'tool_result') return [`result:${b.tool_use_id}:${typeof b.content === 'string' ? b.content : ''}`];
      return [];
    }),
  );
}

describe('Continue CLI: a real session (1.5.47)', () => {
  let session: Session;
  beforeAll(async () => {
    session = (await (await globalDir('real')).getSession(REAL)) as Session;
  });

  it('lists it with its project, title, creation time and counts, found through CONTINUE_GLOBAL_DIR', async () => {
    const root = join(dir, 'real');
    const { sessions } = await new Sources({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: root } }).list({
      source: 'continue',
    });
    expect(sessions.map((s) => [s.id, s.source, s.project, s.title, s.messageCount])).toEqual([
      // "Untitled Session" is Continue's placeholder: the first prompt stands for it
      [REAL, 'continue', '/tmp/cn/proj', 'RUN: cat notes.txt', 12],
    ]);
    // sessions.json's dateCreated (the file keeps no times)
    expect(sessions[0]?.createdAt).toBe(new Date(1795675747995).toISOString());
    expect(session.warnings).toEqual([]);
  });

  it('reads each call with its result (a failed one as an error) and the answers, resumed turns included', () => {
    const ctx = buildContext(session);
    expect(roles(ctx.messages)).toEqual([
      'user', 'assistant', 'tool', 'assistant',
      'user', 'assistant', 'tool', 'assistant',
      'user', 'assistant', 'user', 'assistant',
    ]); // biome-ignore format: one turn a line
    expect(ctx.messages[1]?.parts).toEqual([
      {
        type: 'tool_call',
        id: 'toolu_standin_0005',
        name: 'Bash',
        input: { command: 'cat notes.txt', description: 'run command' },
      },
    ]);
    expect(ctx.messages[2]?.parts).toEqual([
      { type: 'tool_result', callId: 'toolu_standin_0005', name: 'Bash', content: 'hello\n' },
    ]);
    const failed = ctx.messages[6]?.parts[0];
    expect(failed?.type === 'tool_result' && failed.isError).toBe(true);
    expect(ctx.messages[1]?.model).toBe('claude-standin');
    expect(ctx.messages[1]?.usage).toEqual({ input: 28, output: 32, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(session.usage?.output).toBeGreaterThan(0);
  });

  it('builds the context cn sent for its last prompt (the stand-in recorded it)', async () => {
    const sent = JSON.parse(await readFile(resolve('test/fixtures/continue/real-1.5.47/last-request.json'), 'utf8')) as {
      messages: { role: string; content: string | Block[] }[];
    };
    const lastPrompt = session.entries.findLast((e) => e.kind === 'message' && e.message.role === 'user');
    const ctx = continueContext(session, { leafId: lastPrompt?.id as string });
    expect(items(ctx)).toEqual(requestItems(sent.messages));
  });
});

describe('Continue CLI: damaged sessions', () => {
  it('reads the items before a tear and names the file and the line where it is', async () => {
    const driver = await globalDir('torn', (real) => real.slice(0, real.indexOf('"what did you find?"') + 10));
    const s = (await driver.getSession(REAL)) as Session;
    expect(roles(buildContext(s).messages)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(s.project).toBe('/tmp/cn/proj');
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings?.[0]?.file).toBe(join(dir, 'torn', 'sessions', `${REAL}.json`));
    expect(s.warnings?.[0]?.line).toBeGreaterThan(100);
  });

  it('skips an item that is no message, naming its line, and reads the rest', async () => {
    const driver = await globalDir('malformed', (real) => {
      const doc = JSON.parse(real) as { history: unknown[] };
      doc.history.splice(6, 0, { message: 'not a message' });
      return JSON.stringify(doc, null, 2);
    });
    const s = (await driver.getSession(REAL)) as Session;
    expect(buildContext(s).messages).toHaveLength(12);
    expect(s.warnings?.map((w) => [w.line !== undefined && w.line > 1, w.message])).toEqual([
      [true, 'history item 7 is no Continue message (no message with a role); skipped'],
    ]);
  });
});

describe('Continue CLI: its compaction', () => {
  it('reads the summary item a compaction leaves as a compaction, sent as the assistant turn it is', async () => {
    const driver = await globalDir('compacted', () =>
      JSON.stringify({
        sessionId: REAL,
        title: 'Untitled Session',
        workspaceDirectory: '/tmp/cn/proj',
        history: [
          {
            message: { role: 'assistant', content: 'Summary: we read notes.txt.' },
            contextItems: [],
            conversationSummary: 'Summary: we read notes.txt.',
          },
          { message: { role: 'user', content: 'go on' }, contextItems: [], editorState: 'go on' },
        ],
      }),
    );
    const s = (await driver.getSession(REAL)) as Session;
    expect(s.entries.map((e) => e.kind)).toEqual(['compaction', 'message']);
    expect(items(continueContext(s))).toEqual(['assistant:Summary: we read notes.txt.', 'user:go on']);
  });
});

describe('Continue CLI: sessions threadbase writes', () => {
  it('keeps what Continue has no item for and reads the session back as it was', async () => {
    const driver = new ContinueDriver({ home: join(dir, 'writes'), env: {} });
    const session = chainSession('w', 'claude', '/tmp/proj', [
      ['u1', textMessage('user', 'look')],
      [
        'a1',
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'reading' },
            { type: 'tool_call', id: 'c1', name: 'Read', input: { path: 'a' } },
            { type: 'tool_call', id: 'c2', name: 'Read', input: { path: 'b' } },
          ],
        },
      ],
      ['r1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: 'A' }] }],
      ['u2', textMessage('user', 'thanks')],
    ]);
    const info = await driver.writeSession(session);
    const back = (await driver.getSession(info.id)) as Session;
    expect(back.entries.map(({ raw: _r, rawSource: _s, ...e }) => e)).toEqual(
      session.entries.map(({ raw: _r, rawSource: _s, ...e }) => e),
    );
    // Continue sends no thinking, and answers the call left without output with its own words
    expect(items(continueContext(back))).toEqual([
      'user:look',
      'assistant:reading',
      'call:c1:Read:{"path":"a"}',
      'call:c2:Read:{"path":"b"}',
      'result:c1:A',
      'result:c2:Tool cancelled',
      'user:thanks',
    ]);
  });

  it('writes a compaction as its summary item, the turn it kept again after it, and reads the session back as it was', async () => {
    const driver = new ContinueDriver({ home: join(dir, 'writes-compaction'), env: {} });
    const base = chainSession('wc', 'pi', '/tmp/proj', [
      ['u1', textMessage('user', 'list')],
      ['a1', { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'Bash', input: { command: 'ls' } }] }],
    ]);
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const session: Session = {
      ...base,
      entries: [
        ...base.entries,
        { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(10), summary: 'we listed', firstKeptEntryId: 'a1' },
        {
          kind: 'message',
          id: 'r1',
          parentId: 'c',
          timestamp: t(11),
          message: { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: 'a.txt' }] },
        },
        { kind: 'message', id: 'u2', parentId: 'r1', timestamp: t(12), message: textMessage('user', 'go on') },
      ],
    };
    const info = await driver.writeSession(session);
    const back = (await driver.getSession(info.id)) as Session;
    expect(back.entries.map(({ raw: _r, rawSource: _s, ...e }) => e)).toEqual(session.entries);
    expect(items(continueContext(back))).toEqual([
      'user:we listed',
      'call:c1:Bash:{"command":"ls"}',
      'result:c1:a.txt',
      'user:go on',
    ]);
    // what Continue sends: every item of the file (the summary, the kept call again with its result, the prompt)
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as { history: { message: { role: string } }[] };
    expect(doc.history.map((h) => h.message.role)).toEqual(['user', 'assistant', 'user']);
  });
});
