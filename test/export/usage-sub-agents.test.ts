/**
 * The HTML export's usage table counts the session's sub-agents: a row per sub-agent session (the
 * store's, and an in-file side chain of an older Claude Code session) and a total row of the session
 * and its sub-agents together, as `threadbase stats` counts those sessions. Before, the table held
 * the session's own models only, so what its sub-agents spent was in no total of the page.
 * In chromium, on the sessions the real agents wrote (and Claude Code's older shapes), exported
 * through the CLI from a temp home, and compared with `threadbase stats --by session`.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser, screenshot, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

/** A session, its sub-agent sessions (their own rows in `stats`) and the rows its in-file side chains add (tokens in, out). */
const RUNS = [
  { agent: 'claude', parent: '0afea31a-5ccc-4b41-8d19-4c8571cb3a03', children: ['ac5303661b5759184'], sideChains: [] },
  {
    agent: 'claude (older, an in-file side chain)',
    parent: '11111111-1111-4111-8111-111111111111',
    children: ['abcd1234'],
    // "old in-file side chain": one response of 1 token in, 1 out, inside the parent's file
    sideChains: [{ label: 'sub-agent: sc1', input: 1, output: 1 }],
  },
  {
    agent: 'qwen',
    parent: '1865e916-c5ec-4265-a939-6e90168805d2',
    children: ['general-purpose-toolu_standin_0001'],
    sideChains: [],
  },
  {
    agent: 'codex',
    parent: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    children: ['01a21356-267a-73e0-9768-3144907e69c8'],
    sideChains: [],
  },
  {
    agent: 'cline',
    parent: '1795666477967_183oc',
    children: ['1795666477967_183oc__agent_1795666478619_7xmhpw'],
    sideChains: [],
  },
] as const;

interface StatsRow {
  key: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  messages: number;
  cost: number;
  /** false: the model has no price (the stand-in's): the page shows no cost, '—' */
  costKnown: boolean;
}

/** A row of the page's usage table: its label and numbers as shown. */
interface TableRow {
  cls: string;
  cells: string[];
}

describe.skipIf(skipBrowser)('the exported page counts the sub-agents’ usage', () => {
  let fx: FixtureHome;
  let browser: Browser;
  let stats: Map<string, StatsRow>;

  beforeAll(async () => {
    fx = await fixtureHome({
      prefix: 'threadbase-export-usage-',
      fixtures: ['claude', 'claudeOlder', 'qwen', 'codex', 'cline'],
    });
    browser = await launchBrowser();
    const rows = JSON.parse(await runCliOk(fx.env, ['stats', '--by', 'session', '--json'])) as StatsRow[];
    stats = new Map(rows.map((r) => [r.key, r]));
  });

  afterAll(async () => {
    await browser?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  const tableOf = async (id: string, extra: string[] = []): Promise<TableRow[]> => {
    const file = join(fx.home, `${id}.html`);
    await runCliOk(fx.env, ['export', id, '--format', 'html', '-o', file, ...extra]);
    const { page } = browser;
    await page.setContent(await readFile(file, 'utf8'));
    await page.locator('details.usage > summary').click();
    return page
      .locator('details.usage tr:has(td)')
      .evaluateAll((trs) =>
        trs.map((tr) => ({ cls: tr.className, cells: Array.from(tr.children, (td) => td.textContent ?? '') })),
      );
  };

  const statsOf = (id: string): StatsRow => {
    const row = stats.get(id);
    if (!row) throw new Error(`no stats row for ${id}`);
    return row;
  };

  /** input, output, cache read, cache write and responses as the table shows them */
  const numbers = (r: TableRow) => [r.cells[1], r.cells[2], r.cells[3], r.cells[4], r.cells[6]].map(Number);
  const statsNumbers = (r: Omit<StatsRow, 'key' | 'cost' | 'costKnown'>) => [
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheWriteTokens,
    r.messages,
  ];

  for (const run of RUNS) {
    it(`${run.agent}: a row per sub-agent, and the total as stats counts the session and its sub-agents`, async () => {
      for (const extra of [['--no-index'], []]) {
        const rows = await tableOf(run.parent, extra);
        const subRows = rows.filter((r) => r.cls === 'sub-agent');
        expect(subRows).toHaveLength(run.children.length + run.sideChains.length);
        run.children.forEach((child, i) => {
          expect(numbers(subRows[i] as TableRow)).toEqual(statsNumbers(statsOf(child)));
        });
        run.sideChains.forEach((chain, i) => {
          const row = subRows[run.children.length + i] as TableRow;
          expect(row.cells[0]).toBe(chain.label);
          expect([row.cells[1], row.cells[2]].map(Number)).toEqual([chain.input, chain.output]);
        });
        // the total: the session and its sub-agents, as `stats` counts them (an in-file side chain is in the parent's row)
        const sessions = [run.parent, ...run.children].map(statsOf);
        const sum = sessions.reduce(
          (a, r) => ({
            inputTokens: a.inputTokens + r.inputTokens,
            outputTokens: a.outputTokens + r.outputTokens,
            cacheReadTokens: a.cacheReadTokens + r.cacheReadTokens,
            cacheWriteTokens: a.cacheWriteTokens + r.cacheWriteTokens,
            messages: a.messages + r.messages,
            cost: a.cost + r.cost,
          }),
          { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, messages: 0, cost: 0 },
        );
        const total = rows.find((r) => r.cls === 'total') as TableRow;
        expect(numbers(total)).toEqual(statsNumbers(sum));
        if (sessions.some((r) => r.costKnown))
          expect(total.cells[7]).toMatch(new RegExp(`^≈?\\$${sum.cost.toFixed(4).replace('.', '\\.')}$`));
        else expect(total.cells[7]).toBe('—');
        // the session's own rows and the sub-agents' add up to the total
        const own = rows.filter((r) => r.cls === '');
        const added = [...own, ...subRows].map(numbers).reduce((a, n) => a.map((x, i) => x + (n[i] ?? 0)));
        expect(added).toEqual(numbers(total));
        const { page } = browser;
        await expect(page.locator('details.usage > summary').textContent()).resolves.toContain(
          `over ${sum.messages} responses (${subRows.length} sub-agent${subRows.length > 1 ? 's' : ''} included)`,
        );
      }
      await screenshot(browser.page, `export-usage-sub-agents-${run.parent}`);
      expect(browser.errors).toEqual([]);
    });
  }

  it('a session that ran no sub-agent keeps its table as it was: no sub-agent rows', async () => {
    const rows = await tableOf('abcd1234', ['--no-index']);
    expect(rows.filter((r) => r.cls !== '')).toEqual([]);
    expect(numbers(rows[0] as TableRow)).toEqual(statsNumbers(statsOf('abcd1234')));
  });
});
