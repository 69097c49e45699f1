/**
 * Test data for the web viewer: sessions in the model shape, written into the real memory store
 * (the same SessionDriver interface the SQLite and PostgreSQL stores offer), covering branches, a
 * compaction, thinking, an image, tool calls with edit and diff output, several agents, models and
 * days, and one session of 10,000 entries.
 */
import { deflateSync } from 'node:zlib';
import type { SearchHit, SearchOptions, SessionDriver, SessionFilter } from '../../src/model/driver.js';
import type { ContextOptions } from '../../src/model/tree.js';
import type { Entry, Message, Session, SessionInfo, Usage } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  reasoning: 0,
});

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** A real PNG: a w×h picture with a coloured square on a light background. */
export function makePng(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rows: Buffer[] = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      const inside = x > w / 4 && x < (3 * w) / 4 && y > h / 4 && y < (3 * h) / 4;
      row.set(inside ? [220, 60, 50] : [235, 240, 245], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let clock = 0;
function at(day: string, minute: number): string {
  return new Date(Date.parse(`${day}T09:00:00.000Z`) + minute * 60_000 + clock++).toISOString();
}

function msg(id: string, parentId: string | null, timestamp: string, message: Message, extra: Partial<Entry> = {}): Entry {
  return { id, parentId, timestamp, kind: 'message', message, ...extra } as Entry;
}

/** A session of these entries, created at its first entry and updated at its last. */
function sessionOf(meta: Pick<Session, 'id' | 'source' | 'project' | 'title' | 'leafId'>, entries: Entry[]): Session {
  return {
    ...meta,
    createdAt: entries[0]?.timestamp ?? '',
    updatedAt: entries[entries.length - 1]?.timestamp ?? '',
    messageCount: 0,
    entries,
  };
}

export const PARSER_ID = 'sess-parser-0001';
export const PI_ID = 'sess-build-0002';
export const BIG_ID = 'sess-big-0003';
export const BIG_NEEDLE = 'needle-xylophone';
export const BIG_NEEDLE_INDEX = 7_500;
export const BIG_ENTRIES = 10_000;
export const ALT_LEAF = 'p-alt-2';

/** The parser session: thinking, an edit, a diff, an image, a compaction and a second branch. */
export function parserSession(): Session {
  const day = '2026-11-18';
  const png = makePng(120, 80).toString('base64');
  const model = 'claude-sonnet-4-5';
  const entries: Entry[] = [
    msg('p-1', null, at(day, 0), {
      role: 'user',
      parts: [{ type: 'text', text: 'The tokenizer drops the last token. Fix the parser bug please.' }],
    }),
    msg('p-2', 'p-1', at(day, 1), {
      role: 'assistant',
      model,
      provider: 'anthropic',
      // with a request to an advisor model inside the response (Claude Code's advisor tool)
      usage: {
        ...usage(1200, 340, 800, 200),
        advisors: [{ model: 'claude-opus-5', input: 900, output: 120, cacheRead: 0, cacheWrite: 0 }],
      },
      cost: 0.0123,
      parts: [
        {
          type: 'thinking',
          thinking: 'The loop condition uses < length - 1, which skips the final character.',
          signature: 'sig-1',
        },
        { type: 'text', text: 'The loop stops one character early. I will fix the bound.' },
        {
          type: 'tool_call',
          id: 'call-edit-1',
          name: 'Edit',
          input: {
            file_path: '/home/dev/parser/src/tokenizer.ts',
            old_string: 'for (let i = 0; i < src.length - 1; i++) {\n  push(src[i]);\n}',
            new_string: 'for (let i = 0; i < src.length; i++) {\n  push(src[i]);\n}',
          },
        },
      ],
    }),
    msg('p-3', 'p-2', at(day, 2), {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: 'call-edit-1',
          name: 'Edit',
          content: 'The file /home/dev/parser/src/tokenizer.ts has been updated.',
        },
      ],
    }),
    msg('p-4', 'p-3', at(day, 3), {
      role: 'assistant',
      model,
      provider: 'anthropic',
      usage: usage(1500, 120, 1900, 0),
      cost: 0.0061,
      parts: [
        { type: 'tool_call', id: 'call-bash-1', name: 'Bash', input: { command: 'git diff', description: 'Show the change' } },
      ],
    }),
    msg('p-5', 'p-4', at(day, 4), {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: 'call-bash-1',
          name: 'Bash',
          content:
            'diff --git a/src/tokenizer.ts b/src/tokenizer.ts\n--- a/src/tokenizer.ts\n+++ b/src/tokenizer.ts\n@@ -10,3 +10,3 @@ export function tokenize(src: string) {\n-  for (let i = 0; i < src.length - 1; i++) {\n+  for (let i = 0; i < src.length; i++) {\n     push(src[i]);\n   }',
        },
      ],
    }),
    msg('p-6', 'p-5', at(day, 5), {
      role: 'assistant',
      model,
      provider: 'anthropic',
      usage: usage(1700, 80, 2100, 0),
      cost: 0.0042,
      parts: [{ type: 'text', text: 'Fixed: the loop now visits every character. Tests pass.' }],
    }),
    // Second branch from p-1's reply: the user went back and asked for something else.
    msg('p-alt-1', 'p-2', at(day, 6), {
      role: 'user',
      parts: [{ type: 'text', text: 'Actually, try a different approach: rewrite the lexer as a state machine.' }],
    }),
    msg(ALT_LEAF, 'p-alt-1', at(day, 7), {
      role: 'assistant',
      model: 'claude-opus-4-1',
      provider: 'anthropic',
      usage: usage(2400, 900, 0, 0),
      cost: 0.105,
      parts: [{ type: 'text', text: 'Rewriting the lexer as a state machine with states START, IDENT and NUMBER.' }],
    }),
    // The main branch goes on after a compaction.
    {
      id: 'p-c',
      parentId: 'p-6',
      timestamp: at('2026-11-19', 0),
      kind: 'compaction',
      summary: 'Summary: the tokenizer skipped its last character because of an off-by-one loop bound; fixed and tested.',
      firstKeptEntryId: 'p-6',
      tokensBefore: 48_000,
    },
    msg('p-7', 'p-c', at('2026-11-19', 1), {
      role: 'user',
      parts: [
        { type: 'text', text: 'Here is a screenshot of the failing page. What is wrong in it?' },
        { type: 'image', mediaType: 'image/png', data: png },
      ],
    }),
    msg('p-8', 'p-7', at('2026-11-19', 2), {
      role: 'assistant',
      model,
      provider: 'anthropic',
      usage: usage(3100, 150, 0, 2600),
      cost: 0.0201,
      parts: [
        {
          type: 'text',
          text: 'The screenshot shows a red block where the token list should be: the renderer gets an empty list.',
        },
      ],
    }),
  ];
  return sessionOf(
    { id: PARSER_ID, source: 'claude', project: '/home/dev/parser', title: 'Fix the parser bug in the tokenizer', leafId: 'p-8' },
    entries,
  );
}

