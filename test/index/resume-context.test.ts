/**
 * A store holding an agent's sessions gives the context that agent sends on resume, as the agent's
 * own files do: the local index's `getContext` (the viewer's context view, the server's context
 * route) against each format's driver, on sessions the real Claude Code, pi, Codex and OpenCode wrote.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';

let home: string;
let env: DriverEnv;
let store: SqliteStore;

beforeAll(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-resume-context-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  await fs.cp(resolve('test/fixtures/claude/resume'), join(home, '.claude'), { recursive: true });
  const pi = join(home, '.pi', 'agent', 'sessions', '--work-proj--');
  await fs.mkdir(pi, { recursive: true });
  for (const f of ['real-tool-call.jsonl', 'real-branched.jsonl', 'real-compacted.jsonl', 'api-signatures.jsonl'])
    await fs.copyFile(resolve('test/fixtures/pi', f), join(pi, f));
  // Codex rollouts the real codex wrote (base instructions, a local compaction, a rollback, tool search)
  await fs.cp(resolve('test/fixtures/codex/home/sessions'), join(home, '.codex', 'sessions'), { recursive: true });
  await fs.cp(resolve('test/fixtures/codex/audit-home/sessions'), join(home, '.codex', 'sessions'), { recursive: true });
  // rollbacks that reach into a compaction's replacement history (the turns dropped there are on the rollback entry)
  await fs.cp(resolve('test/fixtures/codex/rollback-home/sessions'), join(home, '.codex', 'sessions'), { recursive: true });
  // OpenCode's database with an automatic compaction (its summary message is sent as recorded)
  const oc = join(home, '.local', 'share', 'opencode');
  await fs.mkdir(oc, { recursive: true });
  await fs.copyFile(resolve('test/fixtures/opencode/opencode.db'), join(oc, 'opencode.db'));
  // its summary with signed reasoning, which OpenCode sends as recorded (other agents get the text)
  const db = new Database(join(oc, 'opencode.db'));
  db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)').run(
    'prt_204ba61f7000SignedReasoning0',
    'msg_204ba6140001JwkuQvoYKP2mn3',
    'ses_dfb46f783ffeZ1j67MnacZPrQP',
    1795375653366,
    1795375653366,
    JSON.stringify({ type: 'reasoning', text: 'summing up', metadata: { anthropic: { signature: 'sig-sum' } } }),
  );
  db.close();
  await fs.mkdir(join(home, '.threadbase'), { recursive: true });
  store = openSqliteStore(indexPath(env));
  await new IndexSync(store).sync(new Sources(env));
});

afterAll(async () => {
  await store?.close();
  await fs.rm(home, { recursive: true, force: true });
});

it("the local index gives each agent's session the context its agent sends, as the agent's files do", async () => {
  const sources = new Sources(env);
  const sessions = await store.listSessions();
  expect(new Set(sessions.map((s) => s.source))).toEqual(new Set(['claude', 'pi', 'codex', 'opencode']));
  expect(sessions.length).toBeGreaterThanOrEqual(15);
  for (const s of sessions) {
    const fromFiles = await sources.driver(s.source).getContext(s.id);
    const fromIndex = await store.getContext(s.id);
    expect(fromIndex.messages, `${s.source} ${s.id}`).toEqual(fromFiles.messages);
    expect(fromIndex.model, `${s.source} ${s.id}`).toEqual(fromFiles.model);
    expect(fromIndex.system, `${s.source} ${s.id}`).toEqual(fromFiles.system);
  }
  // the cases the agents' own records decide are in the corpus
  const codexSystems = sessions.filter((s) => s.source === 'codex').map((s) => store.getContext(s.id));
  expect((await Promise.all(codexSystems)).filter((c) => c.system?.startsWith('You are')).length).toBeGreaterThan(0);
  const summary = (await store.getContext('ses_dfb46f783ffeZ1j67MnacZPrQP')).messages.find((m) => m.meta?.summary);
  expect(summary?.parts[0]).toMatchObject({ type: 'thinking', thinking: 'summing up', signature: 'sig-sum' });
});
