/**
 * A loopback stand-in for the OpenAI Responses API (POST /v1/responses, streamed as SSE), the wire
 * API the real Codex CLI speaks to a custom model provider. It records every request body (which is
 * how tests read the `input` Codex rebuilt on resume) and answers by simple rules on the last input
 * item: a function_call_output → text "Tool finished: …"; user text with `RUN: <cmd>` → a
 * function_call of the shell tool the request offers; a compaction request → a summary; else text
 * "ok: <start of the user text>".
 */
import type { ServerResponse } from 'node:http';
import { estimateTokens, type RecordedRequest, startRecordingServer, writeJson } from './loopback-server.js';

export type RecordedResponsesRequest = RecordedRequest;

export type ResponsesItem = { type?: string; [k: string]: unknown };
export interface ResponsesTool {
  type: string;
  name?: string;
  parameters?: { properties?: Record<string, { type?: string | string[] }> };
  [k: string]: unknown;
}
export interface ResponsesRequest {
  model: string;
  instructions?: string;
  input: ResponsesItem[];
  tools?: ResponsesTool[];
  stream?: boolean;
  [k: string]: unknown;
}

export interface ResponsesReply {
  text?: string;
  /**
   * A reasoning item's summary: one string is sent as before (the item alone, no summary events); a
   * list is one summary part each, streamed part by part (reasoning_summary_part.added, text delta and
   * done, part done), as the API streams a summary of several parts to @ai-sdk/openai and pi-ai.
   */
  reasoning?: string | string[];
  /** The reasoning item's `encrypted_content` (OpenAI's opaque reasoning, which codex replays); null without it. */
  encryptedReasoning?: string;
  /** `namespace` for a tool offered inside a namespace tool (codex's multi_agent_v1). */
  functionCall?: { name: string; arguments: Record<string, unknown>; namespace?: string };
  /**
   * What the API's web search did itself, before the text: one `web_search_call` item per action (no
   * output item follows, as from OpenAI). `{ query }` is a search (`action.query` and `queries`); an
   * action with its `type` goes as it is: `open_page` (url) or `find_in_page` (url, pattern).
   */
  webSearch?: { query: string } | WebSearchAction | WebSearchAction[];
}

/** The `action` of a `web_search_call` item, as codex's WebSearchAction has it. */
export type WebSearchAction =
  | { type: 'search'; query?: string; queries?: string[] }
  | { type: 'open_page'; url?: string }
  | { type: 'find_in_page'; url?: string; pattern?: string };

/** The actions a reply's `webSearch` stands for, in order. */
function webSearchActions(ws: NonNullable<ResponsesReply['webSearch']>): WebSearchAction[] {
  if (Array.isArray(ws)) return ws;
  if ('type' in ws) return [ws];
  return [{ type: 'search', query: ws.query, queries: [ws.query] }];
}

export type ResponsesRule = (req: ResponsesRequest) => ResponsesReply | undefined;

export interface ResponsesStandIn {
  /** http://127.0.0.1:PORT/v1 — what a provider's base_url takes */
  baseUrl: string;
  port: number;
  requests: RecordedResponsesRequest[];
  /** Bodies of every POST …/responses, in order. */
  responseRequests(): ResponsesRequest[];
  close(): Promise<void>;
}

/** An item as a line: a call by its name and arguments, an output by its call id, a message by role and text. */
export const itemLine = (i: ResponsesItem): string =>
  i.type === 'function_call'
    ? `call ${i.name} ${i.arguments}`
    : i.type === 'function_call_output'
      ? `output ${i.call_id} ${String(i.output)}`
      : `${(i as { role?: string }).role} ${itemText(i)}`;

/** Items codex adds itself on a turn (developer instructions, environment context), not part of a history. */
export function isCodexInjected(item: ResponsesItem): boolean {
  const it = item as { role?: string; content?: { text?: string }[] };
  if (it.role === 'developer') return true;
  return it.role === 'user' && (it.content?.[0]?.text ?? '').startsWith('<environment_context>');
}

/** codex's items as a history: without what codex adds itself (isCodexInjected) and the ids and statuses the API assigns. */
export function codexHistory(items: readonly ResponsesItem[]): ResponsesItem[] {
  return withoutItemIds(items.filter((i) => !isCodexInjected(i)));
}

/** Items without the ids and statuses the API assigns (what two sends of one history may differ in). */
export function withoutItemIds(items: readonly ResponsesItem[]): ResponsesItem[] {
  return items.map(({ id: _id, status: _status, ...rest }) => rest);
}

