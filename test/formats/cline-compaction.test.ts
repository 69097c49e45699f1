/**
 * Cline CLI's compaction state (`<id>.compaction.json`, fixture recorded by the real cline 3.0.65
 * compacting offline): read as a compaction entry after the last message it covers, in the chain (one
 * branch, the tree as `show --tree` draws it), so that the context, `show` and the counts agree with
 * what Cline sent after compacting and, at the leaf, with what Cline sends on resume; a state that does not
 * match the messages (Cline then ignores it) or is malformed is reported with its file and not applied.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { convertSession } from '../../src/convert/session.js';
import { clineDisplayUserInput, clineSourcePrefixHash } from '../../src/formats/cline/compaction.js';
import { clineContext } from '../../src/formats/cline/context.js';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { branches, buildContext } from '../../src/model/tree.js';
import type { CompactionEntry, Session } from '../../src/model/types.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { type AnthropicMessage, turnItems } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { syncStore } from '../helpers/index-units.js';

const FIXTURE = resolve('test/fixtures/cline/compaction-3.0.65');
const ID = '1795669065564_8ih0v';
const homes: string[] = [];

async function tempHome(): Promise<string> {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-compaction-'));
  homes.push(home);
  return home;
}
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

async function sentAfterCompaction(): Promise<string[][]> {
  const sent = JSON.parse(await fs.readFile(join(FIXTURE, 'sent-after-compaction.json'), 'utf8')) as AnthropicMessage[];
  // results whole: Cline cuts a long result short in every request it sends, and the context so too (context.ts)
  return sent.map(turnItems);
}

/** A message without its modelInfo.family (as Cline holds a message of the running session in memory). */
function withoutFamily(m: Record<string, unknown>): Record<string, unknown> {
  const info = m.modelInfo as Record<string, unknown> | undefined;
  if (!info) return m;
  const { family: _f, ...rest } = info;
  return { ...m, modelInfo: rest };
}