export function piSession(): Session {
  const entries: Entry[] = [];
  let parent: string | null = null;
  for (let i = 0; i < 6; i++) {
    const day = `2026-11-${String(15 + (i % 3)).padStart(2, '0')}`;
    const u = msg(`b-u${i}`, parent, at(day, i * 3), {
      role: 'user',
      parts: [{ type: 'text', text: `Step ${i}: tidy the build script ${i}` }],
    });
    const a = msg(`b-a${i}`, u.id, at(day, i * 3 + 1), {
      role: 'assistant',
      model: 'gpt-5',
      provider: 'openai',
      usage: usage(900 + i * 100, 200, 300, 0),
      cost: 0.004 + i * 0.001,
      parts: [
        // the last step searched the web through the provider (codex's web_search_call): no result follows
        ...(i === 5
          ? [
              {
                type: 'tool_call' as const,
                id: 'ws_build_1',
                name: 'web_search',
                input: { type: 'search', query: 'esbuild watch mode' },
                meta: { providerExecuted: true },
              },
            ]
          : []),
        { type: 'text', text: `Done with step ${i} of the build refactor.` },
      ],
    });
    entries.push(u, a);
    parent = a.id;
  }
  return sessionOf({ id: PI_ID, source: 'pi', project: '/home/dev/build', title: 'Refactor the build scripts' }, entries);
}

/** 10,000 entries: alternating user/assistant turns, a bash call every 50 turns, one needle. */
export function bigSession(): Session {
  const entries: Entry[] = [];
  let parent: string | null = null;
  const base = Date.parse('2026-11-20T08:00:00.000Z');
  for (let i = 0; i < BIG_ENTRIES; i++) {
    const id = `big-${i}`;
    const ts = new Date(base + i * 1000).toISOString();
    let m: Message;
    if (i % 2 === 0) {
      m = {
        role: 'user',
        parts: [
          {
            type: 'text',
            text:
              i === BIG_NEEDLE_INDEX
                ? `Please look for the ${BIG_NEEDLE} in module ${i}`
                : `Turn ${i}: continue with module ${i}`,
          },
        ],
      };
    } else if (i % 100 === 1) {
      m = {
        role: 'assistant',
        model: 'claude-haiku-4-5',
        usage: usage(400, 60),
        cost: 0.0005,
        parts: [{ type: 'tool_call', id: `bc-${i}`, name: 'bash', input: { command: `ls module-${i}` } }],
      };
    } else if (i % 100 === 3) {
      // answers the call two entries back, from a user turn's position: keep the tree linear
      m = {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: `bc-${i - 2}`, content: `module-${i - 2}/index.ts\nmodule-${i - 2}/util.ts` }],
      };
    } else {
      m = {
        role: 'assistant',
        model: 'claude-haiku-4-5',
        usage: usage(300, 40),
        cost: 0.0003,
        parts: [{ type: 'text', text: `Working on module ${i}.` }],
      };
    }
    entries.push(msg(id, parent, ts, m));
    parent = id;
  }
  return sessionOf({ id: BIG_ID, source: 'opencode', project: '/home/dev/big', title: 'A very long session' }, entries);
}

