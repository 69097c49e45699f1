/**
 * Continue CLI sessions read from a real session (test/fixtures/continue/real-1.5.47, made by cn
 * 1.5.47 offline against the Anthropic stand-in: a Bash call, a failed one, two more turns) and from
 * damaged copies of it; a session Continue compacted (its summary item, built from its source); and
 * what threadbase writes read back whole.
 */
import { cp, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver, continueContext } from '../../src/formats/continue/index.js';
import { Sources } from '../../src/formats/registry.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { contextLines as items, type RequestMessage, requestLines as requestItems } from '../helpers/continue-items.js';
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

  it('lists it as updated when its last recorded time says, not when its file was last written or copied', async () => {
    const root = join(dir, 'real-touched');
    await cp(FIXTURE, root, { recursive: true });
    // cn rewrites the whole file at each save; a copy of it is as new as the copy
    const later = new Date('2030-01-02T03:04:05Z');
    await utimes(join(root, 'sessions', `${REAL}.json`), later, later);
    const driver = new ContinueDriver({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: root } });
    const [info] = await driver.listSessions();
    const read = (await driver.getSession(REAL)) as Session;
    const recorded = new Date(1795675747995).toISOString();
    expect([info?.createdAt, info?.updatedAt]).toEqual([recorded, recorded]);
    expect(new Set(read.entries.map((e) => e.timestamp))).toEqual(new Set([recorded]));
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
      messages: RequestMessage[];
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

/** A fixture folder's driver (read in place: reading never writes) and what cn sent when forking its sessions. */
async function realFixture(name: string): Promise<{ driver: ContinueDriver; sent: Record<string, RequestMessage[]> }> {
  const root = resolve('test/fixtures/continue', name);
  const sent = JSON.parse(await readFile(join(root, 'fork-requests.json'), 'utf8')) as Record<string, RequestMessage[]>;
  return {
    driver: new ContinueDriver({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: join(root, '.continue') } }),
    sent,
  };
}

/** What cn sent on `--fork`, less the probe it went on with. */
function sentBefore(sent: Record<string, RequestMessage[]>, id: string): string[] {
  return requestItems(sent[id] ?? []).slice(0, -1);
}

describe('Continue CLI: its own compaction (real sessions cn 1.5.47 compacted, real-1.5.47-compaction)', () => {
  const AT_TURN_START = 'f1bc79d7-d5fc-4bac-89e0-007da1c7caa8';
  const MID_TURN = '2be41ead-57d7-4041-9dd7-29887c24312c';
  const SUMMARY = '<analysis>stand-in analysis</analysis>\n<summary>\nStand-in summary of the conversation so far.\n</summary>';

  it('reads the summary item a compaction at the start of a turn leaves as a compaction, then the turn; its context is what cn sent on --fork', async () => {
    const { driver, sent } = await realFixture('real-1.5.47-compaction');
    const s = (await driver.getSession(AT_TURN_START)) as Session;
    expect(s.warnings).toEqual([]);
    expect(s.entries.map((e) => e.kind)).toEqual(['compaction', 'message', 'message']);
    expect(s.entries[0]?.kind === 'compaction' && s.entries[0].summary).toBe(SUMMARY);
    expect(s.title).toBe('after compaction');
    expect(items(continueContext(s))).toEqual([
      `assistant:${SUMMARY}`,
      'user:after compaction',
      'assistant:ok: after compaction',
    ]);
    expect(items(continueContext(s))).toEqual(sentBefore(sent, AT_TURN_START));
  });

  it('reads a compaction made mid-turn: the model’s answer to the summary alone, then cn’s own "continue" marked as Continue’s, not the title; its context is what cn sent on --fork', async () => {
    const { driver, sent } = await realFixture('real-1.5.47-compaction');
    const s = (await driver.getSession(MID_TURN)) as Session;
    expect(s.entries.map((e) => (e.kind === 'message' ? e.message.role : e.kind))).toEqual([
      'compaction',
      'assistant',
      'user',
      'assistant',
    ]);
    const auto = s.entries[2];
    expect(auto?.kind === 'message' && auto.message.meta?.continueInjected).toBe('continuation after a compaction');
    expect(s.title).toBeUndefined();
    expect(items(continueContext(s))).toEqual(sentBefore(sent, MID_TURN));
    expect(sentBefore(sent, MID_TURN)).toEqual([
      `assistant:${SUMMARY}`,
      'assistant:ok: ',
      'user:continue',
      'assistant:ok: continue',
    ]);
  });

  it('takes a user’s own "continue" as the user’s (no answer to a summary before it)', async () => {
    const driver = await globalDir('typed-continue', () =>
      JSON.stringify({
        sessionId: REAL,
        title: 'Untitled Session',
        history: [
          { message: { role: 'assistant', content: 'S' }, contextItems: [], conversationSummary: 'S' },
          { message: { role: 'user', content: 'continue' }, contextItems: [] },
          { message: { role: 'assistant', content: 'ok' }, contextItems: [] },
          { message: { role: 'user', content: 'continue' }, contextItems: [] },
        ],
      }),
    );
    const s = (await driver.getSession(REAL)) as Session;
    expect(s.entries.map((e) => (e.kind === 'message' ? (e.message.meta?.continueInjected ?? null) : e.kind))).toEqual([
      'compaction',
      null,
      null,
      null,
    ]);
    expect(s.title).toBe('continue');
  });
});

