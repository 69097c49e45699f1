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
import Database from 'better-sqlite3';

let seed = 42;
function rand(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

/**
 * A vocabulary of 40,000 made-up words drawn by Zipf's law (frequency ∝ 1/rank, as words in real
 * text are), so that search costs what it costs on real text: a few words are everywhere, most are
 * rare. The first ranks are English function words and programming words.
 */
const COMMON =
  'the a to of and in is it that for on this with be as you not we are at or can if from by function return const file error test value path index import export type string'.split(
    ' ',
  );
const SYLLABLES = 'ka lo mi ne ru ta shi vo pe gu zan dor fel bri qua tem ix on ar el us'.split(' ');
export const VOCABULARY: readonly string[] = (() => {
  const out = [...COMMON];
  const seen = new Set(out);
  for (let i = 0; out.length < 40_000; i++) {
    let w = '';
    let n = i;
    do {
      w += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
})();
const ZIPF_CDF: Float64Array = (() => {
  const cdf = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let r = 0; r < cdf.length; r++) {
    sum += 1 / (r + 1);
    cdf[r] = sum;
  }
  for (let r = 0; r < cdf.length; r++) cdf[r] = (cdf[r] as number) / sum;
  return cdf;
})();
/** A word by Zipf's law. */
function word(): string {
  const x = rand();
  let lo = 0;
  let hi = ZIPF_CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ZIPF_CDF[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo] as string;
}
function words(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(word());
  return out.join(' ');
}

export interface GenerateOptions {
  out: string;
  mb: number;
  /** share of sessions written as pi and as OpenCode (the rest Claude Code) */
  piShare?: number;
  opencodeShare?: number;
}

export function claudeTurn(
  sid: string,
  cwd: string,
  t: number,
  parent: string | null,
  when: number,
): { lines: string[]; last: string } {
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
            input: { command: `grep -rn ${word()} src/`, description: words(6) },
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
              () => `src/${word()}.ts:${Math.floor(rand() * 900)}: ${words(12)}`,
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
          { type: 'toolCall', id: call, name: 'bash', arguments: { command: `ls ${word()}` } },
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

/** OpenCode keeps sessions as rows (session → message → part) in one SQLite database; this writes them. */
class OpenCodeWriter {
  readonly db: Database.Database;
  private n = 0;
  private readonly insSession: Database.Statement;
  private readonly insMessage: Database.Statement;
  private readonly insPart: Database.Statement;

  constructor(path: string) {
    // The schema of a database the real OpenCode made (test/fixtures), without its rows.
    const fixture = new Database(new URL('../test/fixtures/opencode/opencode.db', import.meta.url).pathname, { readonly: true });
    const ddl = (
      fixture.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'").all() as {
        sql: string;
      }[]
    ).map((r) => r.sql);
    fixture.close();
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // the session row goes in after its messages (its totals are known then)
    this.db.pragma('foreign_keys = OFF');
    for (const sql of ddl) this.db.exec(sql);
    this.db
      .prepare(`INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 0, 0, '[]')`)
      .run();
    this.insSession = this.db.prepare(
      `INSERT INTO session (id, project_id, slug, directory, path, title, version, cost, tokens_input, tokens_output, tokens_cache_read,
         tokens_cache_write, agent, model, time_created, time_updated)
       VALUES (?, 'global', ?, ?, ?, ?, '1.18.33', ?, ?, ?, ?, ?, 'build', ?, ?, ?)`,
    );
    this.insMessage = this.db.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    );
    this.insPart = this.db.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.db.exec('BEGIN');
  }

  private id(prefix: string): string {
    return `${prefix}_${(++this.n).toString(16).padStart(12, '0')}${randomUUID().replace(/-/g, '').slice(0, 14)}`;
  }

  /** One session of `turns` turns; returns the bytes of JSON written. */
  session(cwd: string, when: number, turns: number): { id: string; bytes: number } {
    const sid = this.id('ses');
    const model = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };
    let bytes = 0;
    let t = when;
    const totals = { cost: 0, input: 0, output: 0, read: 0, write: 0 };
    const message = (data: object) => {
      const id = this.id('msg');
      const text = JSON.stringify(data);
      bytes += text.length;
      this.insMessage.run(id, sid, t, t + 1000, text);
      return id;
    };
    const part = (mid: string, data: object) => {
      const text = JSON.stringify(data);
      bytes += text.length;
      this.insPart.run(this.id('prt'), mid, sid, t, t, text);
    };
    let parent: string | undefined;
    for (let i = 0; i < turns; i++) {
      t += 10_000;
      const user = message({ role: 'user', time: { created: t }, agent: 'build', model, summary: { diffs: [] } });
      part(user, { type: 'text', text: `step ${i}: ${words(20 + Math.floor(rand() * 60))}` });
      const tokens = () => {
        const input = 5 + Math.floor(rand() * 50);
        const output = 50 + Math.floor(rand() * 900);
        // OpenCode's output leaves the reasoning tokens out; a quarter as many again, as a thinking model spends
        const cache = { write: Math.floor(rand() * 4000), read: Math.floor(rand() * 80000) };
        return { total: 0, input, output, reasoning: Math.floor(output / 4), cache };
      };
      for (const finish of ['tool-calls', 'stop']) {
        const tk = tokens();
        const cost = tk.output * 0.000015;
        totals.cost += cost;
        totals.input += tk.input;
        totals.output += tk.output;
        totals.read += tk.cache.read;
        totals.write += tk.cache.write;
        const a = message({
          parentID: user,
          role: 'assistant',
          mode: 'build',
          agent: 'build',
          path: { cwd, root: '/' },
          cost,
          tokens: tk,
          modelID: model.modelID,
          providerID: model.providerID,
          time: { created: t + 1000, completed: t + 3000 },
          finish,
        });
        part(a, { type: 'step-start' });
        if (finish === 'tool-calls') {
          part(a, { type: 'reasoning', text: words(40 + Math.floor(rand() * 200)), time: { start: t, end: t + 500 } });
          const command = `grep -rn ${word()} src/`;
          const output = Array.from(
            { length: 10 + Math.floor(rand() * 60) },
            () => `src/${word()}.ts:${Math.floor(rand() * 900)}: ${words(12)}`,
          ).join('\n');
          part(a, {
            type: 'tool',
            tool: 'bash',
            callID: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
            state: {
              status: 'completed',
              input: { command, description: words(6) },
              output,
              metadata: { output, exit: 0, truncated: false },
              title: command,
              time: { start: t + 1000, end: t + 2000 },
            },
          });
        } else part(a, { type: 'text', text: words(30 + Math.floor(rand() * 150)) });
        part(a, { type: 'step-finish', reason: finish, tokens: tk, cost });
        parent = a;
      }
    }
    void parent;
    this.insSession.run(
      sid,
      `bench-${this.n}`,
      cwd,
      cwd.slice(1),
      `step 0 ${words(4)}`,
      totals.cost,
      totals.input,
      totals.output,
      totals.read,
      totals.write,
      JSON.stringify({ id: model.modelID, providerID: model.providerID }),
      when,
      t + 3000,
    );
    return { id: sid, bytes };
  }

  close(): void {
    this.db.exec('COMMIT');
    this.db.close();
  }
}