/** Text of one input item: message content text, or a function_call_output's output. */
export function itemText(item: ResponsesItem | undefined): string {
  if (!item) return '';
  if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
    const out = item.output;
    if (typeof out === 'string') return out;
    if (Array.isArray(out)) return out.map((c: { text?: string }) => c.text ?? '').join('\n');
    if (out && typeof out === 'object' && 'content' in out) return String((out as { content: unknown }).content);
    return '';
  }
  const content = item.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? '').join('\n');
  return '';
}

function lastItem(req: ResponsesRequest): ResponsesItem | undefined {
  return req.input[req.input.length - 1];
}

/** The text of the request's last input item when that item is a user message (a new prompt), else undefined. */
export function promptOfRequest(req: ResponsesRequest): string | undefined {
  const last = lastItem(req);
  return last && (last.type === 'message' || last.type === undefined) && last.role === 'user' ? itemText(last) : undefined;
}

function lastUserText(req: ResponsesRequest): string {
  for (let i = req.input.length - 1; i >= 0; i--) {
    const it = req.input[i];
    if (it && (it.type === 'message' || it.type === undefined) && it.role === 'user') return itemText(it);
  }
  return '';
}

/** The shell tool Codex offers differs by model family: `shell` (argv), `shell_command` or `exec_command` (a string). */
export function shellCall(req: ResponsesRequest, cmd: string): ResponsesReply['functionCall'] | undefined {
  const tool = req.tools?.find((t) => t.type === 'function' && /^(shell|shell_command|exec_command|bash)$/.test(t.name ?? ''));
  if (!tool?.name) return undefined;
  const props = tool.parameters?.properties ?? {};
  if ('cmd' in props) return { name: tool.name, arguments: { cmd } };
  const commandType = props.command?.type;
  const isArray = commandType === 'array' || (Array.isArray(commandType) && commandType.includes('array'));
  return { name: tool.name, arguments: { command: isArray ? ['bash', '-lc', cmd] : cmd } };
}

/**
 * A rule for a prompt `RUN: <cmd>`: reasoning of the summary parts `summaries`, with encrypted content
 * `gAAAA-enc-<n>-run` (n counting the calls), then a call of the shell tool the request offers.
 */
export function reasoningShellRule(summaries: string[]): ResponsesRule {
  let n = 0;
  return (req) => {
    const run = /RUN: (.+)/.exec(promptOfRequest(req) ?? '');
    const call = run && shellCall(req, (run[1] as string).trim());
    if (!call) return undefined;
    return { reasoning: summaries, encryptedReasoning: `gAAAA-enc-${++n}-run`, functionCall: call };
  };
}

/**
 * The first request `standIn` received from index `mark` on whose last input item is the user text
 * `prompt` and which offers tools (an agent's title request offers none).
 */
export function requestEndingWith(standIn: ResponsesStandIn, mark: number, prompt: string): ResponsesRequest {
  const req = standIn
    .responseRequests()
    .slice(mark)
    .find((r) => promptOfRequest(r) === prompt && (r.tools?.length ?? 0) > 0);
  if (!req) throw new Error(`no request ending with ${JSON.stringify(prompt)}`);
  return req;
}

export const defaultResponsesRules: ResponsesRule[] = [
  (req) => {
    const last = lastItem(req);
    if (last?.type !== 'function_call_output' && last?.type !== 'custom_tool_call_output') return undefined;
    const first = itemText(last).trim().split('\n')[0]?.slice(0, 60) ?? '';
    return { text: `Tool finished: ${first}` };
  },
  (req) => {
    const text = lastUserText(req);
    if (/summar/i.test(text) && /(conversation|compact|handoff)/i.test(text) && !/RUN:/.test(text)) {
      return { text: 'Stand-in summary of the conversation so far.' };
    }
    return undefined;
  },
  (req) => {
    const m = /RUN: (.+)/.exec(lastUserText(req));
    if (!m) return undefined;
    const call = shellCall(req, (m[1] as string).trim());
    return call ? { functionCall: call } : undefined;
  },
  (req) => ({ text: `ok: ${lastUserText(req).replace(/\s+/g, ' ').trim().slice(0, 40)}` }),
];

