/**
 * The driver conformance suite over Gemini CLI (read-only): each sample session is seeded as
 * Gemini CLI records a chat — a JSONL chat under ~/.gemini/tmp/<project>/chats, tool results on
 * the model's tool calls.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { Session } from '../../src/model/types.js';
import { describeDriverConformance } from './driver-suite.js';

type Json = Record<string, unknown>;

/** A session as Gemini CLI's ConversationRecord lines. */
function toChat(s: Session): Json[] {
  const lines: Json[] = [
    { sessionId: s.id, projectHash: 'conformance', startTime: s.createdAt, lastUpdated: s.updatedAt, kind: 'main' },
  ];
  let lastModel: Json | undefined;
  for (const e of s.entries) {
    if (e.kind !== 'message') continue;
    const m = e.message;
    if (m.role === 'user') {
      const content = m.parts.flatMap((p): Json[] =>
        p.type === 'text'
          ? [{ text: p.text }]
          : p.type === 'image'
            ? [{ inlineData: { mimeType: p.mediaType, data: p.data } }]
            : [],
      );
      lines.push({ id: e.id, timestamp: e.timestamp, type: 'user', content });
    } else if (m.role === 'assistant') {
      const u = m.usage;
      lastModel = {
        id: e.id,
        timestamp: e.timestamp,
        type: 'gemini',
        content: m.parts.flatMap((p): Json[] => (p.type === 'text' ? [{ text: p.text }] : [])),
        thoughts: m.parts.flatMap((p): Json[] =>
          p.type === 'thinking' ? [{ subject: '', description: p.thinking, timestamp: e.timestamp }] : [],
        ),
        toolCalls: m.parts.flatMap((p): Json[] =>
          p.type === 'tool_call' ? [{ id: p.id, name: p.name, args: p.input, status: 'success', timestamp: e.timestamp }] : [],
        ),
        ...(u
          ? {
              tokens: {
                input: u.input + u.cacheRead,
                output: u.output,
                cached: u.cacheRead,
                thoughts: u.reasoning,
                tool: 0,
                total: u.input + u.cacheRead + u.output,
              },
            }
          : {}),
        ...(m.model ? { model: m.model } : {}),
      };
      lines.push(lastModel);
    } else if (m.role === 'tool' && lastModel) {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') continue;
        const call = (lastModel.toolCalls as Json[]).find((c) => c.id === p.callId);
        if (!call) continue;
        const output =
          typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        call.result = [
          { functionResponse: { id: p.callId, name: call.name, response: p.isError ? { error: output } : { output } } },
        ];
        call.status = p.isError ? 'error' : 'success';
        call.timestamp = e.timestamp;
      }
      // Gemini CLI re-appends a message it updates; the last record wins.
      lines.push({ ...lastModel });
    }
  }
  return lines;
}

describeDriverConformance(
  'gemini',
  async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-gemini-'));
    let n = 0;
    return {
      driver: new GeminiDriver({ home, env: {} }),
      async seed(s: Session) {
        const dir = join(home, '.gemini', 'tmp', `project-${++n}`);
        await fs.mkdir(join(dir, 'chats'), { recursive: true });
        if (s.project) await fs.writeFile(join(dir, '.project_root'), s.project);
        const file = join(dir, 'chats', `session-2025-03-01T10-00-${s.id.slice(0, 8)}.jsonl`);
        await fs.writeFile(
          file,
          `${toChat(s)
            .map((l) => JSON.stringify(l))
            .join('\n')}\n`,
        );
        return s.id;
      },
      cleanup: () => fs.rm(home, { recursive: true, force: true }),
    };
  },
  // Gemini CLI records tokens (no cost, no cache writes).
  { noCost: true, noCacheWrite: true, noAdvisors: true },
);
