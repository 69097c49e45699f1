/**
 * A VS Code extension task's `task_metadata.json` (cline/cline context-tracking TaskMetadata): the
 * model in use at each answer (model_usage: model, provider and mode, recorded when they change) on
 * the assistant messages that name none of their own, the files Cline read or edited and the
 * environments it ran in as session meta; the extension's own modelInfo {modelId, providerId, mode}
 * and metrics {tokens: {prompt, completion, cached}, cost}; a change to it changes the unit.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import type { Message, Session } from '../../src/model/types.js';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

const TASK = '1700000000000';
const T0 = 1_700_000_000_000;

async function taskHome(history: unknown[], metadata?: string): Promise<{ home: string; dir: string }> {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-meta-'));
  homes.push(home);
  const dir = join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', TASK);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, 'api_conversation_history.json'), JSON.stringify(history));
  if (metadata !== undefined) await fs.writeFile(join(dir, 'task_metadata.json'), metadata);
  return { home, dir };
}

const turns = [
  { role: 'user', content: [{ type: 'text', text: '<task>\nplan it\n</task>' }], ts: T0 + 100 },
  { role: 'assistant', content: [{ type: 'text', text: 'A plan.' }], ts: T0 + 200 },
  { role: 'user', content: [{ type: 'text', text: 'do it' }], ts: T0 + 300 },
  { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], ts: T0 + 500 },
];
const files = [
  { path: 'src/a.ts', record_state: 'active', record_source: 'read_tool', cline_read_date: T0 + 150, cline_edit_date: null },
  {
    path: 'src/b.ts',
    record_state: 'stale',
    record_source: 'user_edited',
    cline_read_date: null,
    cline_edit_date: null,
    user_edit_date: T0 + 250,
  },
];
const environment = [
  {
    ts: T0 + 50,
    os_name: 'linux',
    os_version: '6.1',
    os_arch: 'x64',
    host_name: 'VS Code',
    host_version: '1.99.0',
    cline_version: '3.17.0',
  },
];
const metadata = {
  files_in_context: files,
  model_usage: [
    { ts: T0 + 110, model_id: 'claude-opus-4', model_provider_id: 'anthropic', mode: 'plan' },
    { ts: T0 + 400, model_id: 'gpt-4.1', model_provider_id: 'openai-native', mode: 'act' },
  ],
  environment_history: environment,
};

const assistants = (s: Session | undefined): Message[] =>
  (s?.entries ?? []).flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message] : []));

describe("an extension task's task_metadata.json", () => {
  it('gives each answer the model, provider and mode in use at its time; files in context and environments as session meta', async () => {
    const { home } = await taskHome(turns, JSON.stringify(metadata));
    const s = await new ClineDriver({ home, env: {} }).getSession(TASK);
    expect(assistants(s).map((m) => [m.model, m.provider, m.meta?.clineMode])).toEqual([
      ['claude-opus-4', 'anthropic', 'plan'],
      ['gpt-4.1', 'openai-native', 'act'],
    ]);
    expect(s?.models).toEqual(['claude-opus-4', 'gpt-4.1']);
    expect(s?.meta).toMatchObject({ clineFilesInContext: files, clineEnvironmentHistory: environment });
    expect(s?.warnings ?? []).toEqual([]);
  });

  it("an answer's own modelInfo and metrics (the extension's form) come first", async () => {
    const own = turns.map((t, i) =>
      i === 3
        ? {
            ...t,
            modelInfo: { modelId: 'claude-sonnet-4', providerId: 'openrouter', mode: 'act' },
            metrics: { tokens: { prompt: 120, completion: 30, cached: 100 }, cost: 0.02 },
          }
        : t,
    );
    const { home } = await taskHome(own, JSON.stringify(metadata));
    const s = await new ClineDriver({ home, env: {} }).getSession(TASK);
    const last = assistants(s)[1];
    expect([last?.model, last?.provider, last?.meta?.clineMode]).toEqual(['claude-sonnet-4', 'openrouter', 'act']);
    expect(last?.usage).toMatchObject({ input: 20, output: 30, cacheRead: 100 });
    expect(last?.cost).toBe(0.02);
  });

  it('a malformed one is reported with its file; the messages still load', async () => {
    const { home, dir } = await taskHome(turns, '{"model_usage": [');
    const s = await new ClineDriver({ home, env: {} }).getSession(TASK);
    expect(s?.warnings).toEqual([
      expect.objectContaining({
        file: join(dir, 'task_metadata.json'),
        line: 1,
        message: expect.stringContaining('malformed JSON'),
      }),
    ]);
    expect(assistants(s)).toHaveLength(2);
  });

  it('written after a read: read by the same driver, and the unit’s version changes', async () => {
    const { home, dir } = await taskHome(turns);
    const driver = new ClineDriver({ home, env: {} });
    expect(assistants(await driver.getSession(TASK))[0]?.model).toBeUndefined();
    const before = (await driver.listUnits()).find((u) => u.sessionId === TASK)?.version;
    await fs.writeFile(join(dir, 'task_metadata.json'), JSON.stringify(metadata));
    expect(assistants(await driver.getSession(TASK))[0]?.model).toBe('claude-opus-4');
    expect((await driver.listUnits()).find((u) => u.sessionId === TASK)?.version).not.toBe(before);
  });
});
