/**
 * Writing a session into Cline: what Cline is given to send (the messages file) and what threadbase
 * reads back of it. The real cline resuming such sessions is in test/agents/cline.test.ts.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { textEntry } from '../helpers/sessions.js';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

async function written(session: Session) {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-write-'));
  homes.push(home);
  const driver = new ClineDriver({ home, env: {} });
  const info = await driver.writeSession(session);
  const doc = JSON.parse(await fs.readFile(info.path as string, 'utf8')) as {
    messages: { id: string; content: { text?: string }[] }[];
  };
  return { info, doc, back: (await driver.getSession(info.id)) as Session };
}

describe('a compacted session written into Cline', () => {
  const entries: Entry[] = [
    textEntry('u1', null, 1, 'user', 'old question'),
    textEntry('a1', 'u1', 2, 'assistant', 'old answer'),
    textEntry('u2', 'a1', 3, 'user', 'kept question'),
    textEntry('a2', 'u2', 4, 'assistant', 'kept answer'),
    {
      kind: 'compaction',
      id: 'c1',
      parentId: 'a2',
      timestamp: '2026-01-01T00:00:05.000Z',
      summary: 'Summary of the old turns.',
      firstKeptEntryId: 'u2',
      tokensBefore: 1234,
    },
    textEntry('u3', 'c1', 6, 'user', 'new question'),
    textEntry('a3', 'u3', 7, 'assistant', 'new answer'),
  ];
  const session: Session = {
    id: 'compacted',
    source: 'pi',
    project: '/work/p',
    createdAt: '2026-01-01T00:00:01.000Z',
    updatedAt: '2026-01-01T00:00:07.000Z',
    messageCount: 6,
    entries,
  };

  it('gives Cline the summary, the kept turns and the later ones, not what the summary replaced', async () => {
    const { doc } = await written(session);
    expect(doc.messages.map((m) => m.content.map((b) => b.text).join(''))).toEqual([
      'Summary of the old turns.',
      'kept question',
      'kept answer',
      'new question',
      'new answer',
    ]);
  });

  it('reads back every entry where the source had it, the compaction whole, and the same context', async () => {
    const { back } = await written(session);
    expect(back.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'u2', 'a2', 'c1', 'u3', 'a3']);
    expect(back.entries.find((e) => e.id === 'c1')).toMatchObject({
      kind: 'compaction',
      summary: 'Summary of the old turns.',
      tokensBefore: 1234,
    });
    const text = (s: Pick<Session, 'entries'>) =>
      buildContext(s).messages.map((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''));
    expect(text(back)).toEqual(text(session));
  });
});

describe('a result whose call Cline is not given', () => {
  it('is sent as text (the API refuses a result without its call) and read back as the result', async () => {
    const entries: Entry[] = [
      textEntry('u1', null, 1, 'user', 'run it'),
      {
        kind: 'message',
        id: 'a1',
        parentId: 'u1',
        timestamp: '2026-01-01T00:00:02.000Z',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'call|1', name: 'bash', input: {} }],
        },
      },
      {
        kind: 'compaction',
        id: 'c1',
        parentId: 'a1',
        timestamp: '2026-01-01T00:00:03.000Z',
        summary: 'Ran a command.',
      },
      {
        kind: 'message',
        id: 'r1',
        parentId: 'c1',
        timestamp: '2026-01-01T00:00:04.000Z',
        message: { role: 'tool', parts: [{ type: 'tool_result', callId: 'call|1', content: 'done' }] },
      },
      textEntry('a2', 'r1', 5, 'assistant', 'It ran.'),
    ];
    const session: Session = {
      id: 'orphan',
      source: 'pi',
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:05.000Z',
      messageCount: 4,
      entries,
    };
    const { doc, back } = await written(session);
    const sent = doc.messages.flatMap((m) => m.content) as Record<string, unknown>[];
    expect(sent.some((b) => b.type === 'tool_result' || b.type === 'tool_use')).toBe(false);
    expect(sent.map((b) => b.text)).toContainEqual(expect.stringMatching(/^\[result of tool call call_1_[0-9a-f]{8}\]\ndone$/));
    const r1 = back.entries.find((e) => e.id === 'r1');
    expect(r1?.kind === 'message' && r1.message.parts).toEqual([{ type: 'tool_result', callId: 'call|1', content: 'done' }]);
  });
});

describe('what converting into Cline reports', () => {
  it('names a result without its call and a call without its result', async () => {
    const { convertSession } = await import('../../src/convert/session.js');
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-losses-'));
    homes.push(home);
    const session: Session = {
      id: 'lossy',
      source: 'pi',
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:03.000Z',
      messageCount: 3,
      entries: [
        {
          kind: 'message',
          id: 'r0',
          parentId: null,
          timestamp: '2026-01-01T00:00:01.000Z',
          message: { role: 'tool', parts: [{ type: 'tool_result', callId: 'gone', content: 'x' }] },
        },
        {
          kind: 'message',
          id: 'a1',
          parentId: 'r0',
          timestamp: '2026-01-01T00:00:02.000Z',
          message: { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'bash', input: {} }] },
        },
      ],
    };
    const info = await convertSession(session, { to: new ClineDriver({ home, env: {} }) });
    const warnings = (info.meta?.warnings ?? []) as string[];
    expect(warnings).toContainEqual(expect.stringMatching(/tool results without their call .*\(1\)/));
    expect(warnings).toContainEqual(expect.stringMatching(/tool calls without a result .*\(1\)/));
  });
});
