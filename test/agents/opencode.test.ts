/**
 * The real OpenCode (opencode-ai from the npm registry, its native binary) offline against the
 * loopback Anthropic stand-in, configured as a provider in $HOME/.config/opencode/opencode.json
 * ("npm": "@ai-sdk/anthropic" is bundled in the binary; nothing is installed at run time, and the
 * npm registry is pointed at a closed port to prove it):
 * - threadbase reads the sessions OpenCode records (a real bash tool call, `-s` continue, `--fork`);
 * - the context threadbase builds equals the messages OpenCode sends on a further resume;
 * - OpenCode lists, exports and resumes a session threadbase wrote (converted from model-only
 *   entries, and forked) with exactly threadbase's context, and leaves the token counts and price
 *   terms threadbase keeps in a field OpenCode has no use for;
 * - read commands never modify OpenCode's database.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import {
  OpenCodeDriver,
  opencodeContext,
  opencodeDbPath,
  readSessionData,
  sessionFromExport,
  sessionToExport,
  writeSessionData,
} from '../../src/formats/opencode/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { type AgentHome, OPENCODE_MODEL, runOpencode, setupAgentHome } from '../helpers/agents.js';
import { type AnthropicRequest, type StandIn, withoutCacheControl } from '../helpers/anthropic-standin.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { messageEntry, ONE_PIXEL_PNG, oneExchange, PRICE_TERMS, textMessage } from '../helpers/sessions.js';

/** A session the real OpenCode compacted by itself (test/fixtures/opencode/opencode.db). */
const COMPACTED = 'ses_dfb46f783ffeZ1j67MnacZPrQP';

let agentHome: AgentHome;
let standIn: StandIn;
let root: string;
let project: string;
let env: DriverEnv;
let driver: OpenCodeDriver;

/** `opencode <args>` in the temp project, offline against the stand-in (test/helpers/agents.ts). */
function opencode(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return runOpencode(agentHome, args);
}

/** The last conversation request (with tools; not a title request) whose final user text is `prompt`. */
function requestEndingWith(prompt: string): AnthropicRequest {
  const found = standIn
    .messageRequests()
    .filter((r) => (r.tools?.length ?? 0) > 0)
    .filter((r) => {
      const last = r.messages[r.messages.length - 1];
      const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
      return blocks.some((b) => b.type === 'text' && b.text === prompt);
    })
    .at(-1);
  if (!found) throw new Error(`no request ends with ${JSON.stringify(prompt)}`);
  return withoutCacheControl(found);
}

async function ourContext(id: string) {
  return contextToAnthropic(await driver.getContext(id)).messages;
}

/** Resumes the session in OpenCode with a probe prompt; returns what OpenCode sent before the probe. */
async function resumedContext(id: string, probe: string) {
  await opencode(['run', '-s', id, '-m', OPENCODE_MODEL, ...probe.split(' ')]);
  const req = requestEndingWith(probe);
  return req.messages.slice(0, -1);
}

async function sessionList(): Promise<{ id: string; title: string }[]> {
  return JSON.parse((await opencode(['session', 'list', '--format', 'json'])).stdout);
}

beforeAll(async () => {
  agentHome = await setupAgentHome();
  ({ standIn, root, project, env } = agentHome);
  driver = new OpenCodeDriver(env);
});

afterAll(async () => {
  await agentHome?.close();
});

