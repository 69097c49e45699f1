/**
 * Model messages to Codex ResponseItems: what a written rollout records and what codex then sends
 * as the Responses API `input` on resume. Reasoning is written as a reasoning item only when it came
 * from the Responses API (with OpenAI's encrypted_content in `meta.encryptedContent`); thinking from another
 * provider cannot be replayed to the model, so the writer keeps it as an `agent_reasoning` event
 * (shown by codex, not sent).
 */
import { declinedMarkOf } from '../../convert/declined.js';
import type { Context } from '../../model/tree.js';
import type { ImagePart, Message, Part, ThinkingPart, ToolResultPart } from '../../model/types.js';
import { jsonValueOf } from '../shared/jsonl.js';
import { joinOpenAIReasoning, openaiItemId } from '../shared/openai-reasoning.js';
import { CODEX_CANCELLED, CODEX_REFUSED, codexDeclinedMark } from './denials.js';
import { normalizeCalls } from './history.js';
import { CODEX_API, type JsonObject, searchCallId } from './items.js';

/**
 * A web search action as codex records it: the API's `find` (a search in a page) is codex's
 * `find_in_page`; codex 0.169 reads an action it does not know as `{type: 'other'}`, dropping its url
 * and pattern (checked with the real binary), so the API's name is written in codex's.
 */
function webSearchAction(action: JsonObject): JsonObject {
  return action.type === 'find' ? { ...action, type: 'find_in_page' } : action;
}

export function imageUrl(p: ImagePart | { mediaType: string; data?: string; url?: string }): string {
  return p.data !== undefined ? `data:${p.mediaType};base64,${p.data}` : (p.url ?? '');
}

const reasoningText = (texts: string[]): JsonObject[] => texts.map((text) => ({ type: 'reasoning_text', text }));

/**
 * Thinking that can go back to the Responses API as a reasoning item: codex's own (not another
 * provider's that codex kept in an event and never sends), or OpenAI reasoning with its encrypted content, on the part or on another part of the same item (OpenCode keeps it on an
 * item's last summary part only).
 */
export function isReplayableReasoning(m: Message, p: ThinkingPart): boolean {
  // another provider's thinking read from the rollout (agent_reasoning, a compaction's kept reasoning),
  // on a message read as codex's
  if (p.meta?.codexNotSent === true) return false;
  if (m.api === CODEX_API || typeof p.meta?.encryptedContent === 'string') return true;
  const id = openaiItemId(p);
  return (
    id !== undefined &&
    m.parts.some((q) => q.type === 'thinking' && openaiItemId(q) === id && typeof q.meta?.encryptedContent === 'string')
  );
}

function resultOutput(p: ToolResultPart): unknown {
  // a refused or cancelled call in codex's words for it, as codex records its own (denials.ts)
  const mark = declinedMarkOf(p);
  if (mark && codexDeclinedMark(p.content) !== mark) return mark === 'refused' ? CODEX_REFUSED : CODEX_CANCELLED;
  if (typeof p.content === 'string') return p.content;
  const onlyText = p.content.every((c) => c.type === 'text');
  if (onlyText) return p.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return p.content.map((c) => {
    if (c.type === 'text') return { type: 'input_text', text: c.text };
    // view_image sends its detail level; codex sends it back on resume
    if (c.type === 'image')
      return { type: 'input_image', image_url: imageUrl(c), ...(c.meta?.detail ? { detail: c.meta.detail } : {}) };
    return { type: 'input_text', text: c.text ?? `[file ${c.name ?? c.mediaType}]` };
  });
}

function contentItem(p: Part, output: boolean): JsonObject | undefined {
  // an item codex recorded that the part does not say all of (items.ts contentToParts): as it was
  if (p.meta?.codexContent !== undefined) return p.meta.codexContent as JsonObject;
  if (p.type === 'text') {
    if (output) return { type: 'output_text', text: p.text, annotations: (p.meta?.annotations as unknown[]) ?? [] };
    return { type: 'input_text', text: p.text };
  }
  if (p.type === 'image' && !output) {
    return { type: 'input_image', image_url: imageUrl(p), ...(p.meta?.detail ? { detail: p.meta.detail } : {}) };
  }
  if (p.type === 'file') {
    const text =
      p.text ??
      (p.data !== undefined ? `[file ${p.name ?? ''} (${p.mediaType}), base64 omitted]` : `[file ${p.url ?? p.name ?? ''}]`);
    return { type: output ? 'output_text' : 'input_text', text, ...(output ? { annotations: [] } : {}) };
  }
  return undefined;
}

/** A tool_search call or output as codex records it: a `server` search has no call_id (null). */
function toolSearchItem(type: string, callId: string, meta: Record<string, unknown>, body: JsonObject): JsonObject {
  return {
    type,
    ...(typeof meta.codexItemId === 'string' ? { id: meta.codexItemId } : {}),
    call_id: searchCallId(callId, meta),
    ...(type === 'tool_search_output' || meta.status !== undefined ? { status: meta.status ?? 'completed' } : {}),
    execution: typeof meta.execution === 'string' ? meta.execution : 'client',
    ...body,
  };
}

/** The tool definitions a tool_search returned, kept as JSON text in its result. */
function searchedTools(p: ToolResultPart): unknown[] {
  const text = typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const v = jsonValueOf(text);
  return Array.isArray(v) ? v : [];
}

export interface EncodedItem {
  /** response_item payload */
  item?: JsonObject;
  /** event_msg payload (kept in the rollout, not sent to the model) */
  event?: JsonObject;
}

