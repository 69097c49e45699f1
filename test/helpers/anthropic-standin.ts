/**
 * A loopback stand-in for the Anthropic Messages API. The real agents (Claude Code, pi, OpenCode,
 * the Agent SDK) are pointed at it, so they run offline; it records every request body (which is
 * how tests read the context an agent rebuilt on resume) and answers by simple rules.
 */
import type { ServerResponse } from 'node:http';
import { estimateTokens, type RecordedRequest, startRecordingServer, writeJson } from './loopback-server.js';

export type { RecordedRequest };

export type AnthropicBlock = { type: string; [k: string]: unknown };
export interface AnthropicMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | AnthropicBlock[];
}
export interface AnthropicTool {
  name: string;
  [k: string]: unknown;
}
export interface AnthropicRequest {
  model: string;
  system?: string | AnthropicBlock[];
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  stream?: boolean;
  max_tokens?: number;
  [k: string]: unknown;
}

export interface Reply {
  text?: string;
  thinking?: string;
  toolUse?: { name: string; input: Record<string, unknown> };
  /** Several tool calls in one response (parallel calls), after `toolUse` if both are given. */
  toolUses?: { name: string; input: Record<string, unknown> }[];
  /** Answer with an API error instead (e.g. { status: 400, type: 'invalid_request_error' }). */
  error?: { status: number; type: string; message?: string };
  /** Usage fields laid over the estimated token counts (cache tokens, iterations, speed, ...). */
  usage?: Record<string, unknown>;
}

export type Rule = (req: AnthropicRequest) => Reply | undefined;

export interface StandIn {
  /** http://127.0.0.1:PORT (no /v1) */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Bodies of every POST …/messages (not count_tokens), in order. */
  messageRequests(): AnthropicRequest[];
  close(): Promise<void>;
}

function blocksOf(m: AnthropicMessage | undefined): AnthropicBlock[] {
  if (!m) return [];
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

/** The tool_result blocks of messages in the Messages API's shape, in order (none of a message whose content is a string). */
export function sentToolResults(messages: readonly { content: unknown }[]): AnthropicBlock[] {
  return messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as AnthropicBlock[]).filter((b) => b.type === 'tool_result') : [],
  );
}

/** A request or part of one without the cache markers (`cache_control`) agents add, at any depth: they are not part of the conversation. */
export function withoutCacheControl<T>(v: T): T {
  if (Array.isArray(v)) return v.map(withoutCacheControl) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v).flatMap(([k, x]) => (k === 'cache_control' ? [] : [[k, withoutCacheControl(x)]])),
    ) as T;
  return v;
}

/** Messages as the conversation they carry: each role and its blocks (a string as one text block), without cache markers. */
export function conversationOf(messages: readonly AnthropicMessage[]): { role: string; content: AnthropicBlock[] }[] {
  return messages.map((m) => ({ role: m.role, content: withoutCacheControl(blocksOf(m)) }));
}

/** Text of the blocks of a message, tool results included. */
export function textOf(m: AnthropicMessage | undefined): string {
  return blocksOf(m)
    .map((b) => {
      if (b.type === 'text') return String(b.text ?? '');
      if (b.type === 'tool_result') {
        const c = b.content;
        if (typeof c === 'string') return c;
        if (Array.isArray(c)) return c.map((x: { text?: string }) => x.text ?? '').join('\n');
      }
      return '';
    })
    .join('\n');
}

/**
 * A message as comparable items: its role and its text (blocks joined, as a model reads them), then its
 * calls and its results (each result's whole text).
 */
export function turnItems(m: AnthropicMessage): string[] {
  const blocks = blocksOf(m);
  const text = blocks.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])).join('\n');
  return [
    `${m.role}:${text}`,
    ...blocks.flatMap((b) => {
      if (b.type === 'tool_use') return [`call:${String(b.id)}:${String(b.name)}:${JSON.stringify(b.input)}`];
      if (b.type === 'tool_result') return [`result:${String(b.tool_use_id)}:${textOf({ role: 'user', content: [b] })}`];
      return [];
    }),
  ];
}

function lastUser(req: AnthropicRequest): AnthropicMessage | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) if (req.messages[i]?.role === 'user') return req.messages[i];
  return undefined;
}

function systemText(req: AnthropicRequest): string {
  if (!req.system) return '';
  return typeof req.system === 'string' ? req.system : req.system.map((b) => String(b.text ?? '')).join('\n');
}

function findTool(req: AnthropicRequest, names: RegExp): AnthropicTool | undefined {
  return req.tools?.find((t) => names.test(t.name));
}

