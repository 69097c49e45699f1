/**
 * What codex does to its history before it sends it, mirrored on model messages so that our context
 * is the input codex sends on resume:
 * - after a local compaction (no replacement_history) it rebuilds the history from the user's own
 *   messages within a token budget and the summary (core/src/compact.rs build_compacted_history_with_limit,
 *   with codex_utils_string's truncate_middle_with_token_budget and approx_token_count);
 * - every prompt is normalized (core/src/context_manager/normalize.rs): a call without an output gets
 *   an "aborted" output right after it (ensure_call_outputs_present), an output whose call is missing
 *   is dropped (remove_orphan_outputs);
 * - a rollback (`thread_rolled_back`) drops the last user turns of the history as it stands, a
 *   compaction's replacement history included (context_manager/history.rs drop_last_n_user_turns).
 */
import type { BranchSummaryEntry, Message, Part, ToolCallPart, ToolResultPart } from '../../model/types.js';
import { SUMMARY_PREFIX, searchCallId } from './items.js';

/** Codex keeps at most this many tokens of earlier user messages after a local compaction (COMPACT_USER_MESSAGE_MAX_TOKENS). */
export const COMPACT_USER_TOKENS = 20_000;

/** Codex estimates 4 bytes of UTF-8 a token (APPROX_BYTES_PER_TOKEN), rounding up. */
const BYTES_PER_TOKEN = 4;

export function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/**
 * codex's truncate_middle_with_token_budget: keeps the first and last halves of `tokens * 4` bytes (on
 * character boundaries) and puts `…N tokens truncated…` between them, N the cut bytes over 4, rounded
 * up. As pieces: codex 0.169 sends a cut user message as three input_text items (head, marker, tail).
 */
export function truncateMiddleTokens(text: string, tokens: number): string[] {
  const total = Buffer.byteLength(text, 'utf8');
  const budget = tokens * BYTES_PER_TOKEN;
  if (text === '' || (tokens > 0 && total <= budget)) return [text];
  const marker = `…${Math.ceil((total - budget) / BYTES_PER_TOKEN)} tokens truncated…`;
  if (budget === 0) return [marker];
  const left = Math.floor(budget / 2);
  const tailFrom = total - (budget - left);
  let head = '';
  let tail = '';
  let at = 0;
  for (const ch of text) {
    const end = at + Buffer.byteLength(ch, 'utf8');
    if (end <= left) head += ch;
    else if (at >= tailFrom) tail += ch;
    at = end;
  }
  return [head, marker, tail].filter((piece) => piece !== '');
}

/** codex's is_summary_message: the summary it rebuilt before is not one of the user's messages. */
export function isSummaryText(text: string): boolean {
  return text.startsWith(`${SUMMARY_PREFIX}\n`);
}

/**
 * A user turn as codex counts them for a rollback (is_user_turn_boundary): a user message that is not
 * context codex injected (`<environment_context>`, AGENTS.md…) and not a compaction's summary.
 */
export function isUserTurnMessage(m: Message): boolean {
  if (m.role !== 'user' || m.meta?.codexInjected || m.meta?.compactionSummary) return false;
  return !isSummaryText(userTextItems(m).join(''));
}

/** The user message codex has for a branch summary threadbase wrote into a rollout (driver.ts encodeEntry). */
export function branchSummaryMessage(e: BranchSummaryEntry): Message {
  return { role: 'user', parts: [{ type: 'text', text: e.text ?? e.summary }] };
}

/** Context codex injects before a turn (developer messages, `<environment_context>`…): a rollback trims it with the turn. */
export function isPreTurnContextMessage(m: Message): boolean {
  return m.role === 'system' || (m.role === 'user' && Boolean(m.meta?.codexInjected));
}

/**
 * codex's drop_last_n_user_turns on a history: cut at the n-th last user turn (at the first when
 * there are fewer), then trim the context injected right above the cut, never above the first turn.
 * A history without user turns is kept whole.
 */
export function dropLastUserTurns(messages: readonly Message[], n: number): Message[] {
  const users: number[] = [];
  messages.forEach((m, i) => {
    if (isUserTurnMessage(m)) users.push(i);
  });
  const first = users[0];
  if (n <= 0 || first === undefined) return [...messages];
  let cut = n >= users.length ? first : (users[users.length - n] as number);
  while (cut > first && isPreTurnContextMessage(messages[cut - 1] as Message)) cut--;
  return messages.slice(0, cut);
}

const isImageOpenTag = (t: string) => t === '<image>' || (t.startsWith('<image name=') && t.endsWith('>'));

/**
 * A user message's text items as codex keeps them through a compaction: images and the `<image>` tags
 * around them left out (UserMessageItem); counted and cut as their text joined with nothing between.
 */
export function userTextItems(m: Pick<Message, 'parts'>): string[] {
  const parts = m.parts;
  const out: string[] = [];
  parts.forEach((p, i) => {
    if (p.type !== 'text') return;
    if (isImageOpenTag(p.text) && parts[i + 1]?.type === 'image') return;
    if (p.text === '</image>' && i > 0 && parts[i - 1]?.type === 'image') return;
    out.push(p.text);
  });
  return out;
}

