/**
 * What an agent-framework author imports from 'threadbase' (src/index.ts): every agent's driver, every
 * store, the types the API's own signatures name, and the pricing `stats` uses; and that importing the
 * library does not load the CLI.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DriverFactory, ListResult, ModelUsageCost, PriceTable } from '../../src/index.js';
import * as tb from '../../src/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the library exports', () => {
  it('a driver class for every registered format, each making that format', () => {
    const classes: Record<string, unknown> = {
      claude: tb.ClaudeDriver,
      cline: tb.ClineDriver,
      codex: tb.CodexDriver,
      continue: tb.ContinueDriver,
      copilot: tb.CopilotDriver,
      gemini: tb.GeminiDriver,
      kilo: tb.KiloDriver,
      opencode: tb.OpenCodeDriver,
      pi: tb.PiDriver,
      qwen: tb.QwenDriver,
      zed: tb.ZedDriver,
    };
    // `threadbase` is the local store's own sessions (stores/local-source.ts), no agent
    expect(Object.keys(classes).sort()).toEqual(
      tb
        .formatNames()
        .filter((n) => n !== 'threadbase')
        .sort(),
    );
    const sources = new tb.Sources({ home: '/nonexistent', env: {} });
    for (const [name, cls] of Object.entries(classes)) {
      expect(typeof cls, name).toBe('function');
      expect(sources.driver(name), name).toBeInstanceOf(cls as new (...a: never[]) => unknown);
    }
  });

  it('the SQLite store, as openStore opens it', async () => {
    const store = await tb.openStore('memory:');
    expect(store).toBeInstanceOf(tb.MemoryStore);
    const sqlite = tb.openSqliteStore(':memory:');
    expect(sqlite).toBeInstanceOf(tb.SqliteStore);
    await sqlite.close();
  });

  it('the types its own signatures name, and the price table stats uses', async () => {
    // type-level: these names must resolve (tsc checks this file)
    const list: ListResult = await new tb.Sources({ home: '/nonexistent', env: {} }).list();
    expect(list.sessions).toEqual([]);
    const factory: DriverFactory = () => new tb.MemoryStore();
    expect(factory({ home: '/', env: {} }).name).toBe('memory');

    const prices: PriceTable = tb.PRICES;
    expect(tb.PRICES_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const entries: tb.Entry[] = [
      {
        id: 'a1',
        parentId: null,
        timestamp: '2025-01-01T00:00:00.000Z',
        kind: 'message',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'text', text: 'hi' }],
          usage: { input: 100_000, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
        },
      },
    ];
    const [row]: ModelUsageCost[] = tb.usageCostByModel(entries, prices);
    // 100k input tokens of Sonnet 4.5 (under the long-prompt rate): $0.30, priced (the message recorded no cost)
    expect(row).toMatchObject({ model: 'claude-sonnet-4-5', cost: 0.3, estimated: true, responses: 1 });
    expect(
      tb.responseCost(prices, 'claude-sonnet-4-5', entries[0]?.kind === 'message' ? entries[0].message.usage! : tb.emptyUsage()),
    ).toBeCloseTo(0.3);
  });

  it('importing the library does not load the CLI (commander); runCli loads it when called', () => {
    // a resolve hook that refuses commander, then the library imported under tsx
    const hook = `export async function resolve(s, c, next) { if (s === 'commander') throw new Error('commander loaded'); return next(s, c); }`;
    const script = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
      const tb = await import(${JSON.stringify(`${root}src/index.ts`)});
      console.log(typeof tb.runCli, typeof tb.buildContext);
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).not.toContain('commander loaded');
    expect(r.stdout.trim()).toBe('function function');
  });

  it('runCli runs the CLI when called', async () => {
    const write = process.stdout.write;
    let out = '';
    process.stdout.write = ((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      expect(await tb.runCli(['node', 'threadbase', '--version'], { home: '/nonexistent', env: {} })).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
