/**
 * `threadbase convert` / `handoff` on a branched pi session, into the real stores of Claude Code,
 * pi and OpenCode in a temp HOME: warnings for what a target cannot keep (in --json output and on
 * stderr), --all-branches (the tree where the target has trees, one session per branch where it
 * has not, the current branch first), --at, and the resume command.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import '../../src/formats/all.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const OPENCODE_DB = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode', 'opencode.db');
const t = (s: number) => new Date(Date.UTC(2026, 0, 3, 0, 0, s)).toISOString();

let home: string;
let env: DriverEnv;
let sources: Sources;
let piId: string;

/** u1 → a1 (abandoned branch) and u1 → a2 → u3 → a3 (current): a tree, with signed thinking and costs. */
function branched(project: string): Session {
  const model = { model: 'claude-sonnet-4-5', provider: 'anthropic', api: 'anthropic-messages' };
  const entries: Entry[] = [
    messageEntry('u1', null, t(1), textMessage('user', 'pick one')),
    messageEntry('a1', 'u1', t(2), { role: 'assistant', ...model, cost: 0.5, parts: [{ type: 'text', text: 'the first' }] }),
    messageEntry('a2', 'u1', t(3), {
      role: 'assistant',
      ...model,
      cost: 0.25,
      parts: [
        { type: 'thinking', thinking: 'the second is better', signature: 'c2lnLWEy' },
        { type: 'text', text: 'the second' },
      ],
    }),
    messageEntry('u3', 'a2', t(4), textMessage('user', 'why?')),
    messageEntry('a3', 'u3', t(5), {
      role: 'assistant',
      ...model,
      cost: 0.125,
      parts: [{ type: 'text', text: 'it is shorter' }],
    }),
  ];
  return {
    id: 'branched',
    source: 'threadbase',
    project,
    title: 'pick one',
    createdAt: t(0),
    updatedAt: t(5),
    messageCount: 5,
    entries,
    leafId: 'a3',
  };
}

function cli(...args: string[]) {
  return runCli(env, args);
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-convert-cli-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  copyFileSync(OPENCODE_DB, join(home, '.local', 'share', 'opencode', 'opencode.db'));
  env = { home, env: {} };
  sources = new Sources(env);
  const pi = sources.driver('pi');
  if (!pi.writeSession) throw new Error('the pi driver cannot write');
  piId = (await pi.writeSession(branched(join(home, 'project')))).id;
});
afterAll(async () => {
  await sources?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('convert and handoff on the CLI', () => {
  it('warns (in --json and on stderr) what Claude Code cannot keep: the recorded costs', async () => {
    const r = await cli('convert', piId, '--to', 'claude', '--json');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { id: string; source: string; path: string; warnings: string[] };
    expect(out.source).toBe('claude');
    expect(out.warnings.join('\n')).toMatch(/Claude Code records no cost per message; .* \(2\)/);
    expect(r.err).toMatch(/threadbase: warning: .*Claude Code records no cost per message/);
    // the current branch only, with the signed thinking
    const ctx = await new Sources(env).driver('claude').getContext(out.id);
    expect(ctx.messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(' '))).toEqual([
      'pick one',
      'thinking the second',
      'why?',
      'it is shorter',
    ]);
    expect(ctx.messages[1]?.parts[0]).toMatchObject({ type: 'thinking', signature: 'c2lnLWEy' });
  });

  it('warns what Codex cannot keep: the recorded costs, and that it does not send back the signed thinking', async () => {
    const r = await cli('convert', piId, '--to', 'codex', '--json');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { id: string; source: string; warnings: string[] };
    expect(out.source).toBe('codex');
    const w = out.warnings.join('\n');
    expect(w).toMatch(/codex records no cost per message; .* \(2\)/);
    expect(w).toMatch(/another model's thinking is kept in the rollout .*sends only OpenAI reasoning.* \(1\)/);
    expect(r.err).toMatch(/threadbase: warning: .*codex records no cost per message/);
  });

  it('--all-branches: one session per branch in OpenCode (current first), the whole tree in pi and Claude Code', async () => {
    const r = await cli('convert', piId, '--to', 'opencode', '--all-branches', '--json');
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(r.out) as { id: string; source: string }[];
    expect(rows).toHaveLength(2);
    const lastText = async (agent: string, id: string) => {
      const msgs = (await new Sources(env).driver(agent).getContext(id)).messages;
      return msgs.map((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')).at(-1);
    };
    expect(await lastText('opencode', (rows[0] as { id: string }).id)).toBe('it is shorter');
    expect(await lastText('opencode', (rows[1] as { id: string }).id)).toBe('the first');
    for (const target of ['pi', 'claude']) {
      const one = await cli('convert', piId, '--to', target, '--all-branches', '--json');
      expect(one.code, one.err).toBe(0);
      const id = (JSON.parse(one.out) as { id: string }).id;
      const tree = (await new Sources(env).driver(target).getSession(id)) as Session;
      // both answers to the first prompt, as siblings
      const textOf = (e: Entry) =>
        e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') : '';
      const first = tree.entries.find((e) => textOf(e) === 'the first');
      const second = tree.entries.find((e) => textOf(e) === 'the second');
      expect(first, target).toBeDefined();
      expect(first?.parentId, target).toBe(second?.parentId);
      // resumed at the branch the user was on
      expect(await lastText(target, id), target).toBe('it is shorter');
    }
  });

  it('--all-branches into Claude Code resumes at the current leaf even when it is not the last entry', async () => {
    const onFirst = { ...branched(join(home, 'project')), leafId: 'a1' };
    const [written] = await convertSessionAll(onFirst, { to: 'claude', env, allBranches: true });
    const msgs = (await new Sources(env).driver('claude').getContext(written?.id as string)).messages;
    expect(msgs.map((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''))).toEqual([
      'pick one',
      'the first',
    ]);
  });

  it('--at converts the path to an entry; handoff prints the command that resumes it', async () => {
    const conv = JSON.parse((await cli('convert', piId, '--to', 'opencode', '--at', 'a1', '--json')).out) as { id: string };
    const msgs = (await new Sources(env).driver('opencode').getContext(conv.id)).messages;
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(msgs)).toContain('the first');
    const h = await cli('handoff', piId, '--to', 'claude');
    expect(h.code, h.err).toBe(0);
    expect(h.out).toMatch(new RegExp(`resume it with:\\n {2}cd ${join(home, 'project')} && claude --resume [0-9a-f-]{36}\\n`));
  });
});