/**
 * build_compacted_history_with_limit: the newest user messages (text items) that fit the budget, the
 * first one over it cut to what is left, oldest first.
 */
export function selectUserMessages(messages: readonly string[][], maxTokens = COMPACT_USER_TOKENS): string[][] {
  const selected: string[][] = [];
  let remaining = maxTokens;
  for (let i = messages.length - 1; i >= 0 && remaining > 0; i--) {
    const items = messages[i] as string[];
    const text = items.join('');
    const tokens = approxTokens(text);
    if (tokens <= remaining) {
      selected.push(items);
      remaining -= tokens;
    } else {
      selected.push(truncateMiddleTokens(text, remaining));
      break;
    }
  }
  return selected.reverse();
}

type CallKind = 'function' | 'custom' | 'shell' | 'search' | 'server';
type OutputKind = 'function' | 'custom' | 'search';

/** The ResponseItem a tool_call part is sent as (encode.ts messageToItems). */
function callKind(p: ToolCallPart): CallKind {
  if (p.meta?.codexToolSearch) return 'search';
  if (p.meta?.codexCustomTool) return 'custom';
  if (p.meta?.codexLocalShell) return 'shell';
  if (p.meta?.codexServerTool) return 'server';
  return 'function';
}

function outputKind(p: ToolResultPart): OutputKind {
  if (p.meta?.codexToolSearch) return 'search';
  return p.meta?.codexCustomTool ? 'custom' : 'function';
}

/** The output codex adds for a call that has none; undefined when it adds none. */
function abortedOutput(p: ToolCallPart, outputs: ReadonlySet<string>): ToolResultPart | undefined {
  switch (callKind(p)) {
    case 'function':
    case 'shell':
      return outputs.has(`function:${p.id}`) ? undefined : { type: 'tool_result', callId: p.id, content: 'aborted' };
    case 'custom':
      return outputs.has(`custom:${p.id}`)
        ? undefined
        : { type: 'tool_result', callId: p.id, content: 'aborted', meta: { codexCustomTool: true } };
    case 'search': {
      const id = searchCallId(p.id, p.meta);
      if (id === null || outputs.has(`search:${id}`)) return undefined;
      return {
        type: 'tool_result',
        callId: id,
        content: '[]',
        meta: { codexToolSearch: true, codexCallId: id, status: 'completed', execution: 'client' },
      };
    }
    default:
      return undefined;
  }
}

/** Whether remove_orphan_outputs keeps an output: its call is in the history (a `server` search's always is). */
function hasCall(p: ToolResultPart, calls: ReadonlySet<string>): boolean {
  switch (outputKind(p)) {
    case 'function':
      return calls.has(`function:${p.callId}`) || calls.has(`shell:${p.callId}`);
    case 'custom':
      return calls.has(`custom:${p.callId}`);
    case 'search': {
      if (p.meta?.execution === 'server') return true;
      const id = searchCallId(p.callId, p.meta);
      return id === null || calls.has(`search:${id}`);
    }
  }
}

/**
 * ensure_call_outputs_present then remove_orphan_outputs, on messages: a message is split after a
 * call that gets an "aborted" output so the output sits right after the call, as codex inserts it.
 */
export function normalizeCalls(messages: readonly Message[]): Message[] {
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === 'tool_call') {
        const kind = callKind(p);
        calls.add(`${kind}:${kind === 'search' ? searchCallId(p.id, p.meta) : p.id}`);
      } else if (p.type === 'tool_result') {
        const kind = outputKind(p);
        outputs.add(`${kind}:${kind === 'search' ? searchCallId(p.callId, p.meta) : p.callId}`);
      }
    }
  const out: Message[] = [];
  for (const m of messages) {
    const kept = m.parts.filter((p) => p.type !== 'tool_result' || hasCall(p, calls));
    if (kept.length === 0 && m.parts.length > 0) continue;
    const { usage, ...rest } = m;
    const pieces: Message[] = [];
    let segment: Part[] = [];
    for (const p of kept) {
      segment.push(p);
      const aborted = p.type === 'tool_call' ? abortedOutput(p, outputs) : undefined;
      if (!aborted) continue;
      pieces.push({ ...rest, parts: segment });
      pieces.push({ role: 'tool', parts: [aborted], meta: { codexSynthetic: 'aborted' } });
      segment = [];
    }
    if (pieces.length === 0) {
      out.push(kept.length === m.parts.length ? m : { ...m, parts: kept });
      continue;
    }
    if (segment.length > 0) pieces.push({ ...rest, parts: segment });
    // a split response keeps its usage once, on its last piece
    const last = pieces.findLast((x) => x.role === m.role);
    if (usage && last) last.usage = usage;
    out.push(...pieces);
  }
  return out;
}
