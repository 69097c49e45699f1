/**
 * A pi session file of format version 1 (no `version` in its header, entries without id/parentId)
 * and the real pi (against the loopback stand-in):
 * - `threadbase branch` into it is refused (exit 1, naming the file and why) and the file is left as
 *   it was: pi and threadbase number a v1 file's entries along the file, so an appended branch read
 *   back as the continuation of the last turn;
 * - the way the refusal names works: `threadbase fork` writes a version 3 copy keeping the entry ids,
 *   the branch goes into it, and pi resumed on the copy sends the branch's context (the first turn,
 *   the branch's message; not the turn left behind), as threadbase's context has it;
 * - a title is not refused: appended after the last line (the leaf), it keeps the entries' ids, pi resumes
 *   the same turns and keeps the name when it rewrites the file as version 3;
 * - a fork of a version 1 file holding a compaction (`firstKeptEntryIndex`) keeps the compaction and the
 *   entry it kept: pi sends the same context from the fork as from the original it migrates itself.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PiDriver } from '../../src/formats/pi/driver.js';
import { agentHomeForFile, piResumeRequest } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { wireMessages } from '../helpers/claude-requests.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { piAssistantRecord, piUserRecord } from '../helpers/pi-records.js';

const home = agentHomeForFile({ timeout: 60_000 });
let driver: PiDriver;
beforeAll(() => {
  driver = new PiDriver(home.env);
});

const SESSION_ID = '0194f1c2-3b4d-7e5f-8a9b-0c1d2e3f4a5b';
const user = piUserRecord;
const assistant = piAssistantRecord;

const T0 = Date.parse('2025-01-02T03:04:05.000Z');

/** A version 1 file as pi wrote it: a header without `version`, records without ids (two turns, or `records`). */
async function writeVersion1(
  id = SESSION_ID,
  records: object[] = [
    user('first question', T0 + 1000),
    assistant('first answer', T0 + 2000),
    user('question left behind', T0 + 3000),
    assistant('answer left behind', T0 + 4000),
  ],
): Promise<string> {
  const lines = [{ type: 'session', id, timestamp: new Date(T0).toISOString(), cwd: home.project }, ...records];
  const file = join(driver.sessionDirFor(home.project), `2025-01-02T03-04-05-000Z_${id}.jsonl`);
  await fs.mkdir(driver.sessionDirFor(home.project), { recursive: true });
  await fs.writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/** threadbase's context of pi session `id` (`context --format anthropic`), as the API takes it. */
async function ourContext(id: string): Promise<ReturnType<typeof wireMessages>> {
  const ctx = JSON.parse(
    await runCliOk(home.env, ['context', id, '--source', 'pi', '--format', 'anthropic', '--no-index']),
  ) as AnthropicRequest;
  return wireMessages(ctx.messages);
}

/** pi resuming the session file with `probe`: the first request it sent, as the API takes it. */
async function piSends(file: string, probe: string): Promise<ReturnType<typeof wireMessages>> {
  return wireMessages((await piResumeRequest(home, file, probe)).messages);
}

/** `threadbase fork <id> --source pi`: the version 3 copy it writes. */
async function forkOf(id: string): Promise<{ id: string; path: string }> {
  return JSON.parse(await runCliOk(home.env, ['fork', id, '--source', 'pi', '--json', '--no-index']));
}

const texts = (ms: ReturnType<typeof wireMessages>) => ms.map((m) => [m.role, m.content.map((b) => b.text).join(' | ')]);

describe('a branch into a version 1 pi session', () => {
  it('is refused naming the file; forked, the branch is kept and real pi resumes it', async () => {
    const file = await writeVersion1();
    const before = await fs.readFile(file, 'utf8');
    const session = await driver.getSession(SESSION_ID);
    expect(session?.meta?.version).toBe(1);
    const firstAnswer = session?.entries[1]?.id;
    if (!firstAnswer) throw new Error('no entries read');

    const refused = await runCli(home.env, [
      'branch',
      SESSION_ID,
      '--source',
      'pi',
      '--at',
      firstAnswer,
      '--message',
      'the new branch',
      '--no-index',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(file);
    expect(refused.err).toMatch(/version 1, whose entries have no ids/);
    expect(refused.err).toContain(`threadbase fork ${SESSION_ID}`);
    expect(await fs.readFile(file, 'utf8')).toBe(before);

    // what the refusal says to do
    const fork = await forkOf(SESSION_ID);
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    const branched = JSON.parse(
      await runCliOk(home.env, [
        'branch',
        fork.id,
        '--source',
        'pi',
        '--at',
        firstAnswer,
        '--message',
        'the new branch',
        '--json',
        '--no-index',
      ]),
    ) as { leafId: string };
    const copy = await driver.getSession(fork.id);
    expect(copy?.meta?.version).toBe(3);
    expect(copy?.leafId).toBe(branched.leafId);
    expect(copy?.entries.find((e) => e.id === branched.leafId)?.parentId).toBe(firstAnswer);

    const ours = await ourContext(fork.id);
    const sent = await piSends(fork.path, 'probe');
    expect(texts(sent)).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'the new branch | probe'],
    ]);
    // pi's probe joined to the branch's message (both user turns)
    expect(sent.slice(0, 2)).toEqual(ours.slice(0, 2));
    expect(ours.at(-1)?.content).toEqual([{ type: 'text', text: 'the new branch' }]);

    // the other way it names: pi opening the file rewrites it as version 3 (new ids), which then branches
    const flat = await piSends(file, 'probe original');
    expect(texts(flat)).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'question left behind'],
      ['assistant', 'answer left behind'],
      ['user', 'probe original'],
    ]);
    const opened = await driver.getSession(SESSION_ID);
    expect(opened?.meta?.version).toBe(3);
    const answer = opened?.entries[1]?.id;
    if (!answer) throw new Error('no entries read');
    await runCliOk(home.env, [
      'branch',
      SESSION_ID,
      '--source',
      'pi',
      '--at',
      answer,
      '--message',
      'branch after pi',
      '--no-index',
    ]);
    expect(texts(await piSends(file, 'probe again'))).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'branch after pi | probe again'],
    ]);
  }, 120_000);
});

