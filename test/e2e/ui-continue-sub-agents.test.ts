/**
 * The viewer's "Continue in…" carries sub-agent sessions as `threadbase convert` does: `threadbase ui`
 * run as a user runs it (a real process, over HTTP), on the agents' own files and on the local index,
 * converts the real Claude Code session whose Agent call ran a sub-agent into pi; the answer lists the
 * sub-agent written under the new session, which pi's store holds as its child naming the same call.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { startUi, type UiProcess } from './ui-process.js';

const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_CHILD = 'ac5303661b5759184';
const CLAUDE_CALL = 'toolu_standin_0003';

interface WrittenChild {
  id: string;
  source: string;
  path: string | null;
  parentToolCallId: string | null;
  children: WrittenChild[];
}

let fx: FixtureHome;
let ui: UiProcess | undefined;

beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-ui-sub-agents-', fixtures: ['claude'] });
});
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

async function continueInPi(): Promise<void> {
  ui = await startUi(['--port', '0', '--no-open'], { PATH: process.env.PATH, ...fx.env.env });
  const res = await fetch(`${ui.url}api/v1/web/sessions/${CLAUDE_PARENT}/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(ui.url).origin },
    body: JSON.stringify({ to: 'pi' }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = JSON.parse(text) as { mode: string; id: string; source: string; children?: WrittenChild[] };
  expect(body).toMatchObject({ mode: 'local', source: 'pi' });
  expect(body.children, text).toHaveLength(1);
  const row = body.children?.[0] as WrittenChild;
  expect(row).toMatchObject({ source: 'pi', parentToolCallId: CLAUDE_CALL, children: [] });
  expect(row.path).toBeTruthy();
  const sources = new Sources(fx.env);
  expect((await sources.driver('pi').listSessions({ parentId: body.id })).map((s) => s.id)).toEqual([row.id]);
  const child = await sources.driver('pi').getSession(row.id);
  expect(child).toMatchObject({ parentId: body.id, parentToolCallId: CLAUDE_CALL });
  const original = await sources.driver('claude').getSession(CLAUDE_CHILD);
  const textOf = (s: typeof child) =>
    (s?.entries ?? []).flatMap((e) =>
      e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : [],
    );
  expect(textOf(child)).toEqual(textOf(original));
}

describe('"Continue in…" in threadbase ui', () => {
  it("carries the sub-agent from the agents' own files", async () => {
    await continueInPi();
    expect(ui?.stdout()).toContain('(agents store');
  });

  it('carries the sub-agent from the local index', async () => {
    await runCliOk(fx.env, ['sync', '--source', 'claude']);
    await continueInPi();
    expect(ui?.stdout()).toContain('(sqlite store');
  });
});
