/**
 * `threadbase stats` against Claude Code's own prices: the real Claude Code (`claude -p` against the
 * loopback stand-in) is answered with usage of every kind it prices (cache reads, 5-minute and 1-hour
 * cache writes, web searches, where the request ran, fast mode, a long prompt, a request to an
 * advisor model), and what it reports for each run (`total_cost_usd`, `modelUsage`) is what
 * threadbase's `stats` says of the session it recorded: the same tokens per model, the same cost.
 * The advisor request survives a trip through pi into a Claude Code transcript Claude Code resumes.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import {
  type AgentHome,
  type ClaudeModelUsage,
  type ClaudeResult,
  runClaude,
  setupAgentHome,
  statsTokensOfClaude,
} from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import { textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';

/** Each run's model, and the usage the stand-in answers it with (laid over its estimated counts). */
const RUNS: Record<string, { model: string; usage: Record<string, unknown>; env?: Record<string, string>; args?: string[] }> = {
  caches: {
    model: 'claude-sonnet-5',
    usage: {
      input_tokens: 1200,
      output_tokens: 300,
      cache_read_input_tokens: 40_000,
      cache_creation_input_tokens: 900,
      cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 600 },
    },
  },
  searches: {
    model: 'claude-opus-5',
    usage: { input_tokens: 2000, output_tokens: 700, server_tool_use: { web_search_requests: 3, web_fetch_requests: 0 } },
  },
  place: {
    model: 'claude-opus-5-5',
    usage: { input_tokens: 3000, output_tokens: 400, cache_read_input_tokens: 1000, inference_geo: 'us' },
  },
  fast: {
    model: 'claude-opus-5-5',
    usage: { input_tokens: 2500, output_tokens: 800, speed: 'fast' },
  },
  long: {
    model: 'claude-haiku-5-5',
    usage: { input_tokens: 150_000, output_tokens: 900, cache_read_input_tokens: 120_000 },
  },
  advisor: {
    model: 'claude-sonnet-5',
    env: { CLAUDE_CODE_ENABLE_EXPERIMENTAL_ADVISOR_TOOL: '1' },
    args: ['--advisor', 'claude-opus-5'],
    usage: {
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_input_tokens: 5000,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      iterations: [
        {
          type: 'message',
          input_tokens: 1000,
          output_tokens: 150,
          cache_read_input_tokens: 5000,
          cache_creation_input_tokens: 300,
        },
        {
          type: 'advisor_message',
          model: 'claude-opus-5',
          input_tokens: 4000,
          output_tokens: 500,
          cache_read_input_tokens: 2000,
          cache_creation_input_tokens: 800,
          cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 600 },
        },
        { type: 'message', input_tokens: 1100, output_tokens: 50, cache_read_input_tokens: 5300, cache_creation_input_tokens: 0 },
      ],
    },
  },
};

const answer: Rule = (req) => {
  // the prompt, wherever in the request Claude Code put it
  const run = /COST:(\w+)/.exec(req.messages.map((m) => textOf(m)).join('\n'))?.[1];
  const spec = run ? RUNS[run] : undefined;
  return spec ? { text: `priced ${run}`, usage: spec.usage } : undefined;
};

let home: AgentHome;
let env: DriverEnv;
const results = new Map<string, ClaudeResult>();

interface StatsRow {
  key: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  messages: number;
}

async function stats(by: string): Promise<StatsRow[]> {
  return JSON.parse(await runCliOk(env, ['stats', '--by', by, '--source', 'claude', '--json'])) as StatsRow[];
}

function ourTokens(r: StatsRow) {
  return {
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens,
  };
}

beforeAll(async () => {
  home = await setupAgentHome({ rules: [answer] });
  env = { home: home.root, env: {} };
  for (const [name, spec] of Object.entries(RUNS)) {
    const r = await runClaude(home, ['--model', spec.model, ...(spec.args ?? [])], `COST:${name} how much?`, spec.env);
    expect(r.is_error ?? false, JSON.stringify(r)).toBe(false);
    results.set(name, r);
  }
}, 240_000);

afterAll(async () => {
  await home?.close();
});

