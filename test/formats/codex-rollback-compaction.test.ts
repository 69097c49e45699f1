/**
 * A codex rollback that reaches back past a compaction, on rollouts the real codex-cli 0.169.0 wrote
 * (test/fixtures/codex/README.md, `rollback-home`; recorded by test/agents/codex-rollback.test.ts):
 * codex drops the last N user turns of the history it replayed (drop_last_n_user_turns), so turns
 * past the ones after the compaction come out of the compaction's replacement history, and the
 * context codex injected before a dropped turn goes with it back to the compaction.
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { DROPPED_COMPACTED_TURNS } from '../../src/formats/codex/rollout.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { codexTempHomes } from '../helpers/codex-homes.js';

const HOME = resolve('test/fixtures/codex/rollback-home');
const DAY = join(HOME, 'sessions/2026/11/25');
/** three turns, codex compacting before the second; rolled back 2 (all after the compaction), resumed; rolled back 1, resumed */
const TWO_THEN_ONE = '01a214cc-1a95-7b80-9cac-bcb87cb73126';
/** the same three turns rolled back 3 (into the compaction's history), resumed; rolled back 1, resumed */
const THREE_THEN_ONE = '01a214cc-348c-7560-99a0-4554093d19e0';

const env: DriverEnv = { home: '/nonexistent', env: { CODEX_HOME: HOME } };
const { tempHome } = codexTempHomes(HOME, 'tb-codex-rollback-');

/** The input codex sent after its instructions, as recorded (without ids and statuses). */
async function recorded(name: string): Promise<unknown[]> {
  const items = JSON.parse(await fs.readFile(resolve('test/fixtures/codex', name), 'utf8')) as unknown[];
  return bare(items);
}

function bare(items: unknown[]): unknown[] {
  return items.map((it) => {
    const { id: _id, status: _status, internal_chat_message_metadata_passthrough: _m, ...rest } = it as Record<string, unknown>;
    return rest;
  });
}

const texts = (ms: Message[]) => ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));
const entryWith = (s: Session, text: string) =>
  s.entries.find((e) => e.kind === 'message' && texts([e.message]).includes(text)) as Entry;
const dataOf = (e: Entry | undefined) => (e?.kind === 'metadata' ? e.data : undefined);
const rollbacks = (s: Session) => s.entries.filter((e) => e.kind === 'metadata' && e.type === 'event_msg:thread_rolled_back');

/** Our context at `leafId` as the Responses input, less its last item (codex's answer to the prompt it was sent for). */
async function oursAt(driver: CodexDriver, id: string, leafId?: string): Promise<unknown[]> {
  const input = contextToResponses(await driver.getContext(id, leafId ? { leafId } : {})).input;
  return bare(input.slice(0, -1));
}

describe('codex rollback across a compaction (real codex 0.169 rollouts)', () => {
  it('3 turns back, 2 of them after the compaction: the first prompt goes from its replacement history, and the summary after it', async () => {
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(THREE_THEN_ONE)) as Session;
    const [first] = rollbacks(s);
    // the rollback continues from the compaction, and drops one turn of its history
    expect(first?.parentId).toBe(s.entries.find((e) => e.kind === 'compaction')?.id);
    expect(dataOf(first)).toMatchObject({ num_turns: 3, [DROPPED_COMPACTED_TURNS]: 1 });
    const answer = entryWith(s, 'ok: after rollback 3');
    const ctx = await driver.getContext(THREE_THEN_ONE, { leafId: answer.id });
    expect(texts(ctx.messages)).not.toContain('first question');
    expect(texts(ctx.messages).some((t) => t.startsWith('Another language model'))).toBe(false);
    expect(await oursAt(driver, THREE_THEN_ONE, answer.id)).toEqual(await recorded('request-rollback-compaction-3.json'));
  });

  it('rolled back 1 more when the compaction has no prompt left: only the turn after the rollback goes', async () => {
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(THREE_THEN_ONE)) as Session;
    expect(dataOf(rollbacks(s)[1])).toEqual({
      type: 'thread_rolled_back',
      num_turns: 1,
    });
    expect(await oursAt(driver, THREE_THEN_ONE)).toEqual(await recorded('request-rollback-compaction-3-then-1.json'));
  });

  it('rolled back 1 after a rollback to the compaction: the context codex injected before the dropped prompt goes too', async () => {
    const driver = new CodexDriver(env);
    const s = (await driver.getSession(TWO_THEN_ONE)) as Session;
    const [, second] = rollbacks(s);
    // back to the compaction: codex's first turn is in the compaction's history, so the trim reaches
    // past the context injected after it; only records outside the history are left after the compaction
    const path = pathToLeaf(s, second?.id);
    const after = path.slice(path.findIndex((e) => e.kind === 'compaction') + 1);
    expect(after.filter((e) => e.kind === 'message')).toEqual([]);
    expect(dataOf(second)).toEqual({ type: 'thread_rolled_back', num_turns: 1 });
    expect(await oursAt(driver, TWO_THEN_ONE)).toEqual(await recorded('request-rollback-compaction-2-then-1.json'));
  });

  it('is written back line for line, and a fork of the leaf replays the same rollbacks', async () => {
    const driver = new CodexDriver(await tempHome());
    for (const id of [THREE_THEN_ONE, TWO_THEN_ONE]) {
      const s = (await driver.getSession(id)) as Session;
      const orig = (await fs.readFile(s.path as string, 'utf8')).trim().split('\n');
      const written = await driver.writeSession(s);
      const lines = (await fs.readFile(written.path as string, 'utf8')).trim().split('\n');
      expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(orig.slice(1).map((l) => JSON.parse(l)));
      const fork = await driver.forkSession(id);
      expect(await driver.getContext(fork.id)).toEqual(await driver.getContext(id));
    }
  });
});