describe('threadbase and the real OpenCode', () => {
  let original: string;
  let forked: string;

  it('reads a session OpenCode recorded with a real tool call', async () => {
    // Words, not one quoted argument: `opencode run` quotes arguments that contain spaces.
    await opencode(['run', '--title', 'tool run', 'RUN:', 'echo', 'hi', '>', 'out.txt']);
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('hi\n');
    const list = await driver.listSessions();
    expect(list).toHaveLength(1);
    original = list[0]?.id as string;
    expect(list[0]).toMatchObject({ source: 'opencode', project, title: 'tool run' });
    const s = (await driver.getSession(original)) as Session;
    expect(s.warnings).toEqual([]);
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    const call = parts.find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ name: 'bash', input: { command: 'echo hi > out.txt' } });
    expect(parts.find((p) => p.type === 'tool_result')).toMatchObject({
      callId: (call as { id: string }).id,
      content: '(no output)',
    });
  }, 180_000);

  it('follows `-s` continue and `--fork`, and its context equals what OpenCode sends on a further resume', async () => {
    await opencode(['run', '-s', original, 'second', 'message']);
    await opencode(['run', '-s', original, '--fork', 'third', 'in', 'fork']);
    const list = await driver.listSessions();
    expect(list).toHaveLength(2);
    forked = list.find((s) => s.id !== original)?.id as string;
    expect(list.find((s) => s.id === forked)?.title).toBe('tool run (fork #1)');
    // OpenCode's fork copies the original's messages (new ids, same times and tokens): `stats`
    // counts those responses once, in the original, and the fork's own answer in the fork
    const own = new Map(list.map((s) => [s.id, s.usage?.input ?? 0]));
    const indexHome = await fs.mkdtemp(join(root, 'tb-index-'));
    const rows = JSON.parse(
      await runCliOk({ ...env, env: { ...env.env, THREADBASE_HOME: indexHome } }, [
        'stats',
        '--by',
        'session',
        '--source',
        'opencode',
        '--json',
      ]),
    ) as { key: string; inputTokens: number }[];
    const counted = new Map(rows.map((r) => [r.key, r.inputTokens]));
    expect(counted.get(original)).toBe(own.get(original));
    expect(counted.get(forked)).toBeGreaterThan(0);
    expect(counted.get(forked)).toBe((own.get(forked) ?? 0) - (own.get(original) ?? 0));

    for (const [id, probe] of [
      [original, 'probe original'],
      [forked, 'probe fork'],
    ] as const) {
      const ours = await ourContext(id);
      expect(ours.length).toBeGreaterThan(3);
      expect(await resumedContext(id, probe)).toEqual(ours);
    }
    const forkCtx = await ourContext(forked);
    expect(JSON.stringify(forkCtx)).toContain('third in fork');
    expect(JSON.stringify(await ourContext(original))).not.toContain('third in fork');
  }, 300_000);

  it('never modifies the database on read commands (checksum)', async () => {
    const db = opencodeDbPath(env);
    const sum = (f: string) => (existsSync(f) ? createHash('sha256').update(readFileSync(f)).digest('hex') : 'absent');
    const before = [sum(db), sum(`${db}-wal`)];
    for (const args of [
      ['sessions', '--source', 'opencode', '--json'],
      ['show', original, '--json'],
      ['context', forked, '--format', 'anthropic'],
    ]) {
      expect((await runCli(env, args)).code).toBe(0);
    }
    expect([sum(db), sum(`${db}-wal`)]).toEqual(before);
  }, 60_000);

  it('OpenCode lists, exports and resumes a session threadbase wrote, with exactly our context', async () => {
    const t = (n: number) => new Date(Date.now() - 60_000 + n * 1000).toISOString();
    const model = { model: 'claude-test', provider: 'standin' };
    const entries: Entry[] = [
      messageEntry('u1', null, t(1), textMessage('user', 'list the files')),
      messageEntry('a1', 'u1', t(2), {
        role: 'assistant',
        ...model,
        parts: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool_call', id: 'toolu_tb_1', name: 'bash', input: { command: 'ls', description: 'list' } },
        ],
      }),
      messageEntry('r1', 'a1', t(3), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_tb_1', content: 'out.txt' }],
      }),
      messageEntry('a2', 'r1', t(4), { role: 'assistant', ...model, parts: [{ type: 'text', text: 'There is out.txt.' }] }),
      messageEntry('u2', 'a2', t(5), textMessage('user', 'and a failing one?')),
      messageEntry('a3', 'u2', t(6), {
        role: 'assistant',
        ...model,
        parts: [{ type: 'tool_call', id: 'toolu_tb_2', name: 'read', input: { filePath: '/nope' } }],
      }),
      messageEntry('r2', 'a3', t(7), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_tb_2', content: 'File not found: /nope', isError: true }],
      }),
      messageEntry('a4', 'r2', t(8), { role: 'assistant', ...model, parts: [{ type: 'text', text: 'It does not exist.' }] }),
      {
        id: 'c1',
        parentId: 'a4',
        timestamp: t(9),
        kind: 'compaction',
        summary: 'We listed files and tried to read /nope.',
        firstKeptEntryId: 'u2',
        // written by another model than the replies' (the summary message names it): OpenCode resumes the same
        model: 'claude-summarizer',
        usage: { input: 900, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      },
      messageEntry('u3', 'c1', t(10), textMessage('user', 'after the summary')),
      {
        id: 'a5',
        parentId: 'u3',
        timestamp: t(11),
        kind: 'message',
        // what OpenCode has no field for rides in one it ignores (tokens.threadbase)
        message: {
          role: 'assistant',
          ...model,
          parts: [{ type: 'text', text: 'noted' }],
          usage: PRICE_TERMS,
          responseId: 'msg_noted',
        },
      },
    ];
    const foreign: Session = {
      id: 'from-elsewhere',
      source: 'pi',
      project,
      title: 'written by threadbase',
      createdAt: t(0),
      updatedAt: t(11),
      messageCount: 10,
      entries,
    };
    const written = await driver.writeSession(foreign);
    const ours = await ourContext(written.id);
    // compaction request + summary, the kept tail from u2, then what followed
    expect(ours[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'What did we do so far?' }] });
    expect(JSON.stringify(ours)).toContain('File not found: /nope');
    expect(JSON.stringify(ours)).not.toContain('list the files');

    expect((await sessionList()).map((s) => s.id)).toContain(written.id);
    const exported = await opencode(['export', written.id]);
    const fromExport = sessionFromExport(JSON.parse(exported.stdout), 'opencode export');
    expect(fromExport.id).toBe(written.id);
    expect(contextToAnthropic(opencodeContext(fromExport)).messages).toEqual(ours);
    expect(await resumedContext(written.id, 'probe written')).toEqual(ours);
    // OpenCode added its turn and left ours as it was: every token count and price term reads back
    const after = (await driver.getSession(written.id)) as Session;
    const noted = after.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'text' && p.text === 'noted'),
    );
    expect(noted?.kind === 'message' && noted.message.usage).toEqual(PRICE_TERMS);
    // with its response id (info.threadbase), so that `stats` knows it for a copy of the original
    expect(noted?.kind === 'message' && noted.message.responseId).toBe('msg_noted');
    expect(after.entries.filter((e) => e.kind === 'message' && e.message.role === 'assistant').length).toBeGreaterThan(5);
    expect(after.entries.find((e) => e.kind === 'compaction')).toMatchObject({ model: 'claude-summarizer' });

    // and a fork threadbase made of the session OpenCode recorded
    const fork = await driver.forkSession(original);
    expect((await sessionList()).map((s) => s.id)).toContain(fork.id);
    const forkCtx = await ourContext(fork.id);
    expect(forkCtx).toEqual(await ourContext(original));
    expect(await resumedContext(fork.id, 'probe our fork')).toEqual(forkCtx);
  }, 300_000);

  it('OpenCode lists a session threadbase wrote into a git repository with an origin remote it never ran in', async () => {
    const repo = join(root, 'remote-repo');
    await fs.mkdir(repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
    git('remote', 'add', 'origin', 'https://github.com/example/remote-repo.git');
    // OpenCode has made its database (in the other project) and never ran in this one
    const listIn = async (cwd: string) =>
      JSON.parse((await runOpencode(agentHome, ['session', 'list', '--format', 'json'], cwd)).stdout || '[]') as { id: string }[];
    await listIn(project);
    const written = await driver.writeSession(
      oneExchange({
        id: 'remote-repo-session',
        project: repo,
        title: 'written into a repository with a remote',
        prompt: 'hello',
        reply: 'hi',
        assistant: { model: 'claude-test', provider: 'standin' },
        at: (n) => new Date(Date.now() - 10_000 + n * 1000).toISOString(),
      }),
    );
    expect((await listIn(repo)).map((s) => s.id)).toContain(written.id);
  });

  it('OpenCode resumes a session threadbase appended to and renamed, with our appended turn in its context', async () => {
    const s = (await driver.getSession(original)) as Session;
    const t = (n: number) => new Date(Date.now() + n).toISOString();
    const model = { model: 'claude-test', provider: 'standin' };
    const appended: Entry[] = [
      messageEntry('app-u1', (s.entries.at(-1) as Entry).id, t(1), textMessage('user', 'appended by threadbase')),
      messageEntry('app-a1', 'app-u1', t(2), {
        role: 'assistant',
        ...model,
        parts: [
          { type: 'text', text: 'An appended answer.' },
          { type: 'tool_call', id: 'toolu_app_9', name: 'bash', input: { command: 'echo appended', description: 'echo' } },
        ],
      }),
      messageEntry('app-r1', 'app-a1', t(3), {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_app_9', content: 'appended' }],
      }),
      messageEntry('app-a2', 'app-r1', t(4), { role: 'assistant', ...model, parts: [{ type: 'text', text: 'Done appending.' }] }),
    ];
    const before = await ourContext(original);
    await driver.appendEntries(original, appended);
    await driver.setTitle(original, 'renamed by threadbase');
    const ours = await ourContext(original);
    expect(ours.slice(0, before.length)).toEqual(before);
    expect(ours.slice(before.length)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'appended by threadbase' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'An appended answer.' },
          { type: 'tool_use', id: 'toolu_app_9', name: 'bash', input: { command: 'echo appended', description: 'echo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_app_9', content: 'appended' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done appending.' }] },
    ]);
    expect((await sessionList()).find((x) => x.id === original)?.title).toBe('renamed by threadbase');
    expect(await resumedContext(original, 'probe appended')).toEqual(ours);
    // OpenCode's own next turn follows ours
    const after = await ourContext(original);
    expect(after.slice(0, ours.length)).toEqual(ours);
    expect(JSON.stringify(after.slice(ours.length))).toContain('probe appended');

    // `threadbase export --format opencode` prints what `opencode export` prints: the same records
    const mine = JSON.parse(await runCliOk(env, ['export', original, '--format', 'opencode'])) as {
      info: { id: string; title: string };
      messages: { info: { id: string }; parts: { id: string }[] }[];
    };
    const theirs = JSON.parse((await opencode(['export', original])).stdout) as typeof mine;
    expect(mine.info).toMatchObject({ id: original, title: 'renamed by threadbase' });
    const ids = (x: typeof mine) => x.messages.flatMap((m) => [m.info.id, ...m.parts.map((p) => p.id)]).sort();
    expect(ids(mine)).toEqual(ids(theirs));

    // forks: OpenCode's and ours alike have no parent and a "(fork #n)" title
    const list = await driver.listSessions();
    const forks = list.filter((x) => / \(fork #\d+\)$/.test(x.title ?? ''));
    expect(forks.length).toBeGreaterThanOrEqual(2);
    expect(forks.map((x) => x.parentId)).toEqual(forks.map(() => null));
  }, 240_000);

  it('OpenCode imports export JSON threadbase wrote (an image, signed thinking) and resumes it with our context', async () => {
    const t = (n: number) => new Date(Date.now() - 30_000 + n * 1000).toISOString();
    const session: Session = {
      id: 'to-import',
      source: 'claude',
      project,
      title: 'imported from threadbase',
      createdAt: t(0),
      updatedAt: t(2),
      messageCount: 2,
      entries: [
        messageEntry('u1', null, t(1), {
          role: 'user',
          parts: [
            { type: 'text', text: 'what is in the picture?' },
            { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
          ],
        }),
        messageEntry('a1', 'u1', t(2), {
          role: 'assistant',
          model: 'claude-test',
          provider: 'standin',
          parts: [
            { type: 'thinking', thinking: 'one pixel', signature: 'sig-from-claude' },
            { type: 'text', text: 'A single pixel.' },
          ],
        }),
      ],
    };
    const exported = sessionToExport(session, { directory: project });
    const file = join(root, 'import.json');
    await fs.writeFile(file, JSON.stringify(exported));
    const imported = await opencode(['import', file]);
    const id = exported.info.id as string;
    expect(`${imported.stdout}${imported.stderr}`).toContain(id);
    expect((await sessionList()).map((s) => s.id)).toContain(id);
    const ours = await ourContext(id);
    expect(ours).toEqual(contextToAnthropic(opencodeContext(session)).messages);
    expect(ours[1]?.content).toEqual([
      { type: 'thinking', thinking: 'one pixel', signature: 'sig-from-claude' },
      { type: 'text', text: 'A single pixel.' },
    ]);
    expect(await resumedContext(id, 'probe imported')).toEqual(ours);
  }, 180_000);

  it("counts the summary of a compaction OpenCode made once in OpenCode's fork of the session", async () => {
    // the session the real OpenCode recorded and compacted by itself (fixture), filed under this project
    const recorded = readSessionData(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), COMPACTED, []);
    const here = readSessionData(opencodeDbPath(env), original, []);
    if (!recorded || !here) throw new Error('no session to copy');
    const { projectID, directory, path } = here.info;
    writeSessionData(opencodeDbPath(env), {
      ...recorded,
      info: { ...recorded.info, projectID, directory, path },
      ...(here.project ? { project: here.project } : {}),
    });
    await opencode(['run', '-s', COMPACTED, '--fork', 'after', 'the', 'compaction']);
    const list = await driver.listSessions();
    const fork = list.find((s) => s.title === 'c1 (fork #1)')?.id as string;
    // OpenCode's copy of the compaction: a new entry id, the summary's tokens
    const compaction = (id: string) => driver.getSession(id).then((s) => s?.entries.find((e) => e.kind === 'compaction'));
    expect(await compaction(fork)).toMatchObject({ usage: { input: 580, output: 18 } });
    expect((await compaction(fork))?.id).not.toBe((await compaction(COMPACTED))?.id);
    const own = new Map(list.map((s) => [s.id, s.usage?.input ?? 0]));
    const indexHome = await fs.mkdtemp(join(root, 'tb-index-'));
    const rows = JSON.parse(
      await runCliOk({ ...env, env: { ...env.env, THREADBASE_HOME: indexHome } }, ['stats', '--by', 'session', '--json']),
    ) as { key: string; inputTokens: number }[];
    const counted = new Map(rows.map((r) => [r.key, r.inputTokens]));
    // the original counts whole; the fork only its own answer (the summary's request counted in the original)
    expect(counted.get(COMPACTED)).toBe(own.get(COMPACTED));
    expect(counted.get(fork)).toBeGreaterThan(0);
    expect(counted.get(fork)).toBe((own.get(fork) ?? 0) - (own.get(COMPACTED) ?? 0));
  }, 180_000);
});