/** One model message as Codex ResponseItems, parts in order. */
export function messageToItems(m: Message): EncodedItem[] {
  const out: EncodedItem[] = [];
  const assistant = m.role === 'assistant';
  const role = m.role === 'system' ? String(m.meta?.codexRole ?? 'developer') : assistant ? 'assistant' : 'user';
  let content: JsonObject[] = [];
  const flush = () => {
    if (content.length === 0) return;
    out.push({ item: { type: 'message', role, content, ...(assistant && m.meta?.phase ? { phase: m.meta.phase } : {}) } });
    content = [];
  };
  // one item given as one part per summary part (OpenCode, the AI SDK): one item again, its encrypted content once
  for (const p of joinOpenAIReasoning(m.parts)) {
    const c = contentItem(p, assistant);
    if (c) {
      if (p.meta?.codexNewItem) flush();
      content.push(c);
      continue;
    }
    flush();
    if (p.type === 'thinking') {
      if (isReplayableReasoning(m, p)) {
        const summaryParts = Array.isArray(p.meta?.summaryParts)
          ? (p.meta.summaryParts as string[])
          : p.thinking
            ? [p.thinking]
            : [];
        const reasoningContent = Array.isArray(p.meta?.reasoningContent) ? (p.meta.reasoningContent as string[]) : undefined;
        out.push({
          item: {
            type: 'reasoning',
            summary: summaryParts.map((text) => ({ type: 'summary_text', text })),
            content: reasoningContent ? reasoningText(reasoningContent) : null,
            encrypted_content: typeof p.meta?.encryptedContent === 'string' ? p.meta.encryptedContent : null,
          },
        });
      } else if (p.thinking)
        // with its signature (a field codex ignores), so that the agent it came from can replay it again
        out.push({
          event: {
            type: 'agent_reasoning',
            text: p.thinking,
            threadbase: 'thinking',
            ...(p.signature !== undefined ? { signature: p.signature } : {}),
          },
        });
    } else if (p.type === 'redacted_thinking') {
      // Another provider's opaque reasoning: nothing codex can show or send; kept in an event (no text
      // to show) for the way back to the agent that replays it.
      out.push({ event: { type: 'agent_reasoning', text: '', threadbase: 'redacted_thinking', data: p.data } });
    } else if (p.type === 'tool_call') {
      if (p.meta?.codexToolSearch) {
        out.push({ item: toolSearchItem('tool_search_call', p.id, p.meta, { arguments: p.input }) });
      } else if (p.meta?.codexCustomTool) {
        out.push({ item: { type: 'custom_tool_call', call_id: p.id, name: p.name, input: String(p.input.input ?? '') } });
      } else if (p.meta?.codexLocalShell) {
        out.push({ item: { type: 'local_shell_call', call_id: p.id, status: 'completed', action: p.input } });
      } else if (p.meta?.codexServerTool || (p.name === 'web_search' && p.meta?.providerExecuted === true)) {
        // the API's web search (codex's own, or another session's provider-run one): no output follows
        const status = typeof p.meta?.status === 'string' ? p.meta.status : 'completed';
        out.push({ item: { type: 'web_search_call', id: p.id, status, action: webSearchAction(p.input) } });
      } else {
        const args = typeof p.meta?.rawArguments === 'string' ? p.meta.rawArguments : JSON.stringify(p.input);
        out.push({
          item: {
            type: 'function_call',
            name: p.name,
            arguments: args,
            call_id: p.id,
            ...(p.meta?.namespace ? { namespace: p.meta.namespace } : {}),
          },
        });
      }
    } else if (p.type === 'tool_result' && p.meta?.codexToolSearch) {
      const omitted = p.meta.omittedResultCount;
      out.push({
        item: toolSearchItem('tool_search_output', p.callId, p.meta, {
          tools: searchedTools(p),
          ...(typeof omitted === 'number' ? { omitted_result_count: omitted } : {}),
        }),
      });
    } else if (p.type === 'tool_result') {
      const type = p.meta?.codexCustomTool ? 'custom_tool_call_output' : 'function_call_output';
      out.push({ item: { type, call_id: p.callId, output: resultOutput(p) } });
    } else if (p.type === 'image' && p.meta?.codexImageGeneration) {
      out.push({
        item: {
          type: 'image_generation_call',
          ...(typeof p.meta.codexItemId === 'string' ? { id: p.meta.codexItemId } : {}),
          status: p.meta.status ?? 'completed',
          ...(typeof p.meta.revisedPrompt === 'string' ? { revised_prompt: p.meta.revisedPrompt } : {}),
          result: p.data ?? '',
        },
      });
    } else if (p.type === 'image') {
      // An image in an assistant message has no Responses output item; keep it visible as text.
      out.push({
        item: { type: 'message', role, content: [{ type: 'output_text', text: `[image ${p.mediaType}]`, annotations: [] }] },
      });
    }
  }
  flush();
  return out;
}

/**
 * A context as the Responses API takes it: `instructions` and the `input` items (what codex sends).
 * Calls and outputs go through codex's own normalizer, as codex sends every prompt: a call without
 * an output gets an "aborted" output right after it, an output without its call is dropped (the API
 * refuses both; it does not need an output next to its call, and codex does not move them). A codex
 * session's context has been through it already and comes out the same.
 */
export function contextToResponses(ctx: Context): { instructions?: string; input: JsonObject[] } {
  const input: JsonObject[] = [];
  for (const m of normalizeCalls(ctx.messages)) for (const e of messageToItems(m)) if (e.item) input.push(e.item);
  return { ...(ctx.system !== undefined ? { instructions: ctx.system } : {}), input };
}
