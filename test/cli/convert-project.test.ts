/**
 * `convert`/`handoff` of a session whose project directory is not on this machine (from another
 * machine, a team server, a deleted checkout): every agent resumes a session in its project
 * directory (OpenCode fails with "Unexpected server error" without it, pi refuses; see
 * test/agents/opencode-missing-dir.test.ts), so convert says so in the same words for every agent
 * target, and `--project <dir>` writes the session under a directory that exists instead.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { shellQuote } from '../../src/formats/shared/shell.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { readSession } from '../helpers/conversions.js';
import { oneExchange } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temp HOME with OpenCode's database (the fixture's) and a pi session whose project is `project`. */
async function homeWithPiSession(
  project: (root: string) => string,
): Promise<{ env: DriverEnv; root: string; id: string; project: string }> {
  const root = mkdtempSync(join(tmpdir(), 'tb-convert-project-'));
  temps.push(root);
  const data = join(root, '.local', 'share', 'opencode');
  mkdirSync(data, { recursive: true });
  copyFileSync(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), join(data, 'opencode.db'));
  const env: DriverEnv = { home: root, env: {} };
  const dir = project(root);
  const sources = new Sources(env);
  try {
    const written = await sources
      .driver('pi')
      .writeSession?.(oneExchange({ id: 'p1', project: dir, prompt: 'hi there', reply: 'hello back' }));
    if (!written) throw new Error('pi wrote no session');
    return { env, root, id: written.id, project: dir };
  } finally {
    await sources.close();
  }
}

const missingIn = (root: string) => join(root, 'gone', 'project');

interface Row {
  id: string;
  source: string;
  warnings?: string[];
}

describe('convert a session whose project directory does not exist here', () => {
  it.each(['opencode', 'pi', 'claude'])('--to %s warns, naming the directory and --project', async (to) => {
    const h = await homeWithPiSession(missingIn);
    const r = await runCli(h.env, ['convert', h.id, '--source', 'pi', '--to', to, '--no-index']);
    expect(r.code).toBe(0);
    const expected = `threadbase: warning: project directory ${h.project} of session ${h.id} does not exist on this machine, and ${to} resumes a session in its project directory: create it (or clone the project there) before resuming, or convert again with --project <dir> to write the session under a directory that exists\n`;
    // once, and in the same words for every agent
    expect(r.err.split(expected)).toHaveLength(2);
    // still written, faithful to its directory: creating it makes the session resumable
    expect(r.out).toMatch(new RegExp(`^wrote ${to} session `));
  });

  it('--json warns on stderr, its `warnings` (what the target could not keep) left as they are', async () => {
    const h = await homeWithPiSession(missingIn);
    const r = await runCli(h.env, ['convert', h.id, '--source', 'pi', '--to', 'opencode', '--json', '--no-index']);
    expect(r.err).toContain(`project directory ${h.project} of session ${h.id} does not exist`);
    const row = JSON.parse(r.out) as Row;
    expect(row.warnings).toBeUndefined();
    expect((await readSession(h, 'opencode', row.id)).project).toBe(h.project);
  });

  it('--project <dir> writes the session under that directory, with no warning', async () => {
    const h = await homeWithPiSession(missingIn);
    const here = join(h.root, 'here');
    mkdirSync(here);
    for (const to of ['opencode', 'pi', 'claude']) {
      const r = await runCli(h.env, ['convert', h.id, '--source', 'pi', '--to', to, '--project', here, '--json', '--no-index']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe('');
      const row = JSON.parse(r.out) as Row;
      expect(row.warnings).toBeUndefined();
      expect((await readSession(h, to, row.id)).project).toBe(here);
    }
  });

  it('handoff --project prints the resume command in that directory', async () => {
    const h = await homeWithPiSession(missingIn);
    const here = join(h.root, 'here');
    mkdirSync(here);
    const r = await runCli(h.env, ['handoff', h.id, '--source', 'pi', '--to', 'opencode', '--project', here, '--no-index']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`cd ${shellQuote(here)} && opencode --session ses_`);
  });

  it('--project that is no directory fails, naming it, and writes nothing', async () => {
    const h = await homeWithPiSession(missingIn);
    const count = async () => {
      const sources = new Sources(h.env);
      try {
        return (await sources.driver('opencode').listSessions()).length;
      } finally {
        await sources.close();
      }
    };
    const before = await count();
    const r = await runCli(h.env, [
      'convert',
      h.id,
      '--source',
      'pi',
      '--to',
      'opencode',
      '--project',
      join(h.root, 'nope'),
      '--no-index',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--project ${join(h.root, 'nope')}: no such directory`);
    expect(await count()).toBe(before);
  });
});

describe('convert a session whose project directory exists', () => {
  it('warns of nothing', async () => {
    const h = await homeWithPiSession((root) => {
      const dir = join(root, 'project');
      mkdirSync(dir);
      return dir;
    });
    const r = await runCli(h.env, ['convert', h.id, '--source', 'pi', '--to', 'opencode', '--no-index']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
  });

  it('--to threadbase (a store, which resumes nothing) warns of nothing either', async () => {
    const h = await homeWithPiSession(missingIn);
    const r = await runCli(h.env, ['convert', h.id, '--source', 'pi', '--to', 'threadbase', '--no-index']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('does not exist on this machine');
  });
});
