/**
 * Another agent's messages as codex 0.171's turns. Codex's app-server reads a paginated thread's
 * turns from its projection (history-projection.ts), which it makes from the turn records of the
 * rollout: `task_started`, `item_completed` (UserMessage, AgentMessage, ContextCompaction), then
 * `task_complete`. Records encoded from the model (encodeEntry) carry the legacy `user_message` /
 * `agent_message` events instead, which codex 0.171 lists no item of in a paginated thread and
 * passes over outside a turn. So each prompt of another agent (a user message item with its
 * `user_message` event) starts a turn that runs to the next prompt, its messages as codex's items.
 *
 * The records added carry `threadbase: "turn"`, a field codex ignores, so the reader passes over
 * them (rollout.ts), but for those that stand for a legacy event, which carry it (legacyEventOf) and
 * are read as it: the session reads back as the legacy rollout did, and writing it again wraps it again.
 */
import { randomUUID } from 'node:crypto';
import { isObject, type JsonObject } from './items.js';

/** The mark on the records threadbase adds to make turns. */
export const TURN_MARK = 'turn';

/** Whether a rollout record is one threadbase added to make turns (the reader passes over it). */
export function isTurnRecord(record: JsonObject): boolean {
  return record.type === 'event_msg' && isObject(record.payload) && record.payload.threadbase === TURN_MARK;
}

/**
 * The legacy event a turn record stands for (a UserMessage item the prompt's `user_message` event, the
 * first AgentMessage item of a response its `agent_message` event), which it carries in
 * `legacy_event`, a field codex ignores: the reader reads the record as that event, so a wrapped
 * rollout reads as the legacy one did (the same entries, ids and parents), and a copy of it, written
 * from those records, is wrapped again. Undefined for the other turn records (no entry).
 */
export function legacyEventOf(record: JsonObject): JsonObject | undefined {
  const p = payloadOf(record);
  if (!isObject(p.legacy_event)) return undefined;
  return { timestamp: record.timestamp, type: 'event_msg', payload: p.legacy_event };
}

/** Whether `records` hold a turn of codex's (its own records, or ones added here). */
export function hasTurns(records: readonly JsonObject[]): boolean {
  return records.some(
    (r) =>
      r.type === 'event_msg' &&
      isObject(r.payload) &&
      ['task_started', 'task_complete', 'turn_aborted'].includes(String(r.payload.type)),
  );
}

const payloadOf = (r: JsonObject | undefined): JsonObject => (r && isObject(r.payload) ? r.payload : {});

/** `record` carrying the legacy event it stands for (legacyEventOf). */
function withLegacy(record: JsonObject, event: JsonObject): JsonObject {
  (record.payload as JsonObject).legacy_event = event;
  return record;
}

/** A user message item with the `user_message` event encodeEntry writes for a prompt right after it. */
function isPrompt(r: JsonObject, next: JsonObject | undefined): boolean {
  const p = payloadOf(r);
  return (
    r.type === 'response_item' &&
    p.type === 'message' &&
    p.role === 'user' &&
    next?.type === 'event_msg' &&
    payloadOf(next).type === 'user_message'
  );
}

/** The detail levels codex 0.171 has for an image (its ImageDetail). */
export const IMAGE_DETAILS: readonly unknown[] = ['auto', 'low', 'high', 'original'];

/**
 * The user message as codex's UserMessage item content: its text parts as codex records them, an image
 * (a data or web URL) as codex's image input, with its detail level if it has one of codex's; any other
 * part kept as it is, which the projection was not checked for, so such a rollout stays legacy.
 */
function userContent(content: unknown): unknown[] {
  if (!Array.isArray(content)) return [];
  return content.map((c) => {
    if (isObject(c) && c.type === 'input_text' && typeof c.text === 'string')
      return { type: 'text', text: c.text, text_elements: [] };
    if (isObject(c) && c.type === 'input_image' && typeof c.image_url === 'string') {
      const extra = Object.keys(c).filter((k) => k !== 'type' && k !== 'image_url');
      if (extra.length === 0) return { type: 'image', image_url: c.image_url };
      if (extra.length === 1 && extra[0] === 'detail' && IMAGE_DETAILS.includes(c.detail))
        return { type: 'image', image_url: c.image_url, detail: c.detail };
    }
    return c;
  });
}

/**
 * An assistant message item's content as codex's AgentMessage content (core event_mapping parse_agent_message): a
 * Text part for each text item, output or input text alike (codex joins them); an image input dropped, as codex drops
 * it; undefined for any other item, which codex would not read (no ContentItem of its), so such a rollout stays legacy.
 */
function agentContent(content: unknown): { type: 'Text'; text: string }[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts: { type: 'Text'; text: string }[] = [];
  for (const c of content) {
    if (isObject(c) && (c.type === 'output_text' || c.type === 'input_text') && typeof c.text === 'string')
      texts.push({ type: 'Text', text: c.text });
    else if (!(isObject(c) && isImageInput(c))) return undefined;
  }
  return texts;
}

