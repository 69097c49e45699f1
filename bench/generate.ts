/**
 * Synthetic agent histories for the benchmark: Claude Code and pi JSONL transcripts in a fake HOME,
 * with thinking, tool calls and results, usage, and Claude Code's split records (one response over
 * several lines sharing message.id). Deterministic for a given size.
 *
 *   node --import tsx bench/generate.ts --out /tmp/tb-bench/home --mb 10
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

const WORDS =
  'the a function return const import export file path error test value index session token cache model tool result input output thinking branch fork merge commit diff patch build compile lint type string number array object promise async await stream buffer parse json yaml config server client request response header body status query search rank sqlite postgres schema table column row migration transaction lock retry timeout'.split(
    ' ',
  );

let seed = 42;
function rand(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
function words(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pick(WORDS));
  return out.join(' ');
}

export interface GenerateOptions {
  out: string;
  mb: number;
  /** share of sessions written as pi (the rest Claude Code) */
  piShare?: number;
}

function claudeTurn(sid: string, cwd: string, t: number, parent: string | null, when: number): { lines: string[]; last: string } {
  const base = { sessionId: sid, cwd, version: '2.0.14', userType: 'external', isSidechain: false, gitBranch: 'main' };
  const ts = (k: number) => new Date(when + k * 1000).toISOString();
  const u = randomUUID();
  const a1 = randomUUID();
  const a2 = randomUUID();
  const r = randomUUID();
  const a3 = randomUUID();
  const msgId = `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const toolId = `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const usage = {
    input_tokens: 5 + Math.floor(rand() * 50),
    output_tokens: 50 + Math.floor(rand() * 900),
    cache_read_input_tokens: Math.floor(rand() * 80000),
    cache_creation_input_tokens: Math.floor(rand() * 4000),
  };
  const model = 'claude-sonnet-4-5-20250929';
  const lines = [
    {
      ...base,
      type: 'user',
      uuid: u,
      parentUuid: parent,
      timestamp: ts(0),
      message: { role: 'user', content: `step ${t}: ${words(20 + Math.floor(rand() * 60))}` },
    },
    {
      ...base,
      type: 'assistant',
      uuid: a1,
      parentUuid: u,
      timestamp: ts(1),
      requestId: `req_${msgId}`,
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'thinking', thinking: words(40 + Math.floor(rand() * 200)), signature: 'EqQBCkgIBxABGAIiQ'.repeat(8) }],
        stop_reason: null,
        usage,
      },
    },
    {
      ...base,
      type: 'assistant',
      uuid: a2,
      parentUuid: a1,
      timestamp: ts(2),
      requestId: `req_${msgId}`,
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model,
        content: [
          {
            type: 'tool_use',
            id: toolId,
            name: pick(['Bash', 'Read', 'Edit', 'Grep']),
            input: { command: `grep -rn ${pick(WORDS)} src/`, description: words(6) },
          },
        ],
        stop_reason: 'tool_use',
        usage,
      },
    },
    {
      ...base,
      type: 'user',
      uuid: r,
      parentUuid: a2,
      timestamp: ts(3),
      toolUseResult: { stdout: 'ok', stderr: '', interrupted: false },
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: toolId,
            content: Array.from(
              { length: 10 + Math.floor(rand() * 60) },
              () => `src/${pick(WORDS)}.ts:${Math.floor(rand() * 900)}: ${words(12)}`,
            ).join('\n'),
          },
        ],
      },
    },
    {
      ...base,
      type: 'assistant',
      uuid: a3,
      parentUuid: r,
      timestamp: ts(4),
      requestId: `req_${msgId}b`,
      message: {
        id: `${msgId}b`,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: words(30 + Math.floor(rand() * 150)) }],
        stop_reason: 'end_turn',
        usage: { ...usage, output_tokens: 20 + Math.floor(rand() * 400) },
      },
    },
  ];
  return { lines: lines.map((l) => JSON.stringify(l)), last: a3 };
}

