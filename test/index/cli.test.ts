import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type CliResult, runCli } from '../helpers/cli.js';

let dir: string;
let env: DriverEnv;
const SID = '9e1f3a55-6c1b-4d1e-9a8b-2f0c7d9e0a11';

/** A Claude Code transcript with one response split over two lines that both carry its usage. */
function claudeLines(): string {
  const base = { sessionId: SID, cwd: '/work/proj-a', version: '2.0.0', userType: 'external', isSidechain: false };
  const usage = { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 };
  const lines = [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      timestamp: '2025-06-01T10:00:00.000Z',
      message: { role: 'user', content: 'find the wombatron config' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      timestamp: '2025-06-01T10:00:01.000Z',
      requestId: 'req_1',
      message: {
        id: 'msg_split',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'thinking', thinking: 'look in etc', signature: 'sig' }],
        stop_reason: null,
        usage,
      },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'a1',
      timestamp: '2025-06-01T10:00:02.000Z',
      requestId: 'req_1',
      message: {
        id: 'msg_split',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat /etc/wombat.conf' } }],
        stop_reason: 'tool_use',
        usage,
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a2',
      timestamp: '2025-06-01T10:00:03.000Z',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'port=8443 koalaflag=on' }] },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a3',
      parentUuid: 'r1',
      timestamp: '2025-06-02T09:00:00.000Z',
      requestId: 'req_2',
      message: {
        id: 'msg_two',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'It listens on 8443.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** The CLI in-process against this test's temp HOME. */
const run = (args: string[]): Promise<CliResult> => runCli(env, args);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-index-cli-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const projectDir = join(dir, '.claude', 'projects', '-work-proj-a');
  await mkdir(projectDir, { recursive: true });
  await writeFile(join(projectDir, `${SID}.jsonl`), claudeLines());
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('index commands', () => {
  it('sync --json reports what it read', async () => {
    const r = await run(['sync', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.reread).toBeGreaterThanOrEqual(1);
    expect(report.index).toBe(join(dir, '.threadbase', 'index.db'));
  });

  it('search --json finds tool output and tool input, best first, with highlighted snippets', async () => {
    const r = await run(['search', 'koalaflag', '--json']);
    expect(r.code).toBe(0);
    const hits = JSON.parse(r.out);
    expect(hits.length).toBe(1);
    expect(hits[0]).toMatchObject({ sessionId: SID, source: 'claude', project: '/work/proj-a', role: 'tool' });
    expect(hits[0].snippet).toContain('[koalaflag]');
    expect(typeof hits[0].score).toBe('number');
    const byTool = JSON.parse((await run(['search', 'wombat', '--tool', 'Bash', '--json'])).out);
    expect(byTool.map((h: { role: string }) => h.role)).toContain('assistant');
    // a Claude Code tool result carries no tool name; it is found by its call's
    const output = JSON.parse((await run(['search', 'koalaflag', '--tool', 'Bash', '--json'])).out);
    expect(output.map((h: { role: string }) => h.role)).toEqual(['tool']);
    expect(JSON.parse((await run(['search', 'koalaflag', '--tool', 'Read', '--json'])).out)).toEqual([]);
    const none = JSON.parse((await run(['search', 'wombat', '--role', 'system', '--json'])).out);
    expect(none).toEqual([]);
  });

  it('stats counts the split response once and prices what the agent did not cost', async () => {
    const r = await run(['stats', '--by', 'session', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out);
    const row = rows.find((x: { key: string }) => x.key === SID);
    expect(row).toMatchObject({
      source: 'claude',
      inputTokens: 110,
      outputTokens: 55,
      cacheReadTokens: 2000,
      cacheWriteTokens: 300,
      messages: 2,
    });
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
    expect(row.cost).toBeCloseTo((110 * 3 + 55 * 15 + 2000 * 0.3 + 300 * 3.75) / 1e6, 9);
    const days = JSON.parse((await run(['stats', '--by', 'day', '--json'])).out);
    expect(days.map((d: { key: string }) => d.key)).toEqual(['2025-06-01', '2025-06-02']);
    expect(days[0].inputTokens).toBe(100);
    const since = JSON.parse((await run(['stats', '--by', 'model', '--since', '2025-06-02', '--json'])).out);
    expect(since).toEqual([expect.objectContaining({ key: 'claude-sonnet-4-5-20250929', inputTokens: 10, messages: 1 })]);
  });

  it('a user price file overrides the bundled table', async () => {
    const file = join(dir, 'my-prices.json');
    await writeFile(file, JSON.stringify({ 'claude-sonnet-4-5': { input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 } }));
    const rows = JSON.parse((await run(['stats', '--by', 'source', '--prices', file, '--json'])).out);
    expect(rows[0].key).toBe('claude');
    expect(rows[0].cost).toBeCloseTo((110 * 1000) / 1e6, 9);
  });
});

describe('sync progress', () => {
  it('draws a progress bar on a terminal and stays quiet when piped', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-progress-'));
    try {
      const projectDir = join(home, '.claude', 'projects', '-work-proj-a');
      await mkdir(projectDir, { recursive: true });
      for (let i = 0; i < 3; i++)
        await writeFile(
          join(projectDir, `${SID.slice(0, -1)}${i}.jsonl`),
          claudeLines().replaceAll(SID, `${SID.slice(0, -1)}${i}`),
        );
      const vars = { ...process.env, HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
      const cli = `${JSON.stringify(process.execPath)} --import tsx src/cli/run.ts sync --source claude`;
      // util-linux `script` runs the command on a pseudo-terminal and copies what it drew
      const onTty = spawnSync('script', ['-qec', cli, '/dev/null'], { env: vars, encoding: 'utf8', timeout: 60_000 });
      expect(onTty.status, onTty.stderr).toBe(0);
      expect(onTty.stdout).toMatch(/sync \[[^\]]*\] 3\/3 claude/);
      expect(onTty.stdout).toContain('indexed 3 sessions');
      await rm(join(home, '.threadbase'), { recursive: true, force: true });
      const piped = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'sync', '--source', 'claude'], {
        env: vars,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(piped.status, piped.stderr).toBe(0);
      expect(piped.stderr).toContain('indexed 3 sessions in');
      expect(piped.stderr).not.toContain('sync [');
      expect(piped.stdout).toBe('');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('export', () => {
  it('html is one self-contained page with collapsible tool calls holding input and output', async () => {
    const r = await run(['export', SID, '--format', 'html']);
    expect(r.code).toBe(0);
    const html = r.out;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toMatch(/<details class="tool"><summary><span class="tool-name">Bash<\/span>/);
    expect(html).toContain('cat /etc/wombat.conf');
    expect(html).toContain('port=8443 koalaflag=on');
    expect(html).toContain('class="thinking"');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/);
    // the result is shown inside its call, not again on its own
    expect(html.split('koalaflag=on').length - 1).toBe(1);
  });

  it('md and json, to a file with -o', async () => {
    const md = await run(['export', SID, '--format', 'md']);
    expect(md.out).toContain('## user');
    expect(md.out).toContain('find the wombatron config');
    // the cost `stats` gives the session, marked as priced (Claude Code records none)
    const row = JSON.parse((await run(['stats', '--by', 'session', '--json'])).out).find((x: { key: string }) => x.key === SID);
    expect(row.cost).toBeGreaterThan(0);
    expect(md.out).toContain(`; cost ≈$${row.cost.toFixed(4)}`);
    const file = join(dir, 'export-prices.json');
    await writeFile(file, JSON.stringify({ 'claude-sonnet-4-5': { input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 } }));
    const own = await run(['export', SID, '--format', 'md', '--prices', file]);
    expect(own.out).toContain(`; cost ≈$${((110 * 1000) / 1e6).toFixed(4)}`);
    const out = join(dir, 'out.json');
    const r = await run(['export', SID, '--format', 'json', '-o', out]);
    expect(r.code).toBe(0);
    const { readFile } = await import('node:fs/promises');
    const parsed = JSON.parse(await readFile(out, 'utf8'));
    expect(parsed.id).toBe(SID);
    expect(parsed.entries.filter((e: { kind: string }) => e.kind === 'message').length).toBe(5);
  });
});

describe('reading commands use the index when it is fresh, the files when it is not', () => {
  it('sessions, show and context: from a fresh index, and from the files once something changed', async () => {
    const { readFile, stat, utimes, appendFile } = await import('node:fs/promises');
    const { Sources } = await import('../../src/formats/registry.js');
    const { openIndexIfFresh, openViaIndex } = await import('../../src/stores/index-sync/fresh.js');
    const file = join(dir, '.claude', 'projects', '-work-proj-a', `${SID}.jsonl`);
    // a whole-second mtime, so that it can be put back exactly below
    await utimes(file, 1_750_000_000, 1_750_000_000);
    expect((await run(['sync', '--json'])).code).toBe(0);
    const fromFiles = JSON.parse((await run(['sessions', '--json', '--no-index'])).out);
    expect(JSON.parse((await run(['sessions', '--json'])).out)).toEqual(fromFiles);
    const fresh = await openIndexIfFresh(env, new Sources(env));
    expect(fresh).toBeDefined();
    await fresh?.close();

    // The same bytes count, the same mtime: nothing a listing can see changed, so the index answers
    // (with the title it read), while the files show the edit.
    const st = await stat(file);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('find the wombatron config', 'find the numbatron config'));
    await utimes(file, 1_750_000_000, 1_750_000_000);
    expect((await stat(file)).mtimeMs).toBe(st.mtimeMs);
    const fromIndex = JSON.parse((await run(['sessions', '--json'])).out);
    expect(fromIndex.find((s: { id: string }) => s.id === SID).title).toBe('find the wombatron config');
    const viaFiles = JSON.parse((await run(['sessions', '--json', '--no-index'])).out);
    expect(viaFiles.find((s: { id: string }) => s.id === SID).title).toBe('find the numbatron config');
    // show and context resolve the id (here a prefix) through the index, then read the agent's own file
    expect(await openViaIndex(env, new Sources(env), SID.slice(0, 8))).toMatchObject({ info: { id: SID, source: 'claude' } });
    const shown = JSON.parse((await run(['show', SID.slice(0, 8), '--json'])).out);
    expect(JSON.stringify(shown)).toContain('numbatron');
    expect((await run(['show', SID.slice(0, 8), '--json', '--no-index'])).out).toBe(JSON.stringify(shown, null, 2) + '\n');
    const ctxOut = (await run(['context', SID.slice(0, 8), '--format', 'anthropic'])).out;
    expect(ctxOut).toBe((await run(['context', SID.slice(0, 8), '--format', 'anthropic', '--no-index'])).out);
    expect(ctxOut).toContain('numbatron');

    // A change a listing sees (the file grew): the index is not fresh, every command reads the files.
    await appendFile(file, `${JSON.stringify({ type: 'custom-title', customTitle: 'retitled', sessionId: SID })}\n`);
    expect(await openIndexIfFresh(env, new Sources(env))).toBeUndefined();
    expect(await openViaIndex(env, new Sources(env), SID)).toBeUndefined();
    const after = JSON.parse((await run(['sessions', '--json'])).out);
    expect(after.find((s: { id: string }) => s.id === SID).title).toBe('retitled');
    expect(JSON.parse((await run(['show', SID, '--json'])).out).title).toBe('retitled');
    // and a sync makes it fresh again
    expect((await run(['sync', '--json'])).code).toBe(0);
    expect(JSON.parse((await run(['sessions', '--json'])).out).find((s: { id: string }) => s.id === SID).title).toBe('retitled');
    const again = await openIndexIfFresh(env, new Sources(env));
    expect(again).toBeDefined();
    await again?.close();
  });
});
