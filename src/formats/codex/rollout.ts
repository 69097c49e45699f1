/**
 * Reads one Codex rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`) into a
 * Session. Each line is `{timestamp, ordinal?, type, payload}` (RolloutItem, openai/codex
 * codex-rs/protocol/src/protocol.rs; checked against what codex-cli 0.169.0 writes):
 * - `session_meta` (first line): id, cwd, cli_version, model_provider, base_instructions, git, forked_from_id
 * - `response_item`: what the model saw and said (messages, reasoning, function calls and outputs)
 * - `turn_context`: model, effort, cwd and policies for a turn → a model_change entry
 * - `compacted`: a compaction summary (and, newer, the exact replacement history)
 * - `event_msg`, `world_state`, `token_usage_record`, ...: UI and bookkeeping → metadata entries,
 *   with token counts moved onto the response they count.
 * Rollouts written before session_meta existed (2025-05) start with a bare `{id, timestamp,
 * instructions}` line followed by bare ResponseItems; those are read too.
 * The rollout is linear (each entry's parent is the one before it) but for `thread_rolled_back`:
 * codex then drops the last N user turns, so the event and what follows continue from the entry
 * before those turns, which stay in the tree as an abandoned branch (from the compaction before
 * them, when the rollback reaches into its replacement history: see rollBack).
 */
import { basename } from 'node:path';
import { countMessages, firstUserLine, messageText, pathTo, titleLine } from '../../model/tree.js';
import type { Entry, Message, MessageEntry, ParseWarning, Session, Usage } from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { branchSummaryOf } from '../shared/branch-summary.js';
import { readUsageExtras } from '../shared/usage-extras.js';
import { writtenByOf } from '../shared/written-by.js';
import { rolloutBaseName, rolloutLines } from './compressed.js';
import { branchSummaryMessage, isPreTurnContextMessage, isUserTurnMessage } from './history.js';
import {
  bareSummary,
  isModelOutput,
  isObject,
  itemToMessage,
  type JsonObject,
  keptReasoningPart,
  spawnedAgentId,
  str,
} from './items.js';
import { firstUserMessage } from './prompts.js';
import { isTurnRecord, legacyEventOf } from './turns.js';

export const SOURCE = 'codex';

/** Record types codex writes that are not conversation; kept as metadata entries without a warning. */
const BOOKKEEPING = new Set([
  'event_msg',
  'world_state',
  'token_usage_record',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
]);