export interface GeneratedFile {
  path: string;
  format: 'claude' | 'pi' | 'opencode';
  sessionId: string;
  cwd: string;
}

export async function generate(opts: GenerateOptions): Promise<GeneratedFile[]> {
  const target = opts.mb * 1024 * 1024;
  let written = 0;
  const files: GeneratedFile[] = [];
  let n = 0;
  const start = Date.parse('2025-09-01T00:00:00Z');
  let opencode: OpenCodeWriter | undefined;
  while (written < target) {
    n++;
    const cwd = `/bench/project-${n % 20}`;
    const sid = randomUUID();
    const dice = rand();
    const pi = dice < (opts.piShare ?? 0.2);
    const turns = 10 + Math.floor(rand() * 80);
    let when = start + n * 3_600_000;
    if (!pi && dice < (opts.piShare ?? 0.2) + (opts.opencodeShare ?? 0.15)) {
      if (!opencode) {
        const dir = join(opts.out, '.local', 'share', 'opencode');
        await mkdir(dir, { recursive: true });
        opencode = new OpenCodeWriter(join(dir, 'opencode.db'));
      }
      const made = opencode.session(cwd, when, turns);
      written += made.bytes;
      files.push({
        path: join(opts.out, '.local', 'share', 'opencode', 'opencode.db'),
        format: 'opencode',
        sessionId: made.id,
        cwd,
      });
      continue;
    }
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
  opencode?.close();
  return files;
}

/** Appends one more turn to a Claude Code transcript (what the 1% append step does). */
export function claudeAppendLines(sid: string, cwd: string, parent: string | null): string {
  return `${claudeTurn(sid, cwd, 999, parent, Date.parse('2025-12-01T00:00:00Z')).lines.join('\n')}\n`;
}

/** Appends one more turn to a pi session file (what the 1% append step does). */
export function piAppendLines(parent: string): string {
  return `${piTurn(999, parent, Date.parse('2025-12-01T00:00:00Z')).lines.join('\n')}\n`;
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
