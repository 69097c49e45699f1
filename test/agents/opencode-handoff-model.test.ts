/**
 * `handoff --to opencode` of a Claude Code session (model anthropic/claude-opus-5-5) where OpenCode has
 * no Anthropic key: the printed `opencode --session <id>` failed in the real OpenCode 1.18.33 with
 * "UnknownError … Unexpected server error" (its log: ProviderModelNotFoundError, the anthropic provider
 * not loaded), since anthropic, a well-known provider, was taken as usable. Now the command carries
 * `-m <the config's model>` and says why; with the printed -m the real OpenCode resumes the session on
 * the loopback stand-in. With ANTHROPIC_API_KEY set the command is printed as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { type AgentHome, OPENCODE_MODEL, requestsSince, runOpencode, setupAgentHome } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { runCli } from '../helpers/cli.js';
import { textOf } from '../helpers/conversions.js';
import { oneExchange } from '../helpers/sessions.js';

let home: AgentHome;
let claudeId: string;

beforeAll(async () => {
  home = await setupAgentHome();
  // OpenCode creates its database on its first run
  await runOpencode(home, ['run', '-m', OPENCODE_MODEL, 'hello']);
  const sources = new Sources(home.env);
  try {
    const written = await sources.driver('claude').writeSession?.(
      oneExchange({
        id: 'c1',
        project: home.project,
        prompt: 'hi there',
        reply: 'hello back',
        assistant: { model: 'claude-opus-5-5', provider: 'anthropic' },
      }),
    );
    if (!written) throw new Error('claude wrote no session');
    claudeId = written.id;
  } finally {
    await sources.close();
  }
});

afterAll(async () => {
  await home?.close();
});

const handoff = (env: Record<string, string>) =>
  runCli({ ...home.env, env: { ...home.env.env, ...env } }, [
    'handoff',
    claudeId,
    '--source',
    'claude',
    '--to',
    'opencode',
    '--no-index',
  ]);

describe('handoff into OpenCode of a session on a provider it has no key for', () => {
  it('prints -m with the config’s model, and the real OpenCode resumes with it (without, it fails)', async () => {
    const r = await handoff({});
    expect(r.code, r.err).toBe(0);
    const command = r.out.match(/resume it with:\n {2}(cd .* && opencode --session '?(ses_[^' ]+)'? -m (\S+))\n/);
    expect(command?.[3]).toBe(OPENCODE_MODEL);
    expect(r.out).toContain('model anthropic/claude-opus-5-5 is one OpenCode cannot use here');
    const id = command?.[2] as string;

    // the command without -m, as printed before: OpenCode's opaque failure, no model asked
    const mark = home.standIn.messageRequests().length;
    const bare = await runOpencode(home, ['run', '--session', id, 'first-probe'], home.project, { mayFail: true });
    expect(`${bare.stdout}${bare.stderr}`).toContain('Unexpected server error');
    expect(requestsSince(home, mark)).toEqual([]);

    // as printed: resumed on the stand-in, the session's history sent
    await runOpencode(home, ['run', '--session', id, '-m', command?.[3] as string, 'second-probe']);
    const sent = requestsSince(home, mark).find(
      (q) => textOf(q.messages.at(-1)?.content as string | Block[]).at(-1) === 'second-probe',
    );
    expect(sent?.messages.flatMap((m) => textOf(m.content as string | Block[]))).toEqual(
      expect.arrayContaining(['hi there', 'hello back', 'second-probe']),
    );
  });

  it('with an Anthropic key set, prints the command as before', async () => {
    const r = await handoff({ ANTHROPIC_API_KEY: 'sk-test' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/resume it with:\n {2}cd .* && opencode --session '?ses_\S+'?\n$/);
    expect(r.out).not.toContain('cannot use');
  });
});
