/**
 * The real cline 3.0.65 compacting offline (test/fixtures/cline/compaction-3.0.65/README.md): the
 * loopback stand-in answers once with "prompt is too long", Cline compacts (overflow recovery, basic)
 * and retries. `threadbase context` at the compaction it recorded is what Cline sent then; at the
 * session's leaf it is what Cline sends when it resumes the session: every message, since Cline does
 * not apply a state it wrote in the run that compacted (its hash is of messages without
 * modelInfo.family, the file's have it). A session compacted again on resume: the state Cline keeps
 * is the latest (one file), read the same way. The compaction is in the chain: one branch.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicMessage, AnthropicRequest, Reply } from '../helpers/anthropic-standin.js';
import { textOf, turnItems } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { type ClineHome, resumeCline, resumedRequest, runCline, setupClineHome } from '../helpers/cline.js';
import { newestSession } from '../helpers/conversions.js';

let home: ClineHome;
/** the steps answered "prompt is too long" once already */
const overflowed = new Set<string>();
const lastUser = (r: AnthropicRequest) => textOf(r.messages.findLast((m) => m.role === 'user'));
const tooLongOnce = (step: string, then: Reply): Reply => {
  if (overflowed.has(step)) return then;
  overflowed.add(step);
  return { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' } };
};
const read = (path: string): Reply => ({ toolUse: { name: 'read_files', input: { path } } });

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        const last = lastUser(req);
        // once: a.txt, b.txt, too long, done
        if (last.includes('beta line')) return tooLongOnce('b', { text: 'finished reading both' });
        if (last.includes('alpha line')) return read('b.txt');
        if (last.includes('READ: a.txt and b.txt')) return read('a.txt');
        // twice: c.txt, d.txt, too long, done; resumed: e.txt, f.txt, too long, done
        if (last.includes('zeta line')) return tooLongOnce('f', { text: 'ok: read e and f' });
        if (last.includes('epsilon line')) return read('f.txt');
        if (last.includes('delta line')) return tooLongOnce('d', { text: 'read c and d' });
        if (last.includes('gamma line')) return read('d.txt');
        if (last.includes('READ: e.txt and f.txt')) return read('e.txt');
        if (last.includes('READ: c.txt and d.txt')) return read('c.txt');
        return undefined;
      },
    ],
  });
  const files = { a: 'alpha', b: 'beta', c: 'gamma', d: 'delta', e: 'epsilon', f: 'zeta' };
  for (const [f, word] of Object.entries(files)) await fs.writeFile(join(home.project, `${f}.txt`), `${word} line\n`.repeat(200));
});
afterAll(async () => {
  await home?.close();
});

const contextItems = async (id: string, leaf?: string): Promise<string[][]> => {
  const ctx = JSON.parse(
    await runCliOk(home.env, ['context', id, ...(leaf ? ['--leaf', leaf] : []), '--format', 'anthropic']),
  ) as { messages: AnthropicMessage[] };
  return ctx.messages.map(turnItems);
};

/** The first request from `from` on that Cline sent compacted (its first turn the summary). */
function firstCompacted(from: number): AnthropicRequest {
  const sent = home.standIn
    .messageRequests()
    .slice(from)
    .find((r) => textOf(r.messages[0]).includes('Earlier context was compacted'));
  if (!sent) throw new Error('cline sent no compacted request');
  return sent;
}

describe('a session the real cline compacted', () => {
  it('reads its compaction: the context at it is what Cline sent after compacting', async () => {
    await runCline(home, ['--compaction', 'basic', 'READ: a.txt and b.txt']);
    const info = await newestSession(home, 'cline');
    const files = await fs.readdir(join(home.data, 'sessions', info.id));
    expect(files).toContain(`${info.id}.compaction.json`);
    const sent = home.standIn.messageRequests().at(-1) as AnthropicRequest;
    expect(textOf(sent.messages[0])).toContain('Earlier context was compacted');
    expect(await contextItems(info.id, `${info.id}:compaction`)).toEqual(sent.messages.map(turnItems));
  }, 120_000);
});

describe('a session the real cline compacted, resumed and compacted again', () => {
  it('its context at each compaction is what Cline sent after it, at its leaf what Cline sends on resume', async () => {
    let from = home.standIn.messageRequests().length;
    await runCline(home, ['--compaction', 'basic', 'READ: c.txt and d.txt']);
    const info = await newestSession(home, 'cline');
    const compaction = `${info.id}:compaction`;
    expect(await contextItems(info.id, compaction)).toEqual(firstCompacted(from).messages.map(turnItems));
    const atLeaf = await contextItems(info.id);

    // resumed, Cline sends every message: the state is not applied
    from = home.standIn.messageRequests().length;
    await resumeCline(home, info.id, 'READ: e.txt and f.txt', home.project, ['--compaction', 'basic']);
    const resumed = resumedRequest(home, 'READ: e.txt and f.txt').messages.map(turnItems);
    expect(atLeaf).toEqual(resumed);
    expect(resumed.some((m) => m[0]?.includes('Earlier context was compacted'))).toBe(false);

    // compacted again: Cline keeps that state only, read as the session's compaction
    const state = JSON.parse(await fs.readFile(join(home.data, 'sessions', info.id, `${info.id}.compaction.json`), 'utf8')) as {
      source_message_count: number;
    };
    expect(state.source_message_count).toBe(15);
    expect(await contextItems(info.id, compaction)).toEqual(firstCompacted(from).messages.map(turnItems));
    const session = JSON.parse(await runCliOk(home.env, ['show', info.id, '--json'])) as {
      entries: { kind: string }[];
      branches: unknown[];
    };
    expect(session.entries.filter((e) => e.kind === 'compaction')).toHaveLength(1);
    // the compaction in the chain: the messages it covers are no side branch
    expect(session.branches).toHaveLength(1);
    expect(await runCliOk(home.env, ['show', info.id, '--tree'])).not.toMatch(/[├└]/);

    // resumed again: every message again
    const atLeaf2 = await contextItems(info.id);
    await resumeCline(home, info.id, 'probe three', home.project, ['--compaction', 'basic']);
    expect(atLeaf2).toEqual(resumedRequest(home, 'probe three').messages.map(turnItems));
  }, 240_000);
});
