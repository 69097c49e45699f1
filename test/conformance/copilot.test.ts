/**
 * The driver conformance suite over GitHub Copilot CLI (read-only): each sample session is seeded as
 * Copilot CLI records one — `session-state/<id>/events.jsonl` (a usage record before each
 * assistant.message, tool.execution_start/complete around each call) and `workspace.yaml`.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { Session } from '../../src/model/types.js';
import { describeDriverConformance } from './driver-suite.js';

type Json = Record<string, unknown>;

/** A session as Copilot CLI's events, each hung from the one before. */
function toEvents(s: Session): Json[] {
  const out: Json[] = [];
  const push = (type: string, data: Json, timestamp: string, id = `ev-${out.length + 1}-${s.id.slice(0, 8)}`) =>
    out.push({ type, data, id, timestamp, parentId: (out.at(-1)?.id as string | undefined) ?? null });
  push('session.start', { sessionId: s.id, version: 1, startTime: s.createdAt, context: { cwd: s.project } }, s.createdAt);
  for (const e of s.entries) {
    if (e.kind !== 'message') continue;
    const m = e.message;
    if (m.role === 'user') {
      const text = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      const attachments = m.parts.flatMap((p) =>
        p.type === 'image' ? [{ type: 'blob', data: p.data, mimeType: p.mediaType }] : [],
      );
      push('user.message', { content: text, ...(attachments.length ? { attachments } : {}) }, e.timestamp, e.id);
    } else if (m.role === 'assistant') {
      const u = m.usage;
      const apiCallId = m.responseId ?? `api-${e.id}`;
      if (u)
        push(
          'session.usage_record',
          {
            usage: {
              model: m.model,
              inputTokens: u.input + u.cacheRead + u.cacheWrite,
              outputTokens: u.output,
              cacheReadTokens: u.cacheRead,
              cacheWriteTokens: u.cacheWrite,
              modelProvider: m.provider,
              apiCallId,
            },
          },
          e.timestamp,
        );
      const blocks = m.parts.flatMap((p) =>
        p.type === 'thinking' ? [{ type: 'thinking', thinking: p.thinking, signature: p.signature }] : [],
      );
      push(
        'assistant.message',
        {
          model: m.model,
          content: m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
          toolRequests: m.parts.flatMap((p) =>
            p.type === 'tool_call' ? [{ toolCallId: p.id, name: p.name, arguments: p.input, type: 'function' }] : [],
          ),
          ...(blocks.length ? { reasoningBlocks: { provider: 'anthropic-messages', blocks } } : {}),
          apiCallId,
        },
        e.timestamp,
        e.id,
      );
      for (const p of m.parts)
        if (p.type === 'tool_call')
          push('tool.execution_start', { toolCallId: p.id, toolName: p.name, arguments: p.input }, e.timestamp);
    } else if (m.role === 'tool') {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') continue;
        const content =
          typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        push('tool.execution_complete', { toolCallId: p.callId, success: !p.isError, result: { content } }, e.timestamp, e.id);
      }
    }
  }
  return out;
}

describeDriverConformance(
  'copilot',
  async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-copilot-'));
    return {
      driver: new CopilotDriver({ home, env: {} }),
      async seed(s: Session) {
        const dir = join(home, '.copilot', 'session-state', s.id);
        await fs.mkdir(dir, { recursive: true });
        await fs.writeFile(
          join(dir, 'events.jsonl'),
          `${toEvents(s)
            .map((l) => JSON.stringify(l))
            .join('\n')}\n`,
        );
        await fs.writeFile(
          join(dir, 'workspace.yaml'),
          `id: ${s.id}\ncwd: ${s.project}\nname: '${(s.title ?? '').replace(/'/g, "''")}'\nuser_named: false\n`,
        );
        return s.id;
      },
      cleanup: () => fs.rm(home, { recursive: true, force: true }),
    };
  },
  // Copilot CLI's usage `cost` counts premium requests, not USD; it has no place for advisor requests.
  { noCost: true, noAdvisors: true },
);