describe('a Cline session the real cline compacted', () => {
  const env: DriverEnv = { home: '/nonexistent', env: { CLINE_DATA_DIR: join(FIXTURE, 'data') } };

  it('reads the compaction after the messages it covers, with the turns Cline kept', async () => {
    const s = (await new ClineDriver(env).getSession(ID)) as Session;
    expect(s.warnings ?? []).toEqual([]);
    expect(s.entries.map((e) => e.kind)).toEqual([
      'message',
      'message',
      'message',
      'message',
      'message',
      'compaction',
      'message',
    ]);
    const c = s.entries[5] as CompactionEntry;
    expect(c.parentId).toBe('msg_sGpOfSLl'); // the 5th message, Cline's source_message_count
    // in the chain, as pi's and Claude Code's compactions are: the answer Cline got after it follows it
    expect(s.entries[6]?.parentId).toBe(c.id);
    expect(s.leafId).toBe(s.entries[6]?.id);
    expect(branches(s)).toHaveLength(1);
    // Cline does not resume from a state it wrote in the run that compacted
    expect(c.appliedOnResume).toBe(false);
    expect(c.raw).toMatchObject({ version: 1, source_message_count: 5 });
    expect(c.firstKeptEntryId).toBe('msg_tnZIenQo'); // the b.txt call it kept
    expect(c.summary).toMatch(/^READ: a\.txt and b\.txt\n<SYSTEM_NOTICE>\nEarlier context was compacted\./);
    expect(c.summary).toContain('Files read:\na.txt');
    // still every message Cline keeps, counted once
    expect(s.messageCount).toBe(6);
  });

  it('its context at the compaction is what Cline sent after compacting', async () => {
    const s = (await new ClineDriver(env).getSession(ID)) as Session;
    const home = await tempHome();
    const cliEnv: DriverEnv = { home, env: { ...env.env, THREADBASE_HOME: join(home, '.threadbase') } };
    const at = JSON.parse(await runCliOk(cliEnv, ['context', ID, '--leaf', `${ID}:compaction`, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(at.messages.map(turnItems)).toEqual(await sentAfterCompaction());
    // at the leaf: every message, as Cline sends them on resume (it does not apply the state)
    expect(clineContext(s).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const atLeaf = JSON.parse(await runCliOk(cliEnv, ['context', ID, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    expect(atLeaf.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    // the model's context at the leaf too: a compaction the agent does not apply on resume is left out (appliedOnResume)
    expect(buildContext(s).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const shown = await runCliOk(cliEnv, ['show', ID]);
    expect(shown).toMatch(/compaction/i);
    expect(shown).toContain('Earlier context was compacted');
    // one branch: the messages before the compaction are what it summarised and kept, not a side branch
    const tree = await runCliOk(cliEnv, ['show', ID, '--tree']);
    expect(tree).not.toMatch(/[├└]/);
    expect(tree).toMatch(
      /msg_sGpOfSLl tool[^\n]*\n[^\n]*compaction: READ[^\n]*\n[^\n]*msg_s1hZXkYo assistant: finished reading both ← current/,
    );
    const json = JSON.parse(await runCliOk(cliEnv, ['show', ID, '--json'])) as { branches: unknown[] };
    expect(json.branches).toHaveLength(1);
    // counted as Cline counts it (the manifest's usage): every response once, the compaction none
    const [row] = JSON.parse(await runCliOk(cliEnv, ['stats', '--by', 'session', '--json'])) as Record<string, unknown>[];
    expect(row).toMatchObject({ key: ID, inputTokens: 4733, outputTokens: 58, messages: 3 });
    expect(row?.cost).toBeCloseTo(0.015069, 9);
  });

  it('answers its context from the index as from its files: every message at the leaf, what Cline sent at the compaction', async () => {
    const home = await tempHome();
    const data = join(home, 'data');
    await fs.cp(join(FIXTURE, 'data'), data, { recursive: true });
    const cliEnv: DriverEnv = { home, env: { HOME: home, CLINE_DATA_DIR: data, THREADBASE_HOME: join(home, '.threadbase') } };
    await fs.mkdir(join(home, '.threadbase'), { recursive: true });
    await syncStore(cliEnv, 'cline');
    const roles = async (args: string[]) =>
      (
        JSON.parse(await runCliOk(cliEnv, ['context', ID, '--format', 'anthropic', ...args])) as { messages: AnthropicMessage[] }
      ).messages.map((m) => m.role);
    const resumed = ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'];
    expect(await roles(['--no-index'])).toEqual(resumed);
    expect(await roles([])).toEqual(resumed);
    const atCompaction = await roles(['--leaf', `${ID}:compaction`]);
    expect(atCompaction).toEqual((await sentAfterCompaction()).map((m) => (m[0] ?? '').split(':')[0]));
    // the index keeps what Cline's context reads of the compaction
    const store = openSqliteStore(indexPath(cliEnv));
    try {
      const indexed = (await store.getSession(ID)) as Session;
      expect(indexed.entries.find((e) => e.kind === 'compaction')).toMatchObject({ appliedOnResume: false });
      expect(clineContext(indexed).messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
      ]);
    } finally {
      await store.close();
    }
  });

  it.each(['pi', 'claude', 'codex', 'qwen'] as const)(
    'converted into %s: the target resumes from every message, as Cline does, the summary kept beside',
    async (to) => {
      const s = (await new ClineDriver(env).getSession(ID)) as Session;
      const home = await tempHome();
      const target: DriverEnv = { home, env: { HOME: home } };
      const info = await convertSession(s, { to, env: target, allBranches: true });
      const back = (await new Sources(target).driver(to).getSession(info.id)) as Session;
      const texts = (x: Session) =>
        buildContext(x).messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));
      const sent = texts(back);
      expect(sent.some((t) => t.includes('Earlier context was compacted'))).toBe(false);
      for (const t of texts(s)) expect(sent.some((x) => x.includes(t.slice(0, 40)))).toBe(true);
      // kept where the target holds the whole tree (--all-branches): the summary is a leaf of its own
      if (to === 'pi')
        expect(back.entries.some((e) => e.kind === 'compaction' && e.summary.includes('Earlier context was compacted'))).toBe(
          true,
        );
    },
  );

  it('converted along its path: the compaction left out is said, and how to keep it where the target holds trees', async () => {
    const s = (await new ClineDriver(env).getSession(ID)) as Session;
    const said = async (to: 'pi' | 'codex', allBranches: boolean) => {
      const home = await tempHome();
      const info = await convertSession(s, { to, env: { home, env: { HOME: home } }, allBranches });
      return ((info.meta?.warnings ?? []) as string[]).filter((w) => w.includes('does not apply on resume'));
    };
    expect(await said('pi', false)).toEqual([
      `cline:${ID} → pi: a compaction cline does not apply on resume left out, its summary with it: pi resumes from every message, as cline does; --all-branches keeps it beside the path (1)`,
    ]);
    // kept beside the path: nothing left out
    expect(await said('pi', true)).toEqual([]);
    expect(await said('codex', false)).toHaveLength(1);
  });

  it('written into Cline again (a copy): every message, as Cline sends the session, the compaction read back where it was', async () => {
    const s = (await new ClineDriver(env).getSession(ID)) as Session;
    const home = await tempHome();
    const writer = new ClineDriver({ home, env: {} });
    const info = await writer.writeSession(s);
    const doc = JSON.parse(await fs.readFile(info.path as string, 'utf8')) as { messages: unknown[] };
    expect(doc.messages).toHaveLength(6);
    const back = (await writer.getSession(info.id)) as Session;
    const roles = (x: Session) => clineContext(x).messages.map((m) => m.role);
    expect(roles(back)).toEqual(roles(s));
    expect(back.entries.map((e) => e.kind)).toEqual(s.entries.map((e) => e.kind));
    expect(branches(back)).toHaveLength(1);
  });

  it("Cline's hash of the messages a state covers is the state's where the file's messages are those Cline hashed", async () => {
    const file = join(FIXTURE, 'data', 'sessions', ID, `${ID}.messages.json`);
    const messages = (JSON.parse(await fs.readFile(file, 'utf8')) as { messages: Record<string, unknown>[] }).messages;
    const state = JSON.parse(await fs.readFile(join(FIXTURE, 'data', 'sessions', ID, `${ID}.compaction.json`), 'utf8')) as {
      source_prefix_hash: string;
    };
    expect(clineSourcePrefixHash(messages, 5)).not.toBe(state.source_prefix_hash);
    // in memory, where Cline hashed them, an assistant message's modelInfo had no family yet
    expect(clineSourcePrefixHash(messages.map(withoutFamily), 5)).toBe(state.source_prefix_hash);
    expect(clineDisplayUserInput('<user_input mode="act">READ: a.txt</user_input>')).toBe('READ: a.txt');
    expect(clineDisplayUserInput('<user_command slash="plan">do it</user_command>')).toBe('/plan do it');
  });

  it('a state Cline resumes from (its hash is the messages file’s): the messages after it follow the compaction', async () => {
    const home = await tempHome();
    const data = join(home, 'data');
    await fs.cp(join(FIXTURE, 'data'), data, { recursive: true });
    const file = join(data, 'sessions', ID, `${ID}.messages.json`);
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { messages: Record<string, unknown>[] };
    await fs.writeFile(file, JSON.stringify({ ...doc, messages: doc.messages.map(withoutFamily) }));
    const s = (await new ClineDriver({ home, env: { CLINE_DATA_DIR: data } }).getSession(ID)) as Session;
    expect(s.entries[6]?.parentId).toBe(`${ID}:compaction`);
    expect(buildContext(s).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('a state whose last message is not the session’s is reported and not applied, as Cline ignores it', async () => {
    const home = await tempHome();
    const data = join(home, 'data');
    await fs.cp(join(FIXTURE, 'data'), data, { recursive: true });
    const file = join(data, 'sessions', ID, `${ID}.compaction.json`);
    const state = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(file, JSON.stringify({ ...state, source_last_message_key: 'id:msg_other' }));
    const s = (await new ClineDriver({ home, env: { CLINE_DATA_DIR: data } }).getSession(ID)) as Session;
    expect(s.entries.some((e) => e.kind === 'compaction')).toBe(false);
    expect(s.warnings).toEqual([expect.objectContaining({ file, message: expect.stringContaining('not applied') })]);
    expect(buildContext(s).messages).toHaveLength(6);
  });

  it('a malformed state is reported with its file and line; the messages still load', async () => {
    const home = await tempHome();
    const data = join(home, 'data');
    await fs.cp(join(FIXTURE, 'data'), data, { recursive: true });
    const file = join(data, 'sessions', ID, `${ID}.compaction.json`);
    await fs.writeFile(file, '{"version": 1, "messages": [');
    const s = (await new ClineDriver({ home, env: { CLINE_DATA_DIR: data } }).getSession(ID)) as Session;
    expect(s.warnings).toEqual([expect.objectContaining({ file, line: 1, message: expect.stringContaining('malformed JSON') })]);
    expect(s.entries.filter((e) => e.kind === 'message')).toHaveLength(6);
  });

  it('a compaction Cline writes after a read is read by the same driver, and changes the unit’s version', async () => {
    const home = await tempHome();
    const data = join(home, 'data');
    await fs.cp(join(FIXTURE, 'data'), data, { recursive: true });
    const file = join(data, 'sessions', ID, `${ID}.compaction.json`);
    const state = await fs.readFile(file, 'utf8');
    await fs.rm(file);
    const driver = new ClineDriver({ home, env: { CLINE_DATA_DIR: data } });
    expect((await driver.getSession(ID))?.entries.some((e) => e.kind === 'compaction')).toBe(false);
    const before = (await driver.listUnits()).find((u) => u.sessionId === ID)?.version;
    await fs.writeFile(file, state);
    expect((await driver.getSession(ID))?.entries.some((e) => e.kind === 'compaction')).toBe(true);
    const after = (await driver.listUnits()).find((u) => u.sessionId === ID)?.version;
    expect(after).not.toBe(before);
  });
});
