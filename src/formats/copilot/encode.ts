/**
 * A session's current branch as GitHub Copilot CLI events (events.jsonl), which `copilot --resume`
 * loads: Copilot CLI validates each line on load (an event `id` that is not a UUID, or a
 * session.start without `copilotVersion`, makes it refuse the file as corrupted), so only the fields
 * it knows are written. What is written is the context the model saw (a compaction's summary as a
 * user message), each message as the events Copilot CLI records for it.
 */
import { randomUUID } from 'node:crypto';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { buildContext, pathToLeaf } from '../../model/tree.js';
import type { Message, Session } from '../../model/types.js';
import { toJsonl } from '../shared/atomic.js';
import type { EncodedJsonl } from '../shared/encoded.js';
import { UniqueToolIds } from '../shared/unique-tool-ids.js';
import type { JsonObject } from './events.js';

/** The Copilot CLI version whose event shapes these are (its session.start names one). */
export const COPILOT_VERSION = '1.0.102';

export interface CopilotEncodeOptions {
  sessionId?: string;
  cwd?: string;
}

function resultText(content: string | readonly { type: string; text?: string }[]): { text: string; dropped: number } {
  if (typeof content === 'string') return { text: content, dropped: 0 };
  let dropped = 0;
  const text = content
    .map((c) => {
      if (c.type === 'text') return c.text ?? '';
      dropped++;
      return `[${c.type} omitted]`;
    })
    .join('\n');
  return { text, dropped };
}