describe('codex rollback into a replacement history with two prompts (codex 0.169 shape)', () => {
  /**
   * The first turns of THREE_THEN_ONE up to its first rollback, with a second prompt in the compaction's
   * replacement history: 3 turns back drop the two after it and the later of its prompts, the summary with it.
   */
  async function twoPromptRollout(numTurns: number): Promise<CodexDriver> {
    const e = await tempHome();
    const file = join(e.home, '.codex/sessions/2026/11/25', `rollout-2026-11-25T22-20-56-${THREE_THEN_ONE}.jsonl`);
    await fs.rm(
      join(e.home, '.codex/sessions/2026/11/25', (await fs.readdir(DAY)).find((f) => f.includes(TWO_THEN_ONE)) as string),
    );
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    const at = lines.findIndex((l) => l.includes('"thread_rolled_back"'));
    const kept = lines.slice(0, at + 1).map((l) => {
      const r = JSON.parse(l);
      if (r.type === 'compacted') {
        const rh = r.payload.replacement_history as { role?: string; content?: { text?: string }[] }[];
        const i = rh.findIndex((it) => it.content?.[0]?.text === 'first question');
        rh.splice(i + 1, 0, { ...rh[i], content: [{ type: 'input_text', text: 'first question, continued' }] } as never);
      }
      if (r.payload?.type === 'thread_rolled_back') r.payload.num_turns = numTurns;
      return JSON.stringify(r);
    });
    await fs.writeFile(file, `${kept.join('\n')}\n`);
    return new CodexDriver(e);
  }

  it('3 back: the later prompt of the replacement history and the summary go, the earlier one stays', async () => {
    const driver = await twoPromptRollout(3);
    const ctx = await driver.getContext(THREE_THEN_ONE);
    const t = texts(ctx.messages);
    expect(t.slice(-1)).toEqual(['first question']);
    expect(t).not.toContain('first question, continued');
    expect(t.some((x) => x.startsWith('Another language model'))).toBe(false);
    expect(t.filter((x) => x.startsWith('<environment_context>'))).toHaveLength(1);
    const [r] = rollbacks((await driver.getSession(THREE_THEN_ONE)) as Session);
    expect(dataOf(r)).toMatchObject({ num_turns: 3, [DROPPED_COMPACTED_TURNS]: 1 });
  });

  it('9 back (more than exist): cut at the first prompt, the context before it kept', async () => {
    const driver = await twoPromptRollout(9);
    const s = (await driver.getSession(THREE_THEN_ONE)) as Session;
    const t = texts((await driver.getContext(THREE_THEN_ONE)).messages);
    expect(t).not.toContain('first question');
    expect(t.filter((x) => x.startsWith('<environment_context>'))).toHaveLength(1);
    expect(t.filter((x) => x.startsWith('<skills_instructions>'))).toHaveLength(1);
    // every turn is still in the tree, off the path
    expect(texts(s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : [])))).toContain('third question');
    expect(texts(pathToLeaf(s).flatMap((e) => (e.kind === 'message' ? [e.message] : [])))).not.toContain('second question');
  });
});