describe('Continue CLI: thinking, tool and system items', () => {
  it('a real session whose answers came with thinking: cn kept none (its thinking tokens are in the output count); its context is what cn sent on --fork', async () => {
    const { driver, sent } = await realFixture('real-1.5.47-thinking');
    const id = 'c337f930-cc2c-4039-b0b7-22e993c66754';
    const s = (await driver.getSession(id)) as Session;
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts.filter((p) => p.type === 'thinking' || p.type === 'redacted_thinking')).toEqual([]);
    const first = s.entries[1];
    expect(first?.kind === 'message' && first.message.usage?.output).toBe(38);
    expect(items(continueContext(s))).toEqual(sentBefore(sent, id));
    expect(items(continueContext(s))).toContain('result:toolu_standin_0002:');
  });

  it('items cn never writes, as the real cn sends them on --fork: a thinking item’s content as the model’s text, no system item, a tool item as its call’s result, no redacted thinking', async () => {
    const { driver, sent } = await realFixture('items-resumed-by-cn');
    const id = '11111111-2222-4333-8444-555555555555';
    const s = (await driver.getSession(id)) as Session;
    const thinking = s.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .filter((p) => p.type.includes('thinking'));
    expect(thinking.map((p) => p.type)).toEqual(['thinking', 'redacted_thinking']);
    expect(thinking[0]).toMatchObject({ thinking: 'pondering the greeting', signature: 'sig-1' });
    expect(items(continueContext(s))).toEqual(sentBefore(sent, id));
    expect(sentBefore(sent, id)).toEqual([
      'user:hello',
      'assistant:pondering the greeting',
      'assistant:hi',
      'user:list files',
      'call:call_a:Bash:{"command":"ls"}',
      'result:call_a:a.txt\nb.txt',
      'assistant:two files',
    ]);
  });

  it('calls whose item has no state for them, as the real cn sends them on --fork: no result at all (not "Tool cancelled"); written so again', async () => {
    const { driver, sent } = await realFixture('calls-without-states');
    const id = '33333333-2222-4333-8444-555555555555';
    const s = (await driver.getSession(id)) as Session;
    expect(sentBefore(sent, id)).toEqual([
      'user:list files',
      'assistant:looking',
      'call:call_x:Bash:{"command":"ls"}',
      'user:never mind, show both',
      'call:call_y:Bash:{"command":"cat a.txt"}',
      'call:call_z:Bash:{"command":"cat b.txt"}',
      'result:call_z:B',
      'assistant:only b',
      'call:call_w:Bash:{"command":"pwd"}',
    ]);
    expect(items(continueContext(s))).toEqual(sentBefore(sent, id));
    // read as calls without a result
    expect(buildContext(s).messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : [])))).toEqual(
      ['call_z'],
    );
    // written again: still no state for them, so cn still sends them no result
    const writer = new ContinueDriver({ home: join(dir, 'writes-stateless'), env: {} });
    const info = await writer.writeSession(s);
    const back = (await writer.getSession(info.id)) as Session;
    expect(items(continueContext(back))).toEqual(sentBefore(sent, id));
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as {
      history: { toolCallStates?: { toolCallId: string }[] }[];
    };
    expect(doc.history.map((h) => h.toolCallStates?.map((t) => t.toolCallId))).toEqual([
      undefined,
      undefined,
      undefined,
      ['call_z'],
      undefined,
    ]);
  });

  it('writes a thinking item read from Continue as a thinking item again: read back the same, the same context', async () => {
    const { driver: real } = await realFixture('items-resumed-by-cn');
    const source = (await real.getSession('11111111-2222-4333-8444-555555555555')) as Session;
    const driver = new ContinueDriver({ home: join(dir, 'writes-thinking'), env: {} });
    const info = await driver.writeSession(source);
    const back = (await driver.getSession(info.id)) as Session;
    const strip = (ss: Session) => ss.entries.map(({ raw: _r, rawSource: _s, ...e }) => e);
    expect(strip(back)).toEqual(strip(source));
    expect(items(continueContext(back))).toEqual(items(continueContext(source)));
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as {
      history: { message: { role: string; content: unknown } }[];
    };
    // the call without a state is written so again, its result the tool item it was
    expect(doc.history.map((h) => h.message.role)).toEqual([
      'user',
      'thinking',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(doc.history[1]?.message.content).toBe('pondering the greeting');
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
    // the summary an assistant turn, as cn sends its own
    expect(items(continueContext(back))).toEqual([
      'assistant:we listed',
      'call:c1:Bash:{"command":"ls"}',
      'result:c1:a.txt',
      'user:go on',
    ]);
    // what Continue sends: every item of the file (the summary, the kept call again with its result, the prompt)
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as { history: Record<string, unknown>[] };
    expect(doc.history.map((h) => (h.message as { role: string }).role)).toEqual(['assistant', 'assistant', 'user']);
    // the summary item as cn writes its own compaction (real-1.5.47-compaction)
    const { threadbase: _kept, ...summaryItem } = doc.history[0] as Record<string, unknown>;
    expect(summaryItem).toEqual({
      message: { role: 'assistant', content: 'we listed' },
      contextItems: [],
      conversationSummary: 'we listed',
    });
  });
});
