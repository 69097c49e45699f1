/**
 * The driver conformance suite over Zed (read-only): each sample session is seeded as Zed stores a
 * thread — a DbThread "0.3.0" row in threads.db under a temp XDG_DATA_HOME.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ZedDriver } from '../../src/formats/zed/index.js';
import { addUsage, emptyUsage, type Session, type Usage } from '../../src/model/types.js';
import { describeDriverConformance } from './driver-suite.js';

type Json = Record<string, unknown>;

/** A session as Zed's DbThread: User / Agent messages, tool results on the agent message, token usage. */
function toThread(s: Session): { thread: Json; model?: Json } {
  const messages: Json[] = [];
  const requestUsage: Record<string, Json> = {};
  let total: Usage = emptyUsage();
  let lastUser: string | undefined;
  let lastAgent: Json | undefined;
  let model: Json | undefined;
  const zedUsage = (u: Usage) => ({
    input_tokens: u.input,
    output_tokens: u.output,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  });
  for (const e of s.entries) {
    if (e.kind !== 'message') continue;
    const m = e.message;
    if (m.role === 'user') {
      lastUser = e.id;
      const content = m.parts.flatMap((p): Json[] =>
        p.type === 'text' ? [{ Text: p.text }] : p.type === 'image' ? [{ Image: { source: p.data, size: null } }] : [],
      );
      messages.push({ User: { id: e.id, content } });
    } else if (m.role === 'assistant') {
      const content = m.parts.flatMap((p): Json[] => {
        if (p.type === 'text') return [{ Text: p.text }];
        if (p.type === 'thinking') return [{ Thinking: { text: p.thinking, signature: p.signature ?? null } }];
        if (p.type === 'tool_call')
          return [
            { ToolUse: { id: p.id, name: p.name, raw_input: JSON.stringify(p.input), input: p.input, is_input_complete: true } },
          ];
        return [];
      });
      lastAgent = { content, tool_results: {} };
      messages.push({ Agent: lastAgent });
      if (m.model) model = { provider: m.provider ?? 'anthropic', model: m.model };
      if (m.usage) {
        total = addUsage(total, m.usage);
        if (lastUser) requestUsage[lastUser] = zedUsage(m.usage);
      }
    } else if (m.role === 'tool' && lastAgent) {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') continue;
        const text = typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        (lastAgent.tool_results as Json)[p.callId] = {
          tool_use_id: p.callId,
          tool_name: p.name ?? '',
          is_error: Boolean(p.isError),
          content: { Text: text },
          output: null,
        };
      }
    }
  }
  const thread: Json = {
    version: '0.3.0',
    title: s.title ?? '',
    messages,
    updated_at: s.updatedAt,
    cumulative_token_usage: zedUsage(total),
    request_token_usage: requestUsage,
    ...(model ? { model } : {}),
  };
  return { thread, model };
}

describeDriverConformance(
  'zed',
  async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-zed-'));
    const dir = join(home, 'data', 'zed', 'threads');
    await fs.mkdir(dir, { recursive: true });
    const file = join(dir, 'threads.db');
    const db = new Database(file);
    db.exec(
      'CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)',
    );
    db.close();
    return {
      driver: new ZedDriver({ home, env: { XDG_DATA_HOME: join(home, 'data') } }),
      async seed(s: Session) {
        const { thread } = toThread(s);
        const w = new Database(file);
        try {
          w.prepare(
            'INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          ).run(
            s.id,
            s.title ?? '',
            s.updatedAt,
            'json',
            Buffer.from(JSON.stringify(thread)),
            s.project ?? null,
            s.project ? '0' : null,
            s.createdAt,
          );
        } finally {
          w.close();
        }
        return s.id;
      },
      cleanup: () => fs.rm(home, { recursive: true, force: true }),
    };
  },
  // Zed records tokens, not cost.
  { noCost: true, noAdvisors: true },
);
