/**
 * Claude Code's own interactive `/branch` (2.1.332, "Create a branch of the current conversation at
 * this point"), typed into the real TUI in a pseudo-terminal against the loopback stand-in. The
 * command copies the conversation into a new session keeping each record's uuid, marks each with
 * `forkedFrom` naming that same uuid in the original (so the last one is the fork point), and moves
 * the REPL into the branch, recording the command and its output as `system` `local_command` records
 * (src/formats/claude/NOTES.md "Forks"). threadbase lists the branch with its parent and fork point, and
 * its context is what Claude Code sends from the branch, the command and its output included.
 *
 * Node has no pty here: a small python3 relay (its `pty` module) runs claude in one and passes
 * keystrokes in and the screen out over pipes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { type AgentHome, CLAUDE_BIN, runClaude, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';

/**
 * Runs argv[1:] in a pty (120x40, set on the child's side before exec), copies stdin to it and its
 * output to stdout; on stdin's end or its own exit it ends the child's process group (TERM, then KILL).
 */
const PTY_RELAY = `
import fcntl, os, pty, select, signal, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:])
def stop():
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try: os.killpg(pid, sig)
        except ProcessLookupError: pass
        end = time.time() + wait
        while time.time() < end:
            if os.waitpid(pid, os.WNOHANG)[0] == pid: return
            time.sleep(0.1)
stdin = sys.stdin.fileno()
while True:
    ready = select.select([fd, stdin], [], [])[0]
    if fd in ready:
        try: data = os.read(fd, 65536)
        except OSError: data = b''
        if not data: break
        os.write(1, data)
    if stdin in ready:
        data = os.read(stdin, 65536)
        if not data: break
        os.write(fd, data)
stop()
`;

// escape sequences of the terminal (ESC by its code: a control character in a regex literal is flagged)
const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const CURSOR_MOVES = new RegExp(`${ESC}\\[[0-9;?]*[CGHf]`, 'g');
const OTHER_ESCAPES = new RegExp(
  `${ESC}\\[[0-9;?<>=]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)|${ESC}[()][0-9A-Za-z]|${ESC}[=>78MNOP]`,
  'g',
);

/** Claude Code's interactive REPL in a pty: keystrokes in, the screen (as it was drawn) out. */
class ClaudeTerminal {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  private exited = false;