const ROLLOUT_NAME = /^rollout-(.+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i;

/** The session id a rollout file name carries (`rollout-2025-05-07T17-24-21-<uuid>.jsonl`, or compressed `….jsonl.zst`). */
export function idFromFileName(file: string): string | undefined {
  return ROLLOUT_NAME.exec(basename(file))?.[2];
}

/** Token counts as codex records them (TokenUsage) to the model's Usage; input excludes cached input. */
export function tokenUsage(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cached = n(u.cached_input_tokens);
  return {
    input: Math.max(0, n(u.input_tokens) - cached),
    output: n(u.output_tokens),
    cacheRead: cached,
    cacheWrite: n(u.cache_write_input_tokens),
    reasoning: n(u.reasoning_output_tokens),
  };
}

interface ResponseGroup {
  entries: MessageEntry[];
  usage?: Usage;
  responseId?: string;
  /** another agent's reply that had no response id, its entry's id kept (encodeEntry): none made up */
  copiedWithoutResponseId?: boolean;
}

export interface RolloutMeta {
  id?: string;
  cwd?: string;
  createdAt?: string;
  parentId?: string;
  directories: string[];
  modelProvider?: string;
  /** a forked sub-agent's first own record (`subagent_history_start_ordinal`) */
  historyStart?: number;
  meta: JsonObject;
  raw?: unknown;
}

/** A sub-agent's parent thread: `source: {subagent: {thread_spawn: {parent_thread_id}}}`. */
function spawnedBy(source: unknown): string | undefined {
  if (!isObject(source) || !isObject(source.subagent)) return undefined;
  const spawn = source.subagent.thread_spawn;
  return isObject(spawn) ? str(spawn.parent_thread_id) : undefined;
}

function readSessionMeta(payload: JsonObject, line: unknown): RolloutMeta {
  const meta: JsonObject = {};
  for (const k of [
    'cli_version',
    'originator',
    'source',
    'thread_source',
    'git',
    'agent_nickname',
    'agent_role',
    'model_provider',
  ]) {
    if (payload[k] !== undefined) meta[k] = payload[k];
  }
  return {
    id: str(payload.id) ?? str(payload.session_id),
    cwd: str(payload.cwd),
    createdAt: str(payload.timestamp),
    parentId: str(payload.forked_from_id) ?? spawnedBy(payload.source),
    directories: Array.isArray(payload.runtime_workspace_roots)
      ? payload.runtime_workspace_roots.filter((r): r is string => typeof r === 'string' && r !== payload.cwd)
      : [],
    modelProvider: str(payload.model_provider),
    ...(typeof payload.subagent_history_start_ordinal === 'number'
      ? { historyStart: payload.subagent_history_start_ordinal }
      : {}),
    meta,
    raw: line,
  };
}

/** Adds one more item of a response to the entry that holds it. */
function joinResponse(group: ResponseGroup, message: Message, rec: unknown): void {
  const entry = group.entries[0];
  if (!entry) return;
  const parts = entry.message.parts;
  const [first, ...rest] = message.parts;
  if (first) {
    // Two message items in a row stay two items when written back.
    const boundary = first.type === 'text' && parts[parts.length - 1]?.type === 'text';
    parts.push(boundary ? { ...first, meta: { ...first.meta, codexNewItem: true } } : first, ...rest);
  }
  if (message.meta) entry.message.meta = { ...entry.message.meta, ...message.meta };
  (entry.raw as unknown[]).push(rec);
}

export async function readRollout(file: string): Promise<Session> {
  const warnings: ParseWarning[] = [];
  const entries: Entry[] = [];
  const seenIds = new Set<string>();
  const groups: ResponseGroup[] = [];
  let open: ResponseGroup | undefined;
  let sessionMeta: RolloutMeta | undefined;
  let model: string | undefined;
  let lastTimestamp: string | undefined;
  let firstTimestamp: string | undefined;
  /** the previous token_count's total_token_usage (serialized): an unchanged total repeats stale counts */
  let lastTotal: string | undefined;
  let lastToolSearch: string | undefined;
  /** sub-agent thread id → the call that spawned it */
  const spawned: Record<string, string> = {};
  /**
   * A sub-agent forked with the parent's context starts with a copy of the parent's records; its own
   * begin at `subagent_history_start_ordinal`. The copy stays (codex replays it), but the title and
   * the message count are the sub-agent's own, as codex lists the thread.
   */
  let ownFrom: number | undefined;

  const entryId = (preferred: string | undefined, line: number) => {
    const id = preferred && !seenIds.has(preferred) ? preferred : `L${line}`;
    seenIds.add(id);
    return id;
  };
  const byId = new Map<string, Entry>();
  /** calls whose command codex saw fail (a non-zero exit): their outputs are error results */
  const failedCalls = new Set<string>();
  /** the entry the next one continues from: the last one, unless a rollback moved back */
  let tip: string | null = null;
  const push = (e: Entry) => {
    entries.push(e);
    byId.set(e.id, e);
    tip = e.id;
  };
  const parentId = () => tip;

  /** turn records threadbase added that took no line of the rollout it encoded (turns.ts) */
  let uncounted = 0;
  for await (const l of rolloutLines(file)) {
    if (l.error) {
      warnings.push({ file, line: l.line, message: l.error });
      continue;
    }
    if (!isObject(l.value)) {
      warnings.push({ file, line: l.line, message: 'record is not a JSON object' });
      continue;
    }
    // the turn records threadbase added around another agent's messages (turns.ts): read as the legacy
    // event one stands for, the others no entry (nor a line of the rollout the ids count)
    const legacy = isTurnRecord(l.value) ? legacyEventOf(l.value) : l.value;
    if (!legacy) {
      uncounted++;
      continue;
    }
    const rec = legacy;
    // ids of entries without one are their line's number, as before the turn records were added
    const idLine = l.line - uncounted;
    const ts = str(rec.timestamp);
    if (ts) {
      lastTimestamp = ts;
      firstTimestamp ??= ts;
    }
    const timestamp = ts ?? lastTimestamp ?? sessionMeta?.createdAt ?? new Date(0).toISOString();
    let type = str(rec.type);
    let payload: JsonObject | undefined = isObject(rec.payload) ? rec.payload : undefined;

    // The 2025-05 layout: a bare header line, then bare ResponseItems and {record_type:'state'} lines.
    if (!payload) {
      if (l.line === 1 && !type && typeof rec.id === 'string') {
        sessionMeta = readSessionMeta(rec, rec);
        continue;
      }
      if (rec.record_type === 'state') type = 'state';
      else if (
        type &&
        [
          'message',
          'reasoning',
          'function_call',
          'function_call_output',
          'custom_tool_call',
          'custom_tool_call_output',
          'local_shell_call',
          'web_search_call',
        ].includes(type)
      ) {
        payload = rec;
        type = 'response_item';
      }
    }

    const start = sessionMeta?.historyStart;
    if (start !== undefined && ownFrom === undefined && typeof rec.ordinal === 'number' && rec.ordinal >= start) {
      ownFrom = entries.length;
      open = undefined; // a copied response never continues into the sub-agent's own
    }

    if (type === 'event_msg' && payload) {
      const failed = failedCommandId(payload);
      if (failed) failedCalls.add(failed);
    }

    const base = { timestamp, raw: rec, rawSource: SOURCE } as const;
    if (type === 'session_meta' && payload) {
      if (!sessionMeta) sessionMeta = readSessionMeta(payload, rec);
      else
        push({
          ...base,
          id: entryId(undefined, idLine),
          parentId: parentId(),
          kind: 'metadata',
          type: 'session_meta',
          data: payload,
        });
      continue;
    }
    if (type === 'response_item' && payload) {
      const message = itemToMessage(payload);
      if (!message) {
        if (open) open = undefined;
        push({
          ...base,
          id: entryId(str(payload.id), idLine),
          parentId: parentId(),
          kind: 'metadata',
          type: `response_item:${str(payload.type) ?? 'unknown'}`,
          data: payload,
        });
        continue;
      }
      // A server-run tool search's output has no call_id: it answers the search just before it.
      for (const part of message.parts) {
        if (part.type === 'tool_call' && part.meta?.codexToolSearch) lastToolSearch = part.id;
        if (part.type === 'tool_result' && part.meta?.codexToolSearch && !part.callId && lastToolSearch)
          part.callId = lastToolSearch;
      }
      if (message.role === 'assistant') {
        if (model) message.model = model;
        if (sessionMeta?.modelProvider) message.provider = sessionMeta.modelProvider;
      }
      // The items of one response (reasoning, text, calls) are one assistant message, one entry.
      if (isModelOutput(payload) && open) {
        joinResponse(open, message, rec);
        continue;
      }
      // a branch summary threadbase wrote as a user message, the entry kept in the item (driver.ts encodeEntry)
      const kept =
        message.role === 'user' && isObject(payload.threadbase)
          ? branchSummaryOf(payload.threadbase.branchSummary, messageText(message))
          : undefined;
      if (kept) {
        open = undefined;
        push({ ...base, id: entryId(str(payload.id), idLine), parentId: parentId(), kind: 'branch_summary', ...kept });
        continue;
      }
      const entry: MessageEntry = {
        ...base,
        id: entryId(str(payload.id), idLine),
        parentId: parentId(),
        kind: 'message',
        message,
      };
      if (isModelOutput(payload)) entry.raw = [rec];
      push(entry);
      if (payload.type === 'function_call_output') {
        const agent = spawnedAgentId(payload.output);
        if (agent && typeof payload.call_id === 'string') spawned[agent] = payload.call_id;
      }
      if (isModelOutput(payload)) {
        open = { entries: [entry] };
        groups.push(open);
      } else open = undefined;
      continue;
    }
    if (type === 'turn_context' && payload) {
      model = str(payload.model) ?? model;
      const settings =
        isObject(payload.collaboration_mode) && isObject(payload.collaboration_mode.settings)
          ? payload.collaboration_mode.settings
          : {};
      const effort = str(payload.effort) ?? str(settings.reasoning_effort);
      push({
        ...base,
        id: entryId(undefined, idLine),
        parentId: parentId(),
        kind: 'model_change',
        ...(model ? { model } : {}),
        ...(sessionMeta?.modelProvider ? { provider: sessionMeta.modelProvider } : {}),
        ...(effort ? { thinkingLevel: effort } : {}),
      });
      continue;
    }
    if (type === 'compacted' && payload) {
      open = undefined;
      push({
        ...base,
        id: entryId(undefined, idLine),
        parentId: parentId(),
        kind: 'compaction',
        summary: bareSummary(str(payload.message) ?? ''),
      });
      continue;
    }
    if (type === 'token_usage_record' && payload) {
      const target = groups[groups.length - 1];
      if (target && !target.usage) {
        target.usage = tokenUsage(payload.usage);
        target.responseId = str(payload.response_id);
      }
      open = undefined;
    } else if (
      type === 'event_msg' &&
      payload?.type === 'agent_reasoning' &&
      (payload.threadbase === 'thinking' || payload.threadbase === 'redacted_thinking')
    ) {
      // Thinking threadbase kept from another provider: part of the response, never sent to the model.
      const message: Message = { role: 'assistant', parts: [keptReasoningPart(payload)] };
      if (open) joinResponse(open, message, rec);
      else {
        const entry: MessageEntry = {
          ...base,
          raw: [rec],
          id: entryId(undefined, idLine),
          parentId: parentId(),
          kind: 'message',
          message,
        };
        push(entry);
        open = { entries: [entry] };
        groups.push(open);
      }
      continue;
    } else if (type === 'event_msg' && payload?.type === 'token_count') {
      const target = groups[groups.length - 1];
      const marker = isObject(payload.threadbase) ? payload.threadbase : undefined;
      const tagged = target?.entries[0]?.message;
      if (tagged && marker) {
        if (!tagged.model && typeof marker.model === 'string') tagged.model = marker.model;
        // the provider of a model that is not codex's: it, not the session's (codex's) provider
        if (typeof marker.provider === 'string') tagged.provider = marker.provider;
      }
      // the id of the response this rollout copied from another agent (encodeEntry)
      if (target && !target.responseId && typeof marker?.responseId === 'string' && marker.responseId)
        target.responseId = marker.responseId;
      // a copied reply that had no response id: its entry's own id, which `stats` knows the copy by
      // (with its time), and no response id made up for it
      else if (target && !target.responseId && typeof marker?.entryId === 'string') {
        const copied = target.entries[target.entries.length - 1];
        if (copied && copied.id === tip && !seenIds.has(marker.entryId)) {
          byId.delete(copied.id);
          copied.id = entryId(marker.entryId, idLine);
          byId.set(copied.id, copied);
          tip = copied.id;
          target.copiedWithoutResponseId = true;
        }
      }
      const info = isObject(payload.info) ? payload.info : undefined;
      // Before the `info` wrapper (mid 2025) the event was the response's TokenUsage itself.
      const last = info ? info.last_token_usage : typeof payload.input_tokens === 'number' ? payload : undefined;
      // After a response cut off before `response.completed`, codex repeats the previous counts:
      // its running total does not move, and codex does not count them again; neither do we.
      const total = info && isObject(info.total_token_usage) ? JSON.stringify(info.total_token_usage) : undefined;
      const stale = total !== undefined && total === lastTotal && !marker;
      if (total !== undefined) lastTotal = total;
      if (target && !target.usage && last && !stale) {
        const usage = tokenUsage(last);
        // what threadbase wrote from another agent's record in the field codex ignores (driver.ts encodeEntry)
        const extras = readUsageExtras(marker?.usage, { reasoning: false });
        target.usage = usage ? { ...usage, ...extras } : usage;
      }
      open = undefined;
    }
    let dropped = 0;
    if (type === 'event_msg' && payload?.type === 'thread_rolled_back' && typeof payload.num_turns === 'number') {
      open = undefined;
      const back = rollBack(tip === null ? [] : pathTo({ byId }, tip), payload.num_turns);
      tip = back.tip;
      dropped = back.compactedTurns;
    }
    if (open && type === 'event_msg' && payload?.type !== 'token_count') {
      // UI events codex writes between the items of one response stay with that response's record.
      const holder = open.entries[0];
      if (holder && Array.isArray(holder.raw)) holder.raw.push(rec);
      continue;
    }
    if (!type || !(BOOKKEEPING.has(type) || type === 'state')) {
      warnings.push({
        file,
        line: l.line,
        message: `unknown codex record type ${JSON.stringify(type ?? null)}; kept as metadata`,
      });
    }
    const subtype = payload && typeof payload.type === 'string' ? `:${payload.type}` : '';
    push({
      ...base,
      id: entryId(undefined, idLine),
      parentId: parentId(),
      kind: 'metadata',
      type: `${type ?? 'unknown'}${subtype}`,
      data: dropped ? { ...payload, [DROPPED_COMPACTED_TURNS]: dropped } : (payload ?? rec),
    });
  }

  // One API response can be several items (reasoning, text, calls): they share a responseId, and
  // its token count sits on the last of them, so it is counted once.
  const id = sessionMeta?.id ?? idFromFileName(file) ?? rolloutBaseName(file);
  for (const g of groups) {
    const first = g.entries[0];
    const last = g.entries[g.entries.length - 1];
    if (!first || !last) continue;
    const responseId = g.responseId ?? (g.copiedWithoutResponseId ? undefined : `${id}:${first.id}`);
    if (responseId) for (const e of g.entries) e.message.responseId = responseId;
    if (g.usage) last.message.usage = g.usage;
  }

  for (const e of entries)
    if (e.kind === 'message')
      for (const p of e.message.parts) if (p.type === 'tool_result' && failedCalls.has(p.callId)) p.isError = true;

  const createdAt = sessionMeta?.createdAt ?? firstTimestamp ?? new Date(0).toISOString();
  const usage = summarizeUsage(entries);
  const copied = sessionMeta?.historyStart === undefined ? 0 : (ownFrom ?? entries.length);
  const own = copied ? entries.slice(copied) : entries;
  return {
    id,
    source: SOURCE,
    project: sessionMeta?.cwd,
    title: titleOf(own),
    createdAt,
    // a rollout converted from another agent starts when written, after its records' own times
    updatedAt: lastTimestamp && lastTimestamp > createdAt ? lastTimestamp : createdAt,
    messageCount: countMessages(own),
    parentId: sessionMeta?.parentId ?? null,
    ...(sessionMeta?.directories.length ? { directories: sessionMeta.directories } : {}),
    // a rollout threadbase wrote (driver.ts) names it as its originator
    ...writtenByOf(sessionMeta?.meta.originator),
    models: usage.models,
    usage: usage.usage,
    ...usageByModelOf(usage),
    path: file,
    // base_instructions stay in raw (they are long); baseInstructionsOf reads them for the context.
    meta: {
      ...(sessionMeta?.meta ?? {}),
      ...(Object.keys(spawned).length ? { spawnedAgents: spawned } : {}),
      // the first entries, copied from the parent's history when the sub-agent was forked
      ...(copied ? { copiedEntries: copied } : {}),
    },
    entries,
    warnings,
    raw: sessionMeta?.raw,
  };
}

/**
 * The call id of a shell command codex saw fail: its output item is only text ("Process exited with
 * code 2"), the exit code is in the UI event codex writes beside it (0.169: `item_completed` of a
 * `CommandExecution`; earlier: `exec_command_end`).
 */
function failedCommandId(payload: JsonObject): string | undefined {
  const failed = (exit: unknown) => typeof exit === 'number' && exit !== 0;
  if (payload.type === 'exec_command_end') return failed(payload.exit_code) ? str(payload.call_id) : undefined;
  const item = payload.type === 'item_completed' && isObject(payload.item) ? payload.item : undefined;
  if (item?.type !== 'CommandExecution') return undefined;
  return failed(item.exit_code) || item.status === 'failed' ? str(item.id) : undefined;
}

/** A user turn as codex counts them for a rollback: a message the user typed, not injected context or a summary. */
function isUserTurn(e: Entry): boolean {
  if (e.kind === 'branch_summary') return isUserTurnMessage(branchSummaryMessage(e));
  return e.kind === 'message' && isUserTurnMessage(e.message);
}

/** Context codex injects before a turn (developer messages, `<environment_context>`...), rolled back with it. */
function isPreTurnContext(e: Entry): boolean {
  return e.kind === 'message' && isPreTurnContextMessage(e.message);
}

/**
 * The key of a rollback entry's `data` (the record's payload and this) that says how many user turns it
 * dropped from the history of the compaction before it: a rollback of more turns than followed the
 * compaction reaches into the history codex replaced the earlier ones with (codexContext drops them there).
 */
export const DROPPED_COMPACTED_TURNS = 'droppedCompactedTurns';

/** How many user turns a rollback entry dropped from the compaction's history before it. */
export function droppedCompactedTurns(e: Entry): number {
  if (!isRollback(e) || e.kind !== 'metadata' || !isObject(e.data)) return 0;
  const n = e.data[DROPPED_COMPACTED_TURNS];
  return typeof n === 'number' && n > 0 ? n : 0;
}

/**
 * The user turns in the history a compaction left (its replacement_history; for a compaction recorded
 * without one, the user's messages before it, which codex rebuilds it from), less those rollbacks after
 * it already dropped.
 */
function compactedUserTurns(chain: readonly Entry[], at: number): number {
  const c = chain[at] as Entry;
  const payload = isObject(c.raw) && isObject(c.raw.payload) ? c.raw.payload : undefined;
  let turns = 0;
  if (payload && Array.isArray(payload.replacement_history)) {
    for (const it of payload.replacement_history) {
      const m = isObject(it) ? itemToMessage(it) : undefined;
      if (m && isUserTurnMessage(m)) turns++;
    }
  } else turns = chain.slice(0, at).filter(isUserTurn).length;
  for (const e of chain.slice(at + 1)) turns -= droppedCompactedTurns(e);
  return Math.max(0, turns);
}

export interface RolledBack {
  /** the last entry kept: the next one continues from it */
  tip: string | null;
  /** user turns dropped from the history of the last compaction (the rollback reached past it) */
  compactedTurns: number;
}

/**
 * Where history continues after codex drops the last `n` user turns (codex-rs/core
 * drop_last_n_user_turns on the history it replayed: a compaction's replacement history, then what
 * followed it): cut at the n-th last user turn, or at the first if there are fewer, then trim the
 * injected context right above the cut, never above the first turn. When the cut falls inside the last
 * compaction's history (more turns than followed it, and that history holds user turns), everything
 * after the compaction goes and the turns left over are dropped from its history (`compactedTurns`).
 * Nothing to drop: the current tip.
 */
export function rollBack(chain: readonly Entry[], n: number): RolledBack {
  const tip = chain[chain.length - 1]?.id ?? null;
  if (n <= 0) return { tip, compactedTurns: 0 };
  const compaction = chain.findLastIndex((e) => e.kind === 'compaction');
  const before = compaction >= 0 ? compactedUserTurns(chain, compaction) : 0;
  const users: number[] = [];
  for (let i = compaction + 1; i < chain.length; i++) if (isUserTurn(chain[i] as Entry)) users.push(i);
  if (before > 0 && n > users.length)
    return { tip: chain[compaction]?.id ?? null, compactedTurns: Math.min(n - users.length, before) };
  const first = users[0];
  if (first === undefined) return { tip, compactedTurns: 0 };
  let cut = n >= users.length ? first : (users[users.length - n] as number);
  // codex's first user turn: in the compaction's history when it holds one, so the trim may reach back to it
  const bound = before > 0 ? compaction : first;
  // Records that are not history (events, turn contexts) between trimmed messages go with them.
  for (let k = cut; k > bound; k--) {
    const e = chain[k - 1] as Entry;
    if (e.kind === 'message') {
      if (!isPreTurnContext(e)) break;
      cut = k - 1;
    }
  }
  return { tip: chain[cut - 1]?.id ?? null, compactedTurns: 0 };
}

/** The id of the last entry kept after codex drops the last `n` user turns (rollBack). */
export function rolledBackTo(chain: readonly Entry[], n: number): string | null {
  return rollBack(chain, n).tip;
}

/** A rollback record: its entry's parent is the entry before the turns it dropped. */
function isRollback(e: Entry): boolean {
  return e.rawSource === SOURCE && e.kind === 'metadata' && e.type === 'event_msg:thread_rolled_back';
}

/**
 * A path as the records to write, in file order: before each rollback record on the path go the
 * entries it rolled back (everything the file had between the path's previous entry and it), so
 * codex replays the same rollback on the same history.
 */
export function withRolledBack(entries: readonly Entry[], path: readonly Entry[]): Entry[] {
  if (!path.some(isRollback)) return [...path];
  const at = new Map(entries.map((e, i) => [e, i] as const));
  const out: Entry[] = [];
  let prev = -1;
  for (const e of path) {
    const i = at.get(e);
    if (i !== undefined && isRollback(e)) out.push(...entries.slice(prev + 1, i));
    out.push(e);
    if (i !== undefined) prev = i;
  }
  return out;
}

/** The instructions codex sends first, from a session's raw session_meta line (or the 2025-05 header). */
export function baseInstructionsOf(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  const payload = isObject(raw.payload) ? raw.payload : raw;
  const bi = payload.base_instructions;
  return (isObject(bi) ? str(bi.text) : str(bi)) ?? str(payload.instructions);
}

/**
 * A thread's title as codex gives it: its first prompt (prompts.ts; its first line), not a notice another agent
 * wrote in a user's place before it; a rollout without prompt events (the first layouts) its first user message
 * that codex did not inject.
 */
function titleOf(entries: readonly Entry[]): string | undefined {
  const { title } = firstUserMessage(entries);
  if (title) return titleLine(title);
  return firstUserLine(entries, (m) => Boolean(m.meta?.codexInjected));
}
