/**
 * Sessions written into Kilo CLI, resumed by the real `kilo` (7.7.7, a provider on the loopback
 * Anthropic stand-in, test/helpers/kilo.ts):
 * - Claude Code sessions (signed thinking and tool calls; one with a compaction), a pi session (a
 *   tool call) and a codex session (developer instructions, reasoning, shell calls) are converted
 *   with `threadbase convert <id> --to kilo` into Kilo's database;
 * - `kilo run -s <id> <probe>` in the project resumes each: the request it sends is the context
 *   threadbase builds for the written session (with the `<environment_details>` Kilo adds to each
 *   user message when sending), and holds the source's own turns, calls and results;
 * - the session Kilo appended to is converted back into Claude Code with nothing of it lost;
 * - a session kilo recorded (a bash call) is read; threadbase appends a turn to it, renames it and
 *   forks it, and kilo lists both and resumes each with exactly threadbase's context.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { KiloDriver } from '../../src/formats/kilo/index.js';
import type { Entry, Session } from '../../src/model/types.js';
import {
  anthropicRequestItems,
  type ConvertedSession,
  contextItems,
  convertInto,
  copySourceFixtures,
  expectBackInClaudeCode,
  expectInOrder,
  SOURCE_SESSIONS,
} from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicMessage, conversationOf } from '../helpers/anthropic-standin.js';
import { readContext, readSession } from '../helpers/conversions.js';
import {
  createKiloDatabase,
  isEnvironmentDetails,
  KILO_MODEL,
  kiloProbeRule,
  kiloRequestEndingWith,
  runKilo,
  setupKiloHome,
} from '../helpers/kilo.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

let home: AgentHome;

beforeAll(async () => {
  home = await setupKiloHome({ rules: [kiloProbeRule] });
  await copySourceFixtures(home, { claudeSubAgent: false });
  await createKiloDatabase(home);
}, 120_000);
afterAll(async () => {
  await home?.close();
});

/** The same of the Anthropic messages Kilo sent (Kilo's own call ids left out), less its environment details. */
const requestItems = (messages: AnthropicMessage[]) =>
  anthropicRequestItems(messages, { ids: false, drop: isEnvironmentDetails });

// Claude Code's sessions resume on their own model (Kilo sends thinking recorded by another model as text);
// pi's and codex's on the stand-in's
describe.each(SOURCE_SESSIONS.map((s) => ({ ...s, model: s.from === 'claude' ? [] : ['-m', KILO_MODEL] })))(
  'a $from session converted into Kilo CLI ($probe)',
  ({ from, id, probe, calls, model }) => {
    let written: ConvertedSession;
    let source: string[];
    it('is resumed by the real kilo with exactly the context threadbase built, holding every turn, call and result of the source', async () => {
      written = await convertInto(home, id, from, 'kilo');
      expect(written.source).toBe('kilo');
      expect(written.path).toBe(join(home.root, '.local', 'share', 'kilo', 'kilo.db'));
      const project = (await readSession(home, 'kilo', written.id)).project as string;
      const ours = contextToAnthropic(await readContext(home, 'kilo', written.id)).messages;
      await runKilo(home, ['run', ...model, '-s', written.id, ...probe.split(' ')], project);
      const sent = kiloRequestEndingWith(home, probe).messages;
      // the request is threadbase's context of the written session (Kilo's environment details included), then the probe
      expect(conversationOf(sent.slice(0, -1))).toEqual(conversationOf(ours as AnthropicMessage[]));
      source = contextItems(await readContext(home, from, id), { ids: false });
      expect(source.some((s) => s.startsWith('call:'))).toBe(calls);
      // a compaction becomes Kilo's (OpenCode's) request and summary: its text is the model's, not the user's;
      // calls one response made together are steps of their own, each followed by its result
      const roleless = (items: string[]) => items.map((s) => s.replace(/^(user|assistant):/, 'text:'));
      const got = roleless(requestItems(sent));
      const want = roleless([...source, `user:${probe}`]);
      expectInOrder(
        got.filter((s) => s.startsWith('text:')),
        want.filter((s) => s.startsWith('text:')),
      );
      const left = [...got];
      for (const item of want) {
        const at = left.indexOf(item);
        expect(at, `missing: ${item.slice(0, 160)}`).toBeGreaterThanOrEqual(0);
        left.splice(at, 1);
      }
      if (from === 'claude' && calls) expect(JSON.stringify(sent)).toContain('"signature"');
    }, 240_000);

    it('goes back into Claude Code with nothing lost and Kilo’s new turn', async () => {
      await expectBackInClaudeCode(home, 'kilo', written.id, source, probe, { ids: false });
    }, 120_000);
  },
);

