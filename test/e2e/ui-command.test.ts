/** `threadbase ui` as a user runs it: a real process serving the viewer shell, assets and data routes. */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { piSession } from './fixtures.js';
import { startUi as startUiProcess } from './ui-process.js';

let child: ChildProcess | undefined;
let home: string | undefined;

async function startUi(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; proc: ChildProcess }> {
  const ui = await startUiProcess(args, env);
  child = ui.proc;
  return ui;
}

afterEach(async () => {
  if (child?.pid && child.exitCode === null) child.kill('SIGTERM');
  child = undefined;
  if (home) await rm(home, { recursive: true, force: true });
});

describe('threadbase ui', () => {
  it('serves the viewer on a free port, wants the key for data, and stops on SIGTERM', async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-ui-home-'));
    const env = { PATH: process.env.PATH, HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
    const { url, proc } = await startUi(['--store', 'memory:', '--port', '0', '--no-open', '--key', 'k-123'], env);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const shell = await fetch(url);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await shell.text()).toContain('/ui/assets/app.js');
    const js = await fetch(`${url}ui/assets/app.js`);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${url}api/v1/web/sessions`)).status).toBe(401);
    const listed = await fetch(`${url}api/v1/web/sessions`, { headers: { authorization: 'Bearer k-123' } });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { total: number; sessions: unknown[] };
    expect(body.total).toBe(0);
    const meta = (await (await fetch(`${url}api/v1/web/meta`, { headers: { authorization: 'Bearer k-123' } })).json()) as {
      targets: string[];
    };
    expect(meta.targets).toContain('pi');
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it("without an index, shows the agents' own sessions (a real pi session file)", async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-ui-home-'));
    const written = await new Sources({ home, env: {} }).driver('pi').writeSession?.(piSession());
    expect(written?.path).toBeTruthy();
    const env = { PATH: process.env.PATH, HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
    const { url } = await startUi(['--port', '0', '--no-open'], env);
    const list = (await (await fetch(`${url}api/v1/web/sessions`)).json()) as {
      sessions: { id: string; source: string; title: string }[];
    };
    const pi = list.sessions.find((s) => s.id === written?.id);
    expect(pi?.source).toBe('pi');
    const page = (await (await fetch(`${url}api/v1/web/sessions/${written?.id}/path?limit=5`)).json()) as {
      total: number;
      entries: { kind: string }[];
    };
    expect(page.total).toBeGreaterThanOrEqual(12);
    expect(page.entries.some((e) => e.kind === 'message')).toBe(true);
    const hits = (await (await fetch(`${url}api/v1/web/search?q=build%20refactor`)).json()) as { hits: { sessionId: string }[] };
    expect(hits.hits.map((h) => h.sessionId)).toContain(written?.id);
  });
});
