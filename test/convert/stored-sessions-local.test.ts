/**
 * Sessions ClaudeAgentStorage stores in the default local store (`openStore()`: SQLite at
 * $THREADBASE_HOME/index.db) are ordinary `threadbase` sessions for the CLI as it ships, with no
 * registration by the caller: `sessions`, `show`, `context` and `convert --to claude|pi|opencode`
 * work on them; `sync` never indexes that database into itself; reading creates no database.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { Sources } from '../../src/formats/registry.js';
import '../../src/formats/all.js';
import '../../src/stores/local-source.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { openStore } from '../../src/stores/open.js';
import { ECHO_HI_ANTHROPIC_MESSAGES, ECHO_HI_PROJECT, saveEchoHiRun } from '../helpers/agent-sdk-run.js';
import { runCli, runCliOk } from '../helpers/cli.js';

const SID = '7c0ffee0-0000-4000-8000-0000000000a7';
const OPENCODE_FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
let home: string;
let env: DriverEnv;

/** role and part types of a context, the shape every target must keep */
const shape = (messages: { role: string; parts: { type: string }[] }[]) =>
  messages.map((m) => [m.role, m.parts.map((p) => p.type)]);
const EXPECTED = [
  ['user', ['text']],
  ['assistant', ['tool_call']],
  ['tool', ['tool_result']],
  ['assistant', ['text']],
];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-stored-local-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase'), XDG_DATA_HOME: join(home, 'data') } };
  // OpenCode writes into its own (real-schema) database, which OpenCode creates on first run
  mkdirSync(join(home, 'data', 'opencode'), { recursive: true });
  copyFileSync(OPENCODE_FIXTURE, join(home, 'data', 'opencode', 'opencode.db'));

  const store = await openStore(undefined, { env });
  await saveEchoHiRun(new ClaudeAgentStorage({ store, throwOnError: true }), SID);
  await store.close?.();
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('Agent SDK sessions in the default local store, through the CLI', () => {
  it('sessions lists it as a threadbase session, and show and context read it', async () => {
    const listed = JSON.parse(await runCliOk(env, ['sessions', '--json'])) as { id: string; source: string; project: string }[];
    // (the OpenCode database copied in holds a session of its own)
    expect(listed.filter((s) => s.source !== 'opencode')).toEqual([
      expect.objectContaining({ id: SID, source: 'threadbase', project: ECHO_HI_PROJECT }),
    ]);
    const shown = JSON.parse(await runCliOk(env, ['show', SID.slice(0, 13), '--json'])) as { id: string; entries: unknown[] };
    expect(shown.id).toBe(SID);
    expect(shown.entries).toHaveLength(4);
    const anthropic = JSON.parse(await runCliOk(env, ['context', SID, '--format', 'anthropic'])) as { messages: unknown[] };
    expect(anthropic.messages).toEqual(ECHO_HI_ANTHROPIC_MESSAGES);
  });

  it.each(['claude', 'pi', 'opencode'])('convert --to %s writes a session of that agent with the same context', async (agent) => {
    const written = JSON.parse(await runCliOk(env, ['convert', SID, '--to', agent, '--json'])) as { id: string; source: string };
    expect(written.source).toBe(agent);
    const target = new Sources(env).driver(agent);
    expect(shape((await target.getContext(written.id)).messages)).toEqual(EXPECTED);
  });

  it('sync indexes the agents but never the store into itself, and the threadbase session stays listed once', async () => {
    const report = JSON.parse(await runCliOk(env, ['sync', '--json'])) as { failed: number; units: number };
    expect(report.failed).toBe(0);
    const listed = JSON.parse(await runCliOk(env, ['sessions', '--json'])) as { id: string; source: string }[];
    expect(listed.filter((s) => s.source === 'threadbase').map((s) => s.id)).toEqual([SID]);
    // the converted sessions are listed under their agents (the index's copies are not threadbase's)
    expect(new Set(listed.map((s) => s.source))).toEqual(new Set(['threadbase', 'claude', 'pi', 'opencode']));
    const own = JSON.parse(await runCliOk(env, ['sessions', '--source', 'threadbase', '--json'])) as { id: string }[];
    expect(own.map((s) => s.id)).toEqual([SID]);
  });

  it('reading creates no database where there is none', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'tb-stored-empty-'));
    try {
      const bare: DriverEnv = { home: empty, env: { HOME: empty, THREADBASE_HOME: join(empty, '.threadbase') } };
      expect(JSON.parse(await runCliOk(bare, ['sessions', '--source', 'threadbase', '--json']))).toEqual([]);
      const missing = await runCli(bare, ['show', SID]);
      expect(missing.code).not.toBe(0);
      expect(missing.err).toContain(SID);
      expect(existsSync(join(empty, '.threadbase', 'index.db'))).toBe(false);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