function outputItems(reply: ResponsesReply, n: number): ResponsesItem[] {
  const id = String(n).padStart(4, '0');
  const items: ResponsesItem[] = [];
  if (reply.reasoning) {
    items.push({
      type: 'reasoning',
      id: `rs_standin_${id}`,
      summary: (Array.isArray(reply.reasoning) ? reply.reasoning : [reply.reasoning]).map((text) => ({
        type: 'summary_text',
        text,
      })),
      encrypted_content: reply.encryptedReasoning ?? null,
    });
  }
  if (reply.webSearch)
    items.push(
      ...webSearchActions(reply.webSearch).map((action, i) => ({
        type: 'web_search_call',
        id: `ws_standin_${id}${i ? `_${i}` : ''}`,
        status: 'completed',
        action,
      })),
    );
  if (reply.text !== undefined) {
    items.push({
      type: 'message',
      id: `msg_standin_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  if (reply.functionCall) {
    items.push({
      type: 'function_call',
      id: `fc_standin_${id}`,
      status: 'completed',
      call_id: `call_standin_${id}`,
      name: reply.functionCall.name,
      ...(reply.functionCall.namespace ? { namespace: reply.functionCall.namespace } : {}),
      arguments: JSON.stringify(reply.functionCall.arguments),
    });
  }
  return items;
}

function sse(res: ServerResponse, data: { type: string; [k: string]: unknown }): void {
  res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

export async function startResponsesStandIn(opts: { rules?: ResponsesRule[] } = {}): Promise<ResponsesStandIn> {
  const rules = [...(opts.rules ?? []), ...defaultResponsesRules];
  let counter = 0;

  const server = await startRecordingServer((req, res) => {
    const { path, body } = req;
    if (req.method === 'GET' && /\/models$/.test(path)) {
      writeJson(res, 200, { object: 'list', data: [], models: [] });
      return;
    }
    if (req.method !== 'POST' || !/\/responses$/.test(path)) {
      writeJson(res, 404, { error: { type: 'not_found', message: path } });
      return;
    }

    const rreq = body as ResponsesRequest;
    const n = ++counter;
    let reply: ResponsesReply = { text: 'ok' };
    for (const rule of rules) {
      const r = rule(rreq);
      if (r) {
        reply = r;
        break;
      }
    }
    const items = outputItems(reply, n);
    const id = `resp_standin_${String(n).padStart(4, '0')}`;
    const usage = {
      input_tokens: estimateTokens(rreq.input),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: estimateTokens(items),
      output_tokens_details: { reasoning_tokens: reply.reasoning ? estimateTokens(reply.reasoning) : 0 },
      total_tokens: 0,
    };
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model: rreq.model,
      status: 'in_progress',
      output: [] as ResponsesItem[],
    };

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_standin_${n}` });
    let seq = 0;
    sse(res, { type: 'response.created', sequence_number: seq++, response });
    items.forEach((item, output_index) => {
      const streamedSummary = item.type === 'reasoning' && Array.isArray(reply.reasoning);
      sse(res, {
        type: 'response.output_item.added',
        sequence_number: seq++,
        output_index,
        item: { ...item, ...(item.type === 'message' ? { content: [] } : {}), ...(streamedSummary ? { summary: [] } : {}) },
      });
      if (streamedSummary) {
        (item.summary as { text: string }[]).forEach(({ text }, summary_index) => {
          const at = { item_id: item.id, output_index, summary_index };
          sse(res, {
            type: 'response.reasoning_summary_part.added',
            sequence_number: seq++,
            ...at,
            part: { type: 'summary_text', text: '' },
          });
          sse(res, { type: 'response.reasoning_summary_text.delta', sequence_number: seq++, ...at, delta: text });
          sse(res, { type: 'response.reasoning_summary_text.done', sequence_number: seq++, ...at, text });
          sse(res, {
            type: 'response.reasoning_summary_part.done',
            sequence_number: seq++,
            ...at,
            part: { type: 'summary_text', text },
          });
        });
      }
      if (item.type === 'message') {
        const text = String((item.content as { text: string }[])[0]?.text ?? '');
        sse(res, {
          type: 'response.output_text.delta',
          sequence_number: seq++,
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: text,
        });
        sse(res, {
          type: 'response.output_text.done',
          sequence_number: seq++,
          item_id: item.id,
          output_index,
          content_index: 0,
          text,
        });
      }
      sse(res, { type: 'response.output_item.done', sequence_number: seq++, output_index, item });
    });
    sse(res, {
      type: 'response.completed',
      sequence_number: seq++,
      response: { ...response, status: 'completed', output: items, usage },
    });
    res.end();
  });

  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    port: server.port,
    requests: server.requests,
    responseRequests: () =>
      server.requests.filter((r) => r.method === 'POST' && /\/responses$/.test(r.path)).map((r) => r.body as ResponsesRequest),
    close: server.close,
  };
}
