/**
 * A Cline CLI run that ended with calls left without a result (killed while a tool ran; the real cline in
 * test/agents/cline-killed.test.ts): read with Cline's interrupted result, marked cancelled, where Cline
 * puts it on resume, once the run has ended by its manifest's status or its process (Cline's own rule);
 * a live run's call stays open. The context is the same either way (Cline adds the result when it sends),
 * and written back into Cline the result keeps Cline's words.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { resumeContextOf } from '../../src/model/resume.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { toolResultsOf } from '../helpers/sessions.js';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

/** A pid no process has (above Linux's largest pid_max). */
const GONE = 2 ** 30;
const ID = '1795700000000_abcde';
const INTERRUPTED = (name: string) => [
  { type: 'text', text: `Tool execution was interrupted before a result was produced. Tool: ${name}.` },
];

/** A CLI session: two calls in one turn, the first answered, and `more` after (a later turn, or nothing). */
async function cliSession(manifest: { status: string; pid: number }, more: unknown[] = []): Promise<ClineDriver> {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-interrupted-'));
  homes.push(home);
  const data = join(home, 'data');
  const dir = join(data, 'sessions', ID);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    join(dir, `${ID}.json`),
    JSON.stringify({ version: 1, session_id: ID, source: 'cli', started_at: '2026-11-26T10:00:00.000Z', cwd: '/p', ...manifest }),
  );
  const messages = [
    { id: 'u1', role: 'user', content: [{ type: 'text', text: '<user_input mode="act">go</user_input>' }], ts: 1795700000100 },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'read_files', input: { path: 'a' } },
        { type: 'tool_use', id: 'toolu_2', name: 'run_commands', input: { commands: ['sleep 60'] } },
      ],
      ts: 1795700000200,
      modelInfo: { id: 'claude-sonnet-4-5', provider: 'anthropic' },
    },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' }], ts: 1795700000300 },
    ...more,
  ];
  await fs.writeFile(join(dir, `${ID}.messages.json`), JSON.stringify({ version: 1, sessionId: ID, messages }));
  return new ClineDriver({ home, env: { CLINE_DATA_DIR: data } });
}

const results = (s: Session | undefined) =>
  toolResultsOf(s).map((r) => [r.callId, r.content, r.isError ?? false, r.meta?.cancelled ?? false]);

const anthropicContext = (s: Session | undefined) => {
  const build = resumeContextOf('cline');
  if (!build || !s) throw new Error('no context');
  return build(s).messages;
};

describe('a Cline run that ended with a call open', () => {
  it('killed (running, its process gone): the call reads with Cline’s interrupted result, after the turn’s results', async () => {
    const driver = await cliSession({ status: 'running', pid: GONE });
    const s = await driver.getSession(ID);
    expect(results(s)).toEqual([
      ['toolu_1', 'A', false, false],
      ['toolu_2', INTERRUPTED('run_commands'), true, true],
    ]);
    // in the results' message, as Cline adds it
    expect(s?.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'r1']);
  });

  it('ended by its status: the same; with a later turn, in a message of its own before it', async () => {
    const later = [
      {
        id: 'a2',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_3', name: 'read_files', input: {} }],
        ts: 1795700000400,
      },
      {
        id: 'u2',
        role: 'user',
        content: [{ type: 'text', text: '<user_input mode="act">next</user_input>' }],
        ts: 1795700000500,
      },
    ];
    const s = await (await cliSession({ status: 'completed', pid: 0 }, later)).getSession(ID);
    expect(results(s).map((r) => r[0])).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(s?.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['u1', null],
      ['a1', 'u1'],
      ['r1', 'a1'],
      ['a2', 'r1'],
      ['a2:interrupted', 'a2'],
      ['u2', 'a2:interrupted'],
    ]);
    expect(s?.leafId).toBe('u2');
  });

  it('live (running, its process there): the call stays open; the context is the same as the ended run’s', async () => {
    const live = await (await cliSession({ status: 'running', pid: process.pid })).getSession(ID);
    expect(results(live).map((r) => r[0])).toEqual(['toolu_1']);
    const dead = await (await cliSession({ status: 'running', pid: GONE })).getSession(ID);
    expect(anthropicContext(dead)).toEqual(anthropicContext(live));
    const sent = anthropicContext(dead).at(-1)?.parts.at(-1) as ToolResultPart;
    expect(sent).toMatchObject({ callId: 'toolu_2', content: JSON.stringify(INTERRUPTED('run_commands')), isError: true });
  });

  it('written back into Cline, the result keeps Cline’s words (not its words for a call not run)', async () => {
    const driver = await cliSession({ status: 'running', pid: GONE });
    const s = await driver.getSession(ID);
    const copy = await driver.writeSession(s as Session);
    const file = JSON.parse(await fs.readFile(copy.path as string, 'utf8')) as {
      messages: { content: { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[] }[];
    };
    const written = file.messages.flatMap((m) => m.content).find((b) => b.tool_use_id === 'toolu_2');
    expect(written).toMatchObject({ content: INTERRUPTED('run_commands'), is_error: true });
    expect(results(await driver.getSession(copy.id))).toEqual(results(s));
  });
});