describe('stats prices Claude Code sessions as Claude Code does', () => {
  it('each run: the same tokens and the same cost as Claude Code reports', async () => {
    const bySession = new Map((await stats('session')).map((r) => [r.key, r]));
    for (const [name, r] of results) {
      const ours = bySession.get(r.session_id);
      expect(ours, name).toBeDefined();
      const theirs = Object.values(r.modelUsage ?? {});
      const sum = (k: keyof ClaudeModelUsage) => theirs.reduce((n, u) => n + (u[k] ?? 0), 0);
      expect({ run: name, ...ourTokens(ours as StatsRow) }).toEqual({
        run: name,
        inputTokens: sum('inputTokens'),
        outputTokens: sum('outputTokens'),
        cacheReadTokens: sum('cacheReadInputTokens'),
        cacheWriteTokens: sum('cacheCreationInputTokens'),
      });
      expect(r.total_cost_usd, name).toBeGreaterThan(0);
      expect({ run: name, cost: (ours as StatsRow).cost }).toEqual({ run: name, cost: expect.closeTo(r.total_cost_usd ?? 0, 9) });
    }
  });

  it('per model: the advisor request under its own model, as Claude Code counts it', async () => {
    const theirs = new Map<string, ClaudeModelUsage>();
    for (const r of results.values())
      for (const [model, u] of Object.entries(r.modelUsage ?? {})) {
        const prev = theirs.get(model);
        theirs.set(
          model,
          prev
            ? (Object.fromEntries(
                Object.entries(u).map(([k, v]) => [k, (prev[k as keyof ClaudeModelUsage] ?? 0) + Number(v)]),
              ) as unknown as ClaudeModelUsage)
            : u,
        );
      }
    const ours = await stats('model');
    expect(ours.map((r) => r.key).sort()).toEqual([...theirs.keys()].sort());
    for (const row of ours) {
      const u = theirs.get(row.key) as ClaudeModelUsage;
      expect({ model: row.key, ...ourTokens(row), cost: row.cost }).toEqual({
        model: row.key,
        ...statsTokensOfClaude(u),
        cost: expect.closeTo(u.costUSD, 9),
      });
    }
    // the advisor's model: tokens and cost, no message of its own
    const advisor = ours.find((r) => r.key === 'claude-opus-5');
    expect(advisor?.inputTokens).toBe(2000 + 4000);
    expect(advisor?.messages).toBe(1);
    // and the session it ran in lists both models
    const advised = results.get('advisor') as ClaudeResult;
    const listed = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as { id: string }[];
    expect(listed.map((s) => s.id)).toContain(advised.session_id);
    const shown = JSON.parse(await runCliOk(env, ['show', advised.session_id, '--json'])) as { models?: string[] };
    expect(shown.models?.sort()).toEqual(['claude-opus-5', 'claude-sonnet-5']);
  });

  it('the transcript Claude Code wrote keeps the advisor request in usage.iterations', async () => {
    const advised = results.get('advisor') as ClaudeResult;
    const { stdout } = { stdout: await runCliOk(env, ['show', advised.session_id, '--json']) };
    expect(stdout).toContain('"advisors"');
    const files = await fs.readdir(`${home.root}/.claude/projects`, { recursive: true });
    const file = files.find((f) => f.endsWith(`${advised.session_id}.jsonl`));
    expect(file).toBeDefined();
    const text = await fs.readFile(`${home.root}/.claude/projects/${file}`, 'utf8');
    expect(text).toContain('"advisor_message"');
  });

  it('carried into pi and back, the advisor request is in the records threadbase wrote, and Claude Code resumes them', async () => {
    const advised = results.get('advisor') as ClaudeResult;
    const toPi = JSON.parse(
      await runCliOk(env, ['convert', advised.session_id, '--source', 'claude', '--to', 'pi', '--json']),
    ) as {
      id: string;
    };
    const back = JSON.parse(await runCliOk(env, ['convert', toPi.id, '--source', 'pi', '--to', 'claude', '--json'])) as {
      id: string;
      path: string;
    };
    const records = (await fs.readFile(back.path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: { usage?: { iterations?: Record<string, unknown>[] } } });
    const iterations = records.find((r) => r.type === 'assistant' && r.message?.usage?.iterations)?.message?.usage?.iterations;
    expect(iterations?.find((i) => i.type === 'advisor_message')).toEqual(
      expect.objectContaining({ model: 'claude-opus-5', input_tokens: 4000, output_tokens: 500 }),
    );
    const before = home.standIn.messageRequests().length;
    const resumed = await runClaude(home, ['--model', 'claude-sonnet-5', '--resume', back.id], 'and after that?');
    expect(resumed.is_error ?? false).toBe(false);
    const sent = home.standIn.messageRequests().slice(before);
    expect(sent.some((q) => q.messages.some((m) => textOf(m).includes('priced advisor')))).toBe(true);
  });
});