/** The default rules, applied to the last user message, after any custom ones. */
export const defaultRules: Rule[] = [
  (req) => {
    const last = lastUser(req);
    const result = blocksOf(last).find((b) => b.type === 'tool_result');
    if (!result) return undefined;
    const first =
      textOf({ role: 'user', content: [result] })
        .split('\n')[0]
        ?.slice(0, 60) ?? '';
    return { text: `Tool finished: ${first}` };
  },
  (req) => {
    const text = textOf(lastUser(req));
    const all = `${systemText(req)}\n${text}`;
    if (/summar/i.test(all) && /(conversation|compact)/i.test(all) && !/RUN:|AGENT:/.test(text)) {
      return {
        text: '<analysis>stand-in analysis</analysis>\n<summary>\nStand-in summary of the conversation so far.\n</summary>',
      };
    }
    return undefined;
  },
  (req) => {
    const m = /RUN: (.+)/.exec(textOf(lastUser(req)));
    const tool = findTool(req, /^bash$/i);
    if (!m || !tool) return undefined;
    return { toolUse: { name: tool.name, input: { command: (m[1] as string).trim(), description: 'run command' } } };
  },
  (req) => {
    const m = /AGENT: (.+)/.exec(textOf(lastUser(req)));
    const tool = findTool(req, /^(Task|Agent|task)$/);
    if (!m || !tool) return undefined;
    return {
      toolUse: {
        name: tool.name,
        input: { description: 'sub task', prompt: (m[1] as string).trim(), subagent_type: 'general-purpose' },
      },
    };
  },
  (req) => ({ text: `ok: ${textOf(lastUser(req)).replace(/\s+/g, ' ').trim().slice(0, 40)}` }),
];

function contentBlocks(reply: Reply, n: number): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  if (reply.thinking) blocks.push({ type: 'thinking', thinking: reply.thinking, signature: `sig-standin-${n}` });
  if (reply.text) blocks.push({ type: 'text', text: reply.text });
  if (reply.toolUse)
    blocks.push({
      type: 'tool_use',
      id: `toolu_standin_${String(n).padStart(4, '0')}`,
      name: reply.toolUse.name,
      input: reply.toolUse.input,
    });
  (reply.toolUses ?? []).forEach((t, i) => {
    blocks.push({ type: 'tool_use', id: `toolu_standin_${String(n).padStart(4, '0')}_${i + 1}`, name: t.name, input: t.input });
  });
  if (blocks.length === 0) blocks.push({ type: 'text', text: '' });
  return blocks;
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export async function startAnthropicStandIn(opts: { rules?: Rule[] } = {}): Promise<StandIn> {
  const rules = [...(opts.rules ?? []), ...defaultRules];
  let counter = 0;

  const server = await startRecordingServer((req, res) => {
    const { path, body } = req;
    if (req.method === 'POST' && /\/messages\/count_tokens$/.test(path)) {
      writeJson(res, 200, { input_tokens: estimateTokens(body) });
      return;
    }
    if (req.method !== 'POST' || !/\/messages$/.test(path)) {
      res.writeHead(req.method === 'HEAD' || path === '/' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(
        req.method === 'HEAD' ? undefined : JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }),
      );
      return;
    }

    const areq = body as AnthropicRequest;
    const n = ++counter;
    let reply: Reply = { text: 'ok' };
    for (const rule of rules) {
      const r = rule(areq);
      if (r) {
        reply = r;
        break;
      }
    }
    if (reply.error) {
      res.writeHead(reply.error.status, { 'content-type': 'application/json', 'request-id': `req_standin_${n}` });
      res.end(
        JSON.stringify({ type: 'error', error: { type: reply.error.type, message: reply.error.message ?? 'stand-in error' } }),
      );
      return;
    }
    const content = contentBlocks(reply, n);
    const id = `msg_standin_${String(n).padStart(4, '0')}`;
    const usage = {
      input_tokens: estimateTokens(areq.messages),
      output_tokens: estimateTokens(content),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...reply.usage,
    };
    const stopReason = reply.toolUse || reply.toolUses?.length ? 'tool_use' : 'end_turn';
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: areq.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };

    if (!areq.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_standin_${n}` });
      res.end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_standin_${n}` });
    sse(res, 'message_start', {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
      } else if (block.type === 'thinking') {
        sse(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: block.thinking },
        });
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        });
      } else if (block.type === 'tool_use') {
        sse(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
      }
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
    });
    sse(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      // the whole usage again, as the API's final counts (an agent takes its fields from here)
      usage: reply.usage ? usage : { output_tokens: usage.output_tokens },
    });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    requests: server.requests,
    messageRequests: () =>
      server.requests.filter((r) => r.method === 'POST' && /\/messages$/.test(r.path)).map((r) => r.body as AnthropicRequest),
    close: server.close,
  };
}
