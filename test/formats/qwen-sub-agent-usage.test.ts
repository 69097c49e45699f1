/**
 * A Qwen Code sub-agent's round with calls and no text: Qwen Code 0.24.4 records its usage alone in an
 * assistant record of no parts, then each call in an assistant record without usage
 * (attachJsonlTranscriptWriter). The reader makes them one reply: the call with the round's usage, no
 * empty reply before it, and the tokens (the index's stats, whole or appended reads) as recorded.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { readQwenChatFrom, usageOf } from '../../src/formats/qwen/records.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { MessageEntry, Session } from '../../src/model/types.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { statsTokenCounts, type TokenCounts } from '../helpers/usage.js';

const NESTED_DIR = resolve('test/fixtures/qwen/real-0.24.4-nested');
const MAIN = 'ae5c32fa-db80-41b8-b7cd-d2445f570fac';
const CHILD = 'general-purpose-toolu_standin_0001';
const folder = (root: string) => join(root, 'projects', '-tmp-qwen-nested-proj', 'subagents', MAIN);
const transcript = (root: string) => join(folder(root), `agent-${CHILD}.jsonl`);

type Rec = Record<string, unknown> & { uuid: string; parentUuid: string | null; type: string };
const recordsOf = (file: string): Rec[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
const partsOf = (r: Rec) => ((r.message as { parts?: unknown[] } | undefined)?.parts ?? []) as unknown[];

/** The tokens Qwen Code recorded in every file under `root`, as stats counts them. */
function recordedTokens(root: string): TokenCounts {
  const out: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, messages: 0 };
  const files = [
    join(root, 'projects', '-tmp-qwen-nested-proj', 'chats', `${MAIN}.jsonl`),
    transcript(root),
    join(folder(root), 'agent-general-purpose-toolu_standin_0003.jsonl'),
  ];
  for (const f of files)
    for (const r of recordsOf(f)) {
      const u = usageOf(r.usageMetadata);
      if (r.type !== 'assistant' || !u) continue;
      out.input += u.input;
      out.output += u.output;
      out.cacheRead += u.cacheRead;
      out.messages++;
    }
  return out;
}

describe('qwen: a sub-agent round of calls only', () => {
  it("is one reply: the call carries the usage-only record's usage, in its place", async () => {
    const recs = recordsOf(transcript(NESTED_DIR));
    // the real record: an assistant record of no parts with the round's usage, its child the call without usage
    const usageOnly = recs.find((r) => r.type === 'assistant' && partsOf(r).length === 0) as Rec;
    const call = recs.find((r) => r.parentUuid === usageOnly.uuid) as Rec;
    expect(usageOnly.usageMetadata).toBeDefined();
    expect(call).toMatchObject({ type: 'assistant' });
    expect(call.usageMetadata).toBeUndefined();

    const driver = new QwenDriver({ home: '/nonexistent', env: { QWEN_HOME: NESTED_DIR } });
    const child = (await driver.getSession(CHILD)) as Session;
    const replies = child.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e] : []));
    expect(replies.filter((e) => e.kind === 'message' && e.message.parts.length === 0)).toEqual([]);
    expect(child.entries.map((e) => e.id)).not.toContain(usageOnly.uuid);
    const merged = child.entries.find((e) => e.id === call.uuid);
    expect(merged).toMatchObject({
      parentId: usageOnly.parentUuid,
      message: { usage: usageOf(usageOnly.usageMetadata), model: 'claude-standin' },
    });
    expect(child.messageCount).toBe(recs.filter((r) => r.type !== 'system').length - 1);
  });
});

describe("qwen: a sub-agent's usage-only records in the index", () => {
  let dir: string;
  let root: string;
  let env: DriverEnv;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tb-qwen-usage-only-'));
    root = join(dir, 'qwen');
    cpSync(NESTED_DIR, root, { recursive: true });
    mkdirSync(join(dir, '.threadbase'));
    env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), QWEN_HOME: root } };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const indexed = async (): Promise<TokenCounts> => {
    const store = openSqliteStore(indexPath(env));
    try {
      await new IndexSync(store).sync(new Sources(env), { formats: ['qwen'] });
      return statsTokenCounts(stats(store, loadPrices(), { by: 'session', source: 'qwen' }));
    } finally {
      await store.close();
    }
  };

  it('stats counts the tokens Qwen Code recorded, once each', async () => {
    const want = recordedTokens(NESTED_DIR);
    expect(want.messages).toBeGreaterThan(0);
    expect(await indexed()).toEqual(want);
  });

  it('the same when the transcript grew past the usage-only record between two syncs (an appended read)', async () => {
    const file = transcript(root);
    const whole = readFileSync(file, 'utf8');
    const lines = whole.split('\n').filter(Boolean);
    const at = lines.findIndex((l) => {
      const r = JSON.parse(l) as Rec;
      return r.type === 'assistant' && partsOf(r).length === 0;
    });
    // the sub-agent caught mid-round: its usage-only record the last one written
    writeFileSync(file, `${lines.slice(0, at + 1).join('\n')}\n`);
    const sub = { agentId: CHILD, parentSessionId: MAIN, model: 'claude-standin' };
    const before = await readQwenChatFrom(file, sub);
    await indexed();
    writeFileSync(file, whole);
    // read on from the usage-only record: it and its call are one reply, in its place
    const after = await readQwenChatFrom(file, sub, before.state);
    expect(after.appended).toEqual({ replaces: 1, fromLine: at + 1 });
    const usageOnly = before.session.entries.at(-1) as MessageEntry;
    expect(usageOnly.message).toMatchObject({ parts: [], usage: { output: 41 } });
    expect(after.session.entries[0]).toMatchObject({
      parentId: usageOnly.parentId,
      message: { parts: [{ type: 'tool_call' }], usage: usageOnly.message.usage },
    });
    expect(await indexed()).toEqual(recordedTokens(NESTED_DIR));
    const store = openSqliteStore(indexPath(env));
    try {
      const s = await store.getSession(CHILD);
      expect(s?.entries.filter((e) => e.kind === 'message' && e.message.parts.length === 0)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