describe('a title on a version 1 pi session', () => {
  // Not refused as a branch or an append is: a session_info has no place to lose. It follows the file's last
  // line, which in a version 1 file (one line after another) is the leaf, where pi's own rename puts it, and the
  // entries before it keep their ids (numbered by their place); pi renumbers it with the rest when it opens the file.
  it('is appended; the entries keep their ids, real pi resumes the same turns and keeps the title', async () => {
    const id = '0194f1c2-3b4d-7e5f-8a9b-0c1d2e3f4a6c';
    const file = await writeVersion1(id);
    const before = await fs.readFile(file, 'utf8');
    const ids = (await driver.getSession(id))?.entries.map((e) => e.id);
    await driver.setTitle(id, 'named in version 1');
    const after = await fs.readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).trim().split('\n')).toHaveLength(1);
    const titled = await driver.getSession(id);
    expect(titled?.title).toBe('named in version 1');
    expect(titled?.entries.map((e) => e.id).slice(0, -1)).toEqual(ids);

    expect(texts(await piSends(file, 'probe titled'))).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'question left behind'],
      ['assistant', 'answer left behind'],
      ['user', 'probe titled'],
    ]);
    // pi rewrote the file as version 3 and kept the name
    const opened = await driver.getSession(id);
    expect(opened?.meta?.version).toBe(3);
    expect(opened?.title).toBe('named in version 1');
  }, 120_000);
});

describe('a fork of a version 1 pi session with a compaction (firstKeptEntryIndex)', () => {
  it('keeps the compaction and what it kept: real pi sends the summary and the kept turn, as from the original', async () => {
    const id = '0194f1c2-3b4d-7e5f-8a9b-0c1d2e3f4a7d';
    const file = await writeVersion1(id, [
      user('question compacted away', T0 + 1000),
      assistant('answer compacted away', T0 + 2000),
      user('question kept', T0 + 3000),
      assistant('answer kept', T0 + 4000),
      // v1 names the first kept entry by its index in the file, the header being 0: 'question kept'
      {
        type: 'compaction',
        timestamp: new Date(T0 + 5000).toISOString(),
        summary: 'The user asked a first question.',
        firstKeptEntryIndex: 3,
        tokensBefore: 100,
      },
      user('question after', T0 + 6000),
      assistant('answer after', T0 + 7000),
    ]);
    const session = await driver.getSession(id);
    const compaction = session?.entries.find((e) => e.kind === 'compaction');
    const kept = session?.entries[2]?.id;
    expect(compaction?.kind === 'compaction' && compaction.firstKeptEntryId).toBe(kept);

    const fork = await forkOf(id);
    const copy = await driver.getSession(fork.id);
    expect(copy?.meta?.version).toBe(3);
    expect(copy?.entries.map((e) => e.id)).toEqual(session?.entries.map((e) => e.id));
    const copied = copy?.entries.find((e) => e.kind === 'compaction');
    expect(copied?.kind === 'compaction' && copied.firstKeptEntryId).toBe(kept);
    const ours = await ourContext(fork.id);

    const fromFork = await piSends(fork.path, 'probe fork');
    // the summary and the kept question are one user turn on the wire
    const [summary, ...rest] = texts(fromFork);
    expect(summary?.[0]).toBe('user');
    expect(summary?.[1]).toContain('The user asked a first question.');
    expect(summary?.[1]).toMatch(/ \| question kept$/);
    expect(rest).toEqual([
      ['assistant', 'answer kept'],
      ['user', 'question after'],
      ['assistant', 'answer after'],
      ['user', 'probe fork'],
    ]);
    expect(fromFork.slice(0, -1)).toEqual(ours);
    // pi migrating the original itself sends the same
    expect(await piSends(file, 'probe fork')).toEqual(fromFork);
  }, 120_000);
});