/** An image input as codex's ContentItem has it: its URL, and its detail level if one of codex's. */
function isImageInput(c: JsonObject): boolean {
  if (c.type !== 'input_image' || typeof c.image_url !== 'string') return false;
  return Object.keys(c).every((k) => k === 'type' || k === 'image_url' || (k === 'detail' && IMAGE_DETAILS.includes(c.detail)));
}

/**
 * `records` (the rollout's body, after its session_meta) with every prompt of another agent made a
 * turn of codex's, for thread `threadId`: `task_started` before the prompt, its UserMessage item after
 * it (instead of its `user_message` event), an AgentMessage item for each assistant message item of a
 * response where its `agent_message` event stood, a ContextCompaction item after a `compacted` record, and
 * `task_complete` before the next prompt and at the end. A compaction before the first prompt is a turn
 * of its own (its item alone); other records before the first prompt stay outside any turn, as they are. Times come from the records' timestamps (`now` for one without).
 */
export function wrapTurns(threadId: string, records: readonly JsonObject[], now: Date = new Date()): JsonObject[] {
  const out: JsonObject[] = [];
  let turn: { id: string; startMs: number; lastAgent: string | null } | undefined;
  let lastTs = now.toISOString();
  /** the assistant message items since the last agent_message event, as AgentMessage content */
  let said: ({ type: 'Text'; text: string } | { type: 'Unchecked'; content: unknown })[][] = [];
  const msOf = (ts: string) => {
    const ms = Date.parse(ts);
    return Number.isNaN(ms) ? now.getTime() : ms;
  };
  const event = (ts: string, payload: JsonObject): JsonObject => ({
    timestamp: ts,
    type: 'event_msg',
    payload: { ...payload, threadbase: TURN_MARK },
  });
  const item = (ts: string, turnId: string, body: JsonObject): JsonObject =>
    event(ts, {
      type: 'item_completed',
      thread_id: threadId,
      turn_id: turnId,
      item: body,
      started_at_ms: msOf(ts),
      completed_at_ms: msOf(ts),
    });
  const close = () => {
    if (!turn) return;
    const end = msOf(lastTs);
    out.push(
      event(lastTs, {
        type: 'task_complete',
        root_turn_id: turn.id,
        turn_id: turn.id,
        last_agent_message: turn.lastAgent,
        started_at: Math.floor(turn.startMs / 1000),
        completed_at: Math.floor(end / 1000),
        duration_ms: Math.max(0, end - turn.startMs),
      }),
    );
    turn = undefined;
  };
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as JsonObject;
    const ts = typeof r.timestamp === 'string' ? r.timestamp : lastTs;
    const p = payloadOf(r);
    if (isPrompt(r, records[i + 1])) {
      close();
      const id = randomUUID();
      turn = { id, startMs: msOf(ts), lastAgent: null };
      said = [];
      out.push(
        event(ts, {
          type: 'task_started',
          turn_id: id,
          root_turn_id: id,
          started_at: Math.floor(turn.startMs / 1000),
          model_context_window: null,
          collaboration_mode_kind: 'default',
        }),
      );
      const prompt = item(ts, id, { type: 'UserMessage', id: randomUUID(), content: userContent(p.content) });
      out.push(r, withLegacy(prompt, payloadOf(records[i + 1])));
      lastTs = ts;
      i++; // its user_message event: the item instead
      continue;
    }
    lastTs = ts;
    if (turn && r.type === 'event_msg' && p.type === 'agent_message') {
      // the response's message items as AgentMessage items, where its agent_message event stood (none:
      // the event stays, which the projection was not checked for in a turn)
      if (!said.length) {
        out.push(r);
        continue;
      }
      said.forEach((content, n) => {
        const record = item(ts, turn?.id ?? '', { type: 'AgentMessage', id: `msg_${randomUUID()}`, content });
        out.push(n === 0 ? withLegacy(record, p) : record);
        if (turn) turn.lastAgent = content.map((c) => ('text' in c ? c.text : '')).join('');
      });
      said = [];
      continue;
    }
    if (turn && r.type === 'response_item' && p.type === 'message' && p.role === 'assistant')
      said.push(agentContent(p.content) ?? [{ type: 'Unchecked', content: p.content }]);
    if (!turn && r.type === 'compacted') {
      // a compaction outside a turn (before the first prompt): a turn of its own, as codex's /compact is
      const id = randomUUID();
      const at = Math.floor(msOf(ts) / 1000);
      out.push(
        event(ts, {
          type: 'task_started',
          turn_id: id,
          root_turn_id: id,
          started_at: at,
          model_context_window: null,
          collaboration_mode_kind: 'default',
        }),
        r,
        item(ts, id, { type: 'ContextCompaction', id: randomUUID() }),
        event(ts, {
          type: 'task_complete',
          root_turn_id: id,
          turn_id: id,
          last_agent_message: null,
          started_at: at,
          completed_at: at,
          duration_ms: 0,
        }),
      );
      continue;
    }
    out.push(r);
    if (turn && r.type === 'compacted') out.push(item(ts, turn.id, { type: 'ContextCompaction', id: randomUUID() }));
  }
  close();
  return out;
}
