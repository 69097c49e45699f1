/**
 * A session whose project directory is not on this machine, converted into the real OpenCode
 * (1.18, on the loopback Anthropic stand-in). OpenCode resumes a session in its own directory
 * whatever directory it is started in: with that directory missing, `opencode run -s` fails with
 * "Unexpected server error" (its log: ENOENT on realPath of the directory) before asking the model.
 * So `threadbase convert --to opencode` warns, naming the directory and `--project`; the session it
 * wrote resumes once the directory exists, and `--project <dir>` writes it under one that does.
 *
 * (Started in another directory than the session's, OpenCode 1.18 runs the turn there but prints
 * nothing and does not exit, for its own sessions too: still running after two minutes; hence the
 * `cd` of threadbase's resume command, and every resume here runs in the session's directory.)
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { type AgentHome, OPENCODE_MODEL, requestsSince, runOpencode, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import type { Block } from '../helpers/claude-requests.js';
import { runCli } from '../helpers/cli.js';
import { readSession, textOf, type Written } from '../helpers/conversions.js';
import { oneExchange } from '../helpers/sessions.js';

let home: AgentHome;
let missing: string;
let piId: string;

beforeAll(async () => {
  home = await setupAgentHome();
  // OpenCode creates its database on its first run
  await runOpencode(home, ['run', '-m', OPENCODE_MODEL, 'hello']);
  missing = join(home.root, 'gone', 'project');
  const sources = new Sources(home.env);
  try {
    const pi = await sources
      .driver('pi')
      .writeSession?.(oneExchange({ id: 'p1', project: missing, prompt: 'hi there', reply: 'hello back' }));
    if (!pi) throw new Error('pi wrote no session');
    piId = pi.id;
  } finally {
    await sources.close();
  }
});

afterAll(async () => {
  await home?.close();
});

/** `threadbase convert <pi session> --to opencode --json [args]`: the written session and the warnings. */
async function convertToOpencode(args: string[] = []): Promise<{ written: Written; err: string }> {
  const r = await runCli(home.env, ['convert', piId, '--source', 'pi', '--to', 'opencode', '--json', '--no-index', ...args]);
  if (r.code !== 0) throw new Error(`convert exited ${r.code}: ${r.err}`);
  return { written: JSON.parse(r.out) as Written, err: r.err };
}

/** The role and texts of each message OpenCode sent when it resumed `id` in `cwd` with `probe`. */
async function resumeIn(cwd: string, id: string, probe: string): Promise<{ role: string; texts: string[] }[]> {
  const mark = home.standIn.messageRequests().length;
  // one word an argument: OpenCode quotes an argument with a space in the prompt
  await runOpencode(home, ['run', '-s', id, '-m', OPENCODE_MODEL, ...probe.split(' ')], cwd);
  const req = requestsSince(home, mark).find((r: AnthropicRequest) => {
    const last = r.messages.at(-1);
    return (r.tools?.length ?? 0) > 0 && last?.role === 'user' && textOf(last.content as string | Block[]).at(-1) === probe;
  });
  if (!req) throw new Error(`OpenCode sent no request ending with ${probe}`);
  return req.messages.map((m) => ({ role: m.role, texts: textOf(m.content as string | Block[]) }));
}

describe('OpenCode and a converted session whose project directory does not exist here', () => {
  it('convert warns; OpenCode fails at once (no hang) without the directory, and resumes the session once it exists', async () => {
    const { written, err } = await convertToOpencode();
    expect(err).toContain(
      `threadbase: warning: project directory ${missing} of session ${piId} does not exist on this machine, and opencode resumes a session in its project directory`,
    );
    expect(err).toContain('--project <dir>');
    expect((await readSession(home, 'opencode', written.id)).project).toBe(missing);

    // what the warning is about: OpenCode's own failure, an exit (1), not a hang (which would end
    // in the helper's two-minute kill, `exited null`), and no model request
    const mark = home.standIn.messageRequests().length;
    const failed = await runOpencode(home, ['run', '-s', written.id, '-m', OPENCODE_MODEL, 'probe']).then(
      () => 'exited 0',
      (e: Error) => e.message,
    );
    expect(failed).toMatch(/exited 1:/);
    expect(failed).toContain('Unexpected server error');
    expect(requestsSince(home, mark)).toHaveLength(0);

    // the way out the warning names first: the directory made, the same session resumes there (the
    // failed attempt's prompt, which OpenCode kept, sent in one user turn with the new one)
    await fs.mkdir(missing, { recursive: true });
    try {
      expect(await resumeIn(missing, written.id, 'probe created')).toEqual([
        { role: 'user', texts: ['hi there'] },
        { role: 'assistant', texts: ['hello back'] },
        { role: 'user', texts: ['probe', 'probe created'] },
      ]);
    } finally {
      await fs.rm(missing, { recursive: true, force: true });
    }
  });

  it('convert --project <dir> writes it under that directory, where OpenCode resumes it, with no warning', async () => {
    const { written, err } = await convertToOpencode(['--project', home.project]);
    expect(err).toBe('');
    expect((await readSession(home, 'opencode', written.id)).project).toBe(home.project);
    expect(await resumeIn(home.project, written.id, 'probe project')).toEqual([
      { role: 'user', texts: ['hi there'] },
      { role: 'assistant', texts: ['hello back'] },
      { role: 'user', texts: ['probe project'] },
    ]);
  });
});
