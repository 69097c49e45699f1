/**
 * What an agent wrote into the conversation itself is named by that agent's folder
 * (src/formats/<agent>/injected.ts), mapped in one place (src/formats/injected.ts), and the viewer's
 * JSON carries the name on each such message (`injected`), so the browser reads one field. Checked
 * on messages shaped as each reader makes them, and on the sessions the real agents wrote.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { claudeInjectedLabel } from '../../src/formats/claude/injected.js';
import { codexInjectedLabel } from '../../src/formats/codex/injected.js';
import { continueInjectedLabel } from '../../src/formats/continue/injected.js';
import { geminiInjectedLabel } from '../../src/formats/gemini/injected.js';
import { INJECTED_LABELERS, injectedLabel } from '../../src/formats/injected.js';
import { qwenInjectedLabel } from '../../src/formats/qwen/injected.js';
import { Sources } from '../../src/formats/registry.js';
import type { Message } from '../../src/model/types.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { WebData } from '../../src/server/web/data.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const text = (role: Message['role'], meta?: Message['meta']): Message => ({
  role,
  parts: [{ type: 'text', text: 'x' }],
  ...(meta ? { meta } : {}),
});

describe('naming what an agent wrote itself', () => {
  it('each agent names its own marks and nothing else', () => {
    expect(codexInjectedLabel(text('system', { codexRole: 'developer' }))).toBe('developer instructions');
    expect(codexInjectedLabel(text('system', { codexRole: 'system' }))).toBeUndefined();
    expect(codexInjectedLabel(text('user', { codexInjected: 'environment_context' }))).toBe(
      'environment_context, added by codex',
    );
    expect(geminiInjectedLabel(text('user', { geminiInjected: 'session_context' }))).toBe('session_context, added by Gemini CLI');
    expect(qwenInjectedLabel(text('user', { qwenInjected: 'notification' }))).toBe('notification, added by Qwen Code');
    expect(continueInjectedLabel(text('user', { continueInjected: 'context items' }))).toBe('context items, added by Continue');
    expect(claudeInjectedLabel(text('user', { claude: { origin: { kind: 'task-notification' } } }))).toBe(
      'task-notification, added by Claude Code',
    );
    expect(claudeInjectedLabel(text('user', { claude: { isMeta: true } }))).toBe('added by Claude Code');
    // an origin names a user turn only; a system record is the system prompt, meta or not
    expect(claudeInjectedLabel(text('assistant', { claude: { origin: { kind: 'x' } } }))).toBeUndefined();
    expect(claudeInjectedLabel(text('system', { claude: { isMeta: true } }))).toBeUndefined();
    for (const label of INJECTED_LABELERS.values()) {
      expect(label(text('user'))).toBeUndefined();
      expect(label(text('assistant', { phase: 'final' }))).toBeUndefined();
    }
  });

  it('asks every agent (the index and threadbase’s store keep the reading agent’s meta), a system message else the system prompt', () => {
    expect([...INJECTED_LABELERS.keys()]).toEqual(['codex', 'gemini', 'qwen', 'cline', 'copilot', 'continue', 'claude']);
    expect(injectedLabel(text('system'))).toBe('system prompt');
    expect(injectedLabel(text('system', { codexRole: 'developer' }))).toBe('developer instructions');
    expect(injectedLabel(text('system', { claude: { isMeta: true } }))).toBe('system prompt');
    expect(injectedLabel(text('user', { codexInjected: 'turn_aborted' }))).toBe('turn_aborted, added by codex');
    expect(injectedLabel(text('user', { geminiInjected: 'session_context' }))).toBe('session_context, added by Gemini CLI');
    expect(injectedLabel(text('user', { claude: { isMeta: true } }))).toBe('added by Claude Code');
    expect(injectedLabel(text('user'))).toBeUndefined();
    expect(injectedLabel(text('tool'))).toBeUndefined();
  });
});

/** codex: developer instructions and environment context before the first prompt */
const CODEX_ID = '01a21357-17c5-7c31-842a-b2bbe61459bd';
/** Claude Code 2.1: a background task's notification, a caveat (isMeta) before /compact's output */
const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** Gemini CLI 0.61.0: its session context as the first user message */
const GEMINI_ID = '1feb6904-698a-4392-9399-e06da18b836d';

describe('the viewer’s pages name every message the real agents wrote themselves', () => {
  let home: string;
  let sources: Sources;
  let data: WebData;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'threadbase-web-injected-', fixtures: ['claude', 'codex', 'gemini'] }));
    sources = new Sources({ home, env: { HOME: home } });
    data = new WebData(new AgentFilesDriver(sources));
  });

  afterAll(async () => {
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const labelsOf = async (id: string) => {
    const page = await data.pathPage(id, { limit: 500 });
    return page.entries.flatMap((e) => (e.injected ? [e.injected] : []));
  };

  it.each([
    [CODEX_ID, ['developer instructions', 'environment_context, added by codex']],
    [CLAUDE_ID, ['task-notification, added by Claude Code', 'added by Claude Code']],
    [GEMINI_ID, ['session_context, added by Gemini CLI']],
  ])('%s', async (id, labels) => {
    expect(await labelsOf(id)).toEqual(labels);
  });

  it('names them the same from the local index, where the session’s source is the agent’s but read from its rows', async () => {
    const store = openSqliteStore(':memory:');
    try {
      for (const [agent, id] of [
        ['codex', CODEX_ID],
        ['claude', CLAUDE_ID],
        ['gemini', GEMINI_ID],
      ] as const) {
        const session = await sources.driver(agent).getSession(id);
        if (!session) throw new Error(`no ${agent} session ${id}`);
        await store.writeSession?.(session, { keepId: true });
        const indexed = await new WebData(store).pathPage(id, { limit: 500 });
        expect(
          indexed.entries.flatMap((e) => (e.injected ? [e.injected] : [])),
          id,
        ).toEqual(await labelsOf(id));
      }
    } finally {
      await store.close?.();
    }
  });

  it('names them so in the tree as well, from the same mapping', async () => {
    const { nodes } = await data.tree(CODEX_ID);
    expect(nodes[0]?.label).toBe('(developer instructions)');
    const gemini = await data.tree(GEMINI_ID);
    expect(gemini.nodes[0]?.label).toBe('(session_context, added by Gemini CLI)');
  });

  it('names the system prompt of the context page', async () => {
    // codex's base instructions as the context's system prompt, then what it sends before the first prompt
    const page = await data.contextPage(CODEX_ID, {});
    expect(page.entries.flatMap((e) => (e.injected ? [e.injected] : []))).toEqual([
      'system prompt',
      'developer instructions',
      'environment_context, added by codex',
    ]);
  });
});