describe('a session the real kilo recorded', () => {
  let recorded: string;

  it('is read with its bash call and result', async () => {
    await runKilo(home, ['run', '-m', KILO_MODEL, '--title', 'recorded', 'RUN:', 'echo', 'hi']);
    const driver = new KiloDriver(home.env);
    recorded = (await driver.listSessions()).find((x) => x.title === 'recorded')?.id as string;
    const s = (await driver.getSession(recorded)) as Session;
    expect(s.warnings).toEqual([]);
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    expect(parts.find((p) => p.type === 'tool_call')).toMatchObject({ name: 'bash', input: { command: 'echo hi' } });
    expect(parts.find((p) => p.type === 'tool_result')).toMatchObject({ content: 'hi\n' });
  }, 120_000);

  it('kilo resumes it after threadbase appended a turn and renamed it, and a fork threadbase made, each with exactly our context', async () => {
    const driver = new KiloDriver(home.env);
    const s = (await driver.getSession(recorded)) as Session;
    const t = (n: number) => new Date(Date.now() + n).toISOString();
    const model = { model: 'claude-test', provider: 'standin' };
    await driver.appendEntries(recorded, [
      messageEntry('app-u1', (s.entries.at(-1) as Entry).id, t(1), textMessage('user', 'appended by threadbase')),
      messageEntry('app-a1', 'app-u1', t(2), {
        role: 'assistant',
        ...model,
        parts: [{ type: 'text', text: 'An appended answer.' }],
      }),
    ]);
    await driver.setTitle(recorded, 'renamed by threadbase');
    const forked = await driver.forkSession(recorded);
    expect(forked.title).toBe('renamed by threadbase (fork #1)');
    const listed = JSON.parse(await runKilo(home, ['session', 'list', '--format', 'json'])) as { id: string; title: string }[];
    expect(listed.find((x) => x.id === recorded)?.title).toBe('renamed by threadbase');
    expect(listed.some((x) => x.id === forked.id)).toBe(true);
    for (const [id, probe] of [
      [recorded, 'probe appended'],
      [forked.id, 'probe forked'],
    ] as const) {
      const ours = contextToAnthropic(await readContext(home, 'kilo', id)).messages as AnthropicMessage[];
      expect(JSON.stringify(ours)).toContain('appended by threadbase');
      await runKilo(home, ['run', '-m', KILO_MODEL, '-s', id, ...probe.split(' ')]);
      expect(conversationOf(kiloRequestEndingWith(home, probe).messages.slice(0, -1))).toEqual(conversationOf(ours));
    }
  }, 300_000);

  it('kilo lists a session threadbase wrote into a git repository with an origin remote it never ran in', async () => {
    const repo = join(home.root, 'repo');
    await fs.mkdir(repo);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo });
    git('init', '-q');
    git('remote', 'add', 'origin', 'git@github.com:Example/Repo.git');
    git('commit', '-q', '--allow-empty', '-m', 'init');
    const s = await readSession(home, 'kilo', recorded);
    const written = await new KiloDriver(home.env).writeSession({ ...s, project: repo });
    // the id the real kilo gave a repository with this origin remote: sha1 of "git-remote:github.com/Example/Repo", as OpenCode
    expect(written.meta?.projectID).toBe('9663cb3d54855fc2a3ee616d4a72d26a9c0ca79f');
    const listed = JSON.parse(await runKilo(home, ['session', 'list', '--format', 'json'], repo)) as { id: string }[];
    expect(listed.map((x) => x.id)).toContain(written.id);
  }, 120_000);
});