  constructor(home: AgentHome) {
    this.child = spawn('python3', ['-c', PTY_RELAY, CLAUDE_BIN], {
      cwd: home.project,
      env: {
        PATH: process.env.PATH,
        HOME: home.root,
        TERM: 'xterm-256color',
        ANTHROPIC_BASE_URL: home.standIn.url,
        ANTHROPIC_API_KEY: 'x',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // decoded as a stream: a chunk may end inside a character (the prompt's ❯)
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.output += d;
    });
    this.child.stderr.on('data', (d: string) => {
      this.output += d;
    });
    this.child.on('exit', () => {
      this.exited = true;
    });
  }

  /** What was drawn, escape sequences out (cursor moves as a space, as they stand for the gaps), blanks collapsed. */
  screen(): string {
    return this.output
      .replace(CURSOR_MOVES, ' ')
      .replace(OTHER_ESCAPES, '')
      .replace(/[ \t\r]+/g, ' ');
  }

  /** The screen without any blank: Ink sometimes draws a gap as a cursor move, sometimes not at all. */
  private compact(): string {
    return this.screen().replace(/\s+/g, '');
  }

  /**
   * Resolves with what `test` finds (in the compacted screen, or elsewhere, as the transcript files), or
   * fails showing the end of the screen.
   */
  async waitFor<T>(
    what: string,
    test: (compactScreen: string) => T | undefined | Promise<T | undefined>,
    timeoutMs = 60_000,
  ): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = await test(this.compact());
      if (found !== undefined) return found;
      if (this.exited || Date.now() > end)
        throw new Error(
          `claude ${this.exited ? 'exited' : `did not reach it in ${timeoutMs} ms`} waiting for ${what}; last screen:\n${this.screen().slice(-3000)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Types `text` and, a moment later (a key apart, not a paste), Enter. */
  async submit(text: string): Promise<void> {
    this.child.stdin.write(text);
    await new Promise((r) => setTimeout(r, 500));
    this.child.stdin.write('\r');
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.end();
    const late = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(late);
  }
}

type JsonRecord = Record<string, unknown>;

/** The home's project folder of transcripts. */
const projectDir = (home: AgentHome) => join(home.root, '.claude', 'projects', encodeProjectPath(home.project));

/**
 * The records of a session's transcript (none while it is not there); a line Claude Code is still
 * writing is not one yet.
 */
async function records(home: AgentHome, sessionId: string): Promise<JsonRecord[]> {
  const text = await fs.readFile(join(projectDir(home), `${sessionId}.jsonl`), 'utf8').catch(() => '');
  return text.split('\n').flatMap((l) => {
    try {
      return l.trim() ? [JSON.parse(l) as JsonRecord] : [];
    } catch {
      return [];
    }
  });
}

/** The sessions in the home's project folder. */
async function sessionIds(home: AgentHome): Promise<string[]> {
  const names = await fs.readdir(projectDir(home)).catch(() => []);
  return names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length));
}

function textOfRecord(r: JsonRecord): string {
  const content = (r.message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((b) => ((b as { type?: string }).type === 'text' ? String((b as { text?: unknown }).text) : '')).join('')
    : '';
}

/** Whether the turn answered `reply` is over: its reply and then the turn's end (`turn_duration`) are in the file. */
function turnDone(rs: JsonRecord[], reply: string): true | undefined {
  const at = rs.findIndex((r) => r.type === 'assistant' && textOfRecord(r).includes(reply));
  return at >= 0 && rs.slice(at).some((r) => r.type === 'system' && r.subtype === 'turn_duration') ? true : undefined;
}

/**
 * ~/.claude.json of a user past the first run: onboarding done (else it checks api.anthropic.com
 * first), the project's folder trusted, the stand-in's key ('x', kept by its last 20 characters) approved.
 */
async function writeClaudeUserState(home: AgentHome): Promise<void> {
  await fs.writeFile(
    join(home.root, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: '2.1.332',
      theme: 'dark',
      customApiKeyResponses: { approved: ['x'], rejected: [] },
      projects: { [home.project]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
}

/** The last user text of a request to the stand-in. */
function lastUserText(req: AnthropicRequest): string {
  const last = req.messages.findLast((m) => m.role === 'user');
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((b) => String(b.text ?? '')).join('\n');
}

let agentHome: AgentHome;
let env: DriverEnv;
let term: ClaudeTerminal | undefined;

beforeAll(async () => {
  // each prompt "say <word>" is answered "answer <word>"
  agentHome = await setupAgentHome({
    rules: [
      (req) => {
        const word = /\bsay (\w+)\s*$/.exec(lastUserText(req))?.[1];
        return word ? { text: `answer ${word}` } : undefined;
      },
    ],
  });
  env = { home: agentHome.root, env: { HOME: agentHome.root } };
  await writeClaudeUserState(agentHome);
});
afterAll(async () => {
  await term?.close();
  await agentHome?.close();
});

interface Row {
  id: string;
  title?: string | null;
  parentId?: string | null;
  parentEntryId?: string;
  leafId?: string;
  entries?: { id: string; kind: string; message?: { role: string; parts: { type: string; text?: string }[] } }[];
}

it("Claude Code's interactive /branch: the branch names its parent and the point it was made at, and its context is what Claude Code sends from it", async () => {
  const claude = new ClaudeTerminal(agentHome);
  term = claude;
  // the prompt box with its footer: the REPL takes keys
  await claude.waitFor('the prompt box', (s) =>
    s.includes('❯') && (s.includes('shift+tab') || s.includes('forshortcuts')) ? true : undefined,
  );
  await claude.submit('say alpha');
  const original = await claude.waitFor('the first turn in a transcript', async () => {
    for (const id of await sessionIds(agentHome)) if (turnDone(await records(agentHome, id), 'answer alpha')) return id;
    return undefined;
  });

  await claude.submit('/branch');
  const branch = await claude.waitFor('the branch message', (s) => /You'renowinthenewone\(([0-9a-f-]{36})\)/.exec(s)?.[1]);
  await claude.submit('say bravo');
  await claude.waitFor('the turn in the branch', async () => turnDone(await records(agentHome, branch), 'answer bravo'));
  await claude.close();

  // what /branch wrote: the original's records up to its last one, uuids kept, each marked with its own uuid
  const originalRecords = await records(agentHome, original);
  const branchRecords = await records(agentHome, branch);
  const copied = branchRecords.filter((r) => r.forkedFrom !== undefined);
  for (const r of copied) expect(r.forkedFrom).toEqual({ sessionId: original, messageUuid: r.uuid });
  const originalChain = originalRecords.filter((r) => typeof r.uuid === 'string').map((r) => r.uuid);
  expect(copied.map((r) => r.uuid)).toEqual(originalChain);
  const forkPoint = originalChain.at(-1) as string;
  // the command and its output, recorded in the branch after the copy
  const commands = branchRecords.filter((r) => r.type === 'system' && r.subtype === 'local_command');
  expect(commands.map((r) => String(r.content))).toEqual([
    expect.stringMatching(/^<command-name>\/branch<\/command-name>/),
    expect.stringMatching(/^<local-command-stdout>Branched session\. You're now in the new one/),
  ]);

  // threadbase: listed with its parent and the fork point, which is the original's leaf
  const rows = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as Row[];
  expect(rows.find((r) => r.id === branch)).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  expect(rows.find((r) => r.id === original)?.parentId ?? null).toBeNull();
  const parent = JSON.parse(await runCliOk(env, ['show', original, '--source', 'claude', '--json'])) as Row;
  expect(parent.leafId).toBe(forkPoint);
  const shown = JSON.parse(await runCliOk(env, ['show', branch, '--source', 'claude', '--json'])) as Row;
  expect(shown).toMatchObject({ parentId: original, parentEntryId: forkPoint, title: 'say alpha (Branch)' });
  const said = (shown.entries ?? [])
    .filter((e) => e.kind === 'message')
    .map((e) => [e.message?.role, e.message?.parts.map((p) => p.text ?? '').join('')]);
  expect(said).toEqual([
    ['user', 'say alpha'],
    ['assistant', 'answer alpha'],
    ['user', expect.stringMatching(/^<command-name>\/branch<\/command-name>/)],
    ['user', expect.stringMatching(/^<local-command-stdout>Branched session/)],
    ['user', 'say bravo'],
    ['assistant', 'answer bravo'],
  ]);
  const reader = new ClaudeDriver(env);
  expect((await reader.getSession(original))?.entries.some((e) => e.id === forkPoint)).toBe(true);

  // the context where the prompt in the branch was typed is what Claude Code sent with it, the prompt aside
  const bravoPrompt = branchRecords.find((r) => r.type === 'user' && textOfRecord(r) === 'say bravo');
  const sent = agentHome.standIn.messageRequests().find((req) => /\bsay bravo\s*$/.test(lastUserText(req)));
  if (!sent || typeof bravoPrompt?.parentUuid !== 'string') throw new Error('no prompt in the branch, or no request for it');
  const typedAt = JSON.parse(
    await runCliOk(env, ['context', branch, '--source', 'claude', '--leaf', bravoPrompt.parentUuid, '--json']),
  ) as { messages: Msg[] };
  expect(comparable(typedAt.messages)).toEqual(comparable(sent.messages as Msg[], 'say bravo'));

  // and the branch's whole context is what Claude Code sends when it resumes the branch
  const whole = JSON.parse(await runCliOk(env, ['context', branch, '--source', 'claude', '--json'])) as { messages: Msg[] };
  const before = agentHome.standIn.messageRequests().length;
  await runClaude(agentHome, ['--resume', branch], 'probe resumed');
  const resumed = agentHome.standIn.messageRequests()[before];
  if (!resumed) throw new Error('claude --resume sent no request');
  expect(comparable(whole.messages)).toEqual(comparable(resumed.messages as Msg[], 'probe resumed'));
}, 240_000);