export function encodeCopilotEvents(session: Session, opts: CopilotEncodeOptions = {}): EncodedJsonl {
  const id = opts.sessionId ?? randomUUID();
  const cwd = opts.cwd ?? session.project;
  const warnings: string[] = [];
  const path = pathToLeaf(session).filter((e) => !e.sidechain);
  // a message's time: its entry's (buildContext hands on the entry's own message object)
  const timeOf = new Map<Message, string>();
  for (const e of path) if (e.kind === 'message') timeOf.set(e.message, e.timestamp);
  const messages = buildContext({ entries: path, leafId: path.at(-1)?.id ?? null }, { mergeSplitResponses: false }).messages;
  const start = session.createdAt || path[0]?.timestamp || new Date().toISOString();
  let time = start;
  const records: JsonObject[] = [];
  const push = (type: string, data: JsonObject) => {
    const last = records.at(-1);
    const eventId = randomUUID();
    records.push({ type, data, id: eventId, timestamp: time, parentId: last ? (last.id as string) : null });
  };
  const model = messages.findLast((m) => m.role === 'assistant' && m.model)?.model;
  push('session.start', {
    sessionId: id,
    version: 1,
    producer: 'threadbase',
    copilotVersion: COPILOT_VERSION,
    startTime: start,
    ...(model ? { selectedModel: model } : {}),
    context: cwd ? { cwd } : {},
    alreadyInUse: false,
    remoteSteerable: false,
  });
  const toolIds = new UniqueToolIds();
  const open = new Map<string, string>();
  let unsigned = 0;
  let media = 0;
  let system = 0;
  const answer = (written: string, text: string, isError: boolean) => {
    open.delete(written);
    push('tool.execution_complete', {
      toolCallId: written,
      success: !isError,
      ...(isError ? { error: { message: text } } : { result: { content: text } }),
    });
  };
  const closeOpen = () => {
    for (const written of [...open.keys()]) {
      answer(written, 'No result was recorded for this call.', true);
      warnings.push(`tool call ${written} had no result: written as an error result`);
    }
  };
  for (const given of messages) {
    time = timeOf.get(given) ?? time;
    // a call the provider ran itself (codex's web search) owes no result: a text note in its turn
    const m = providerCallsAsNotes(given);
    if (m.role === 'system') {
      system++;
      continue;
    }
    // tool results first (in whatever message they came), each answering its call
    for (const p of m.parts) {
      if (p.type !== 'tool_result') continue;
      const written = toolIds.result(p.callId);
      if (!open.has(written)) {
        warnings.push(`tool result for ${p.callId} has no call before it: left out`);
        continue;
      }
      const { text, dropped } = resultText(p.content);
      media += dropped;
      answer(written, text, Boolean(p.isError));
    }
    if (m.role === 'tool') continue;
    if (m.role === 'user') {
      const texts: string[] = [];
      const attachments: JsonObject[] = [];
      for (const p of m.parts) {
        if (p.type === 'text') texts.push(p.text);
        // an image as Copilot CLI attaches one: resumed, it is sent as an image block
        else if (p.type === 'image' && p.data) attachments.push({ type: 'blob', mimeType: p.mediaType, data: p.data });
        else if (p.type === 'file' && p.text !== undefined) texts.push(p.text);
        else if (p.type === 'image' || p.type === 'file') {
          media++;
          texts.push(`[${p.type} omitted]`);
        }
      }
      if (texts.length === 0 && attachments.length === 0) continue;
      closeOpen();
      push('user.message', {
        content: texts.join('\n'),
        messageId: randomUUID(),
        ...(attachments.length ? { attachments } : {}),
      });
      continue;
    }
    // assistant
    closeOpen();
    const blocks: JsonObject[] = [];
    const text: string[] = [];
    const requests: JsonObject[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking') {
        // an unsigned block would be refused by the Messages API on resume
        if (p.signature) blocks.push({ type: 'thinking', thinking: p.thinking, signature: p.signature });
        else unsigned++;
      } else if (p.type === 'redacted_thinking') blocks.push({ type: 'redacted_thinking', data: p.data });
      else if (p.type === 'text') text.push(p.text);
      else if (p.type === 'image' || p.type === 'file') {
        media++;
        text.push(`[${p.type} omitted]`);
      } else if (p.type === 'tool_call') {
        const written = toolIds.call(p.id);
        requests.push({ toolCallId: written, name: p.name, arguments: p.input, type: 'function' });
      }
    }
    if (blocks.length === 0 && text.length === 0 && requests.length === 0) continue;
    const apiCallId = m.responseId ?? `threadbase-${randomUUID()}`;
    const u = m.usage;
    // its usage as Copilot CLI records a response's, just before the message (inputTokens include the cache)
    if (u)
      push('session.usage_record', {
        usage: {
          model: m.model ?? 'unknown',
          inputTokens: u.input + u.cacheRead + u.cacheWrite,
          outputTokens: u.output,
          cacheReadTokens: u.cacheRead,
          cacheWriteTokens: u.cacheWrite,
          ...(u.reasoning ? { reasoningTokens: u.reasoning } : {}),
          ...(m.provider ? { modelProvider: m.provider } : {}),
          apiCallId,
        },
      });
    push('assistant.message', {
      messageId: randomUUID(),
      apiCallId,
      content: text.join(''),
      toolRequests: requests,
      ...(m.model ? { model: m.model } : {}),
      ...(blocks.length ? { reasoningBlocks: { provider: 'anthropic-messages', blocks } } : {}),
    });
    for (const r of requests) {
      open.set(r.toolCallId as string, r.name as string);
      push('tool.execution_start', { toolCallId: r.toolCallId, toolName: r.name, arguments: r.arguments });
    }
  }
  closeOpen();
  if (unsigned)
    warnings.push(`${unsigned} thinking block(s) without a signature left out (the Messages API refuses them on resume)`);
  if (media) warnings.push(`${media} image(s) or file(s) written as a text note`);
  if (system) warnings.push(`${system} system message(s) left out: Copilot CLI sends its own system prompt`);
  const advisors = messages.filter((m) => m.usage?.advisors?.length).length;
  if (advisors) warnings.push(`${advisors} response(s)' advisor requests left out: Copilot CLI has no place for them`);
  return {
    sessionId: id,
    relativePath: `session-state/${id}/events.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings,
  };
}

/** The workspace.yaml Copilot CLI keeps beside the events (its flat scalars, the name single-quoted). */
export function encodeWorkspace(
  id: string,
  cwd: string | undefined,
  name: string | undefined,
  created: string,
  updated: string,
): string {
  const quote = (s: string) => `'${s.replace(/'/g, "''").replace(/\s*\n\s*/g, ' ')}'`;
  return [
    `id: ${id}`,
    ...(cwd ? [`cwd: ${quote(cwd)}`] : []),
    ...(name ? [`name: ${quote(name)}`] : []),
    'user_named: false',
    'summary_count: 0',
    'fork_count: 0',
    `created_at: ${created}`,
    `updated_at: ${updated}`,
    '',
  ].join('\n');
}