function piTurn(t: number, parent: string, when: number): { lines: string[]; last: string } {
  const id = () => randomUUID().slice(0, 8);
  const ts = (k: number) => new Date(when + k * 1000).toISOString();
  const u = id();
  const a = id();
  const r = id();
  const a2 = id();
  const call = `toolu_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const usage = (o: number) => ({
    input: 10,
    output: o,
    cacheRead: Math.floor(rand() * 50000),
    cacheWrite: 300,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: o * 0.000015 },
  });
  const lines = [
    {
      type: 'message',
      id: u,
      parentId: parent,
      timestamp: ts(0),
      message: { role: 'user', content: [{ type: 'text', text: `step ${t}: ${words(40)}` }], timestamp: when },
    },
    {
      type: 'message',
      id: a,
      parentId: u,
      timestamp: ts(1),
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: words(100) },
          { type: 'toolCall', id: call, name: 'bash', arguments: { command: `ls ${pick(WORDS)}` } },
        ],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: usage(300),
        stopReason: 'toolUse',
        timestamp: when + 1000,
      },
    },
    {
      type: 'message',
      id: r,
      parentId: a,
      timestamp: ts(2),
      message: {
        role: 'toolResult',
        toolCallId: call,
        toolName: 'bash',
        content: [{ type: 'text', text: words(300) }],
        isError: false,
        timestamp: when + 2000,
      },
    },
    {
      type: 'message',
      id: a2,
      parentId: r,
      timestamp: ts(3),
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: words(120) }],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: usage(150),
        stopReason: 'stop',
        timestamp: when + 3000,
      },
    },
  ];
  return { lines: lines.map((l) => JSON.stringify(l)), last: a2 };
}

export interface GeneratedFile {
  path: string;
  format: 'claude' | 'pi';
  sessionId: string;
  cwd: string;
}

export async function generate(opts: GenerateOptions): Promise<GeneratedFile[]> {
  const target = opts.mb * 1024 * 1024;
  let written = 0;
  const files: GeneratedFile[] = [];
  let n = 0;
  const start = Date.parse('2025-09-01T00:00:00Z');
  while (written < target) {
    n++;
    const cwd = `/bench/project-${n % 20}`;
    const sid = randomUUID();
    const pi = rand() < (opts.piShare ?? 0.25);
    const turns = 10 + Math.floor(rand() * 80);
    let when = start + n * 3_600_000;
    let path: string;
    const lines: string[] = [];
    if (pi) {
      const dir = join(opts.out, '.pi', 'agent', 'sessions', `--bench-project-${n % 20}--`);
      await mkdir(dir, { recursive: true });
      path = join(dir, `${new Date(when).toISOString().replace(/[:.]/g, '-')}_${sid}.jsonl`);
      lines.push(JSON.stringify({ type: 'session', version: 3, id: sid, timestamp: new Date(when).toISOString(), cwd }));
      let parent = randomUUID().slice(0, 8);
      lines.push(
        JSON.stringify({
          type: 'model_change',
          id: parent,
          parentId: null,
          timestamp: new Date(when).toISOString(),
          provider: 'anthropic',
          modelId: 'claude-sonnet-4-5',
        }),
      );
      for (let t = 0; t < turns; t++) {
        when += 10_000;
        const turn = piTurn(t, parent, when);
        lines.push(...turn.lines);
        parent = turn.last;
      }
    } else {
      const dir = join(opts.out, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
      await mkdir(dir, { recursive: true });
      path = join(dir, `${sid}.jsonl`);
      let parent: string | null = null;
      for (let t = 0; t < turns; t++) {
        when += 10_000;
        const turn = claudeTurn(sid, cwd, t, parent, when);
        lines.push(...turn.lines);
        parent = turn.last;
      }
    }
    const text = `${lines.join('\n')}\n`;
    await new Promise<void>((resolve, reject) => {
      const ws = createWriteStream(path);
      ws.on('error', reject);
      ws.end(text, resolve);
    });
    written += Buffer.byteLength(text);
    files.push({ path, format: pi ? 'pi' : 'claude', sessionId: sid, cwd });
  }
  return files;
}

/** Appends one more turn to a Claude Code transcript (what the 1% append step does). */
export function claudeAppendLines(sid: string, cwd: string, parent: string | null): string {
  return `${claudeTurn(sid, cwd, 999, parent, Date.parse('2025-12-01T00:00:00Z')).lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (k: string) => {
    const i = process.argv.indexOf(k);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = arg('--out') ?? '/tmp/tb-bench/home';
  const mb = Number(arg('--mb') ?? '10');
  const files = await generate({ out, mb });
  console.log(`${files.length} sessions, ${mb} MB in ${out}`);
}