/** A few small sessions spread over days, agents and projects, for the list and the charts. */
export function smallSessions(): Session[] {
  const out: Session[] = [];
  const agents = ['claude', 'pi', 'opencode', 'codex'];
  const models = ['claude-sonnet-4-5', 'gpt-5', 'claude-haiku-4-5', 'gpt-5-codex'];
  for (let i = 0; i < 8; i++) {
    const day = `2026-11-${String(10 + i).padStart(2, '0')}`;
    const u = msg(`s${i}-u`, null, at(day, 0), {
      role: 'user',
      parts: [{ type: 'text', text: `Small task number ${i}: update the docs` }],
    });
    const a = msg(`s${i}-a`, u.id, at(day, 1), {
      role: 'assistant',
      model: models[i % 4],
      usage: usage(2000 + i * 500, 300 + i * 50, 1000 * i, 0),
      cost: 0.01 * (i + 1),
      parts: [{ type: 'text', text: `Updated the docs for task ${i}.` }],
    });
    out.push({
      id: `sess-small-${i}`,
      source: agents[i % 4] as string,
      project: i % 2 ? '/home/dev/docs' : '/home/dev/site',
      title: `Docs task ${i}`,
      createdAt: u.timestamp,
      updatedAt: a.timestamp,
      messageCount: 0,
      entries: [u, a],
    });
  }
  return out;
}

/**
 * The memory store marks every session it holds as its own (`threadbase`); an index keeps the
 * agent each session came from. This view over the store reports that agent, as the index does.
 */
export class AgentLabelledStore implements SessionDriver {
  readonly name = 'memory';
  readonly capabilities;
  constructor(
    readonly store: SessionDriver,
    private readonly agentOf: Map<string, string>,
  ) {
    this.capabilities = store.capabilities;
  }
  private label<T extends { id?: string; sessionId?: string; source: string }>(x: T): T {
    const agent = this.agentOf.get(x.id ?? x.sessionId ?? '');
    return agent ? { ...x, source: agent } : x;
  }
  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const all = (await this.store.listSessions({ ...filter, source: undefined })).map((s) => this.label(s));
    return filter.source ? all.filter((s) => s.source === filter.source) : all;
  }
  async getSession(id: string) {
    const s = await this.store.getSession(id);
    return s ? this.label(s) : undefined;
  }
  getEntry(sessionId: string, entryId: string) {
    return this.store.getEntry(sessionId, entryId);
  }
  getAncestry(sessionId: string, entryId: string) {
    return this.store.getAncestry(sessionId, entryId);
  }
  getContext(sessionId: string, opts?: ContextOptions) {
    return this.store.getContext(sessionId, opts);
  }
  getMessages(sessionId: string) {
    return this.store.getMessages(sessionId);
  }
  usage(filter?: SessionFilter) {
    return this.store.usage(filter);
  }
  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.store.search) return [];
    return (await this.store.search(query, { ...opts, source: undefined }))
      .map((h) => this.label(h))
      .filter((h) => !opts.source || h.source === opts.source);
  }
}

export interface SeededStore {
  driver: SessionDriver;
  sessions: Session[];
}

export function allFixtureSessions(): Session[] {
  return [parserSession(), piSession(), bigSession(), ...smallSessions()];
}

/** Writes the sessions into a store through its driver, keeping their ids. */
export async function seedStore(store: SessionDriver, sessions: Session[] = allFixtureSessions()): Promise<SeededStore> {
  const agentOf = new Map<string, string>();
  const write = store.writeSession?.bind(store);
  if (!write) throw new Error(`${store.name} cannot write sessions`);
  for (const s of sessions) {
    const written = await write(s, { keepId: true });
    if (written.id !== s.id) throw new Error(`${store.name} store did not keep id ${s.id}`);
    agentOf.set(s.id, s.source);
  }
  return { driver: new AgentLabelledStore(store, agentOf), sessions };
}

export async function seedMemoryStore(): Promise<SeededStore> {
  return seedStore(new MemoryStore());
}
