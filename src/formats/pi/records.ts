/**
 * pi's on-disk records (session format version 3), the in-memory migration of versions 1 and 2,
 * and the words pi uses when it hands summaries and `!` commands to the model. Everything here
 * mirrors @mariozechner/pi-coding-agent (core/session-manager.ts, core/messages.ts).
 */

import type { UsageExtras } from '../shared/usage-extras.js';

export const PI_SESSION_VERSION = 3;

/** A JSON object as read from a line; fields are checked where they are used. */
export type PiRecord = Record<string, unknown> & { type?: unknown };

export interface PiHeader extends PiRecord {
  type: 'session';
  version?: number;
  id: string;
  timestamp?: string;
  cwd?: string;
  /** Path of the session file this one was forked from. */
  parentSession?: string;
}

/** The header of a session file threadbase writes (version PI_SESSION_VERSION): `fields` (a fork's parentSession, threadbase's own) after those of every header. */
export function newPiHeader(id: string, cwd: string, timestamp: string, fields: PiRecord = {}): PiRecord {
  return { type: 'session', version: PI_SESSION_VERSION, id, timestamp, cwd, ...fields };
}

export interface PiTextBlock {
  type: 'text';
  text: string;
  [k: string]: unknown;
}
export interface PiImageBlock {
  type: 'image';
  data: string;
  mimeType: string;
  [k: string]: unknown;
}
export interface PiThinkingBlock {
  type: 'thinking';
  thinking: string;
  thinkingSignature?: string;
  /** The signature holds the opaque payload of redacted thinking. */
  redacted?: boolean;
  [k: string]: unknown;
}
export interface PiToolCallBlock {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [k: string]: unknown;
}
export type PiBlock = PiTextBlock | PiImageBlock | PiThinkingBlock | PiToolCallBlock;

export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  /**
   * What another agent recorded of the request that pi has no field for, written by threadbase (pi
   * reads usage by its own fields and ignores this one): reasoning tokens (part of output), 1-hour cache
   * writes (part of cacheWrite), web searches, fast mode, place of inference, requests to an advisor
   * model (shared/usage-extras.ts).
   */
  threadbase?: UsageExtras;
}

/** The message shapes pi hands to its model layer after convertToLlm. */
export type PiLlmMessage =
  | { role: 'user'; content: string | (PiTextBlock | PiImageBlock)[]; timestamp?: number }
  | { role: 'assistant'; content: PiBlock[]; [k: string]: unknown }
  | {
      role: 'toolResult';
      toolCallId: string;
      toolName: string;
      content: (PiTextBlock | PiImageBlock)[];
      isError: boolean;
      [k: string]: unknown;
    };

export const COMPACTION_SUMMARY_PREFIX = `The conversation history before this point was compacted into the following summary:

<summary>
`;
export const COMPACTION_SUMMARY_SUFFIX = `
</summary>`;
export const BRANCH_SUMMARY_PREFIX = `The following is a summary of a branch that this conversation came back from:

<summary>
`;
export const BRANCH_SUMMARY_SUFFIX = `</summary>`;

export function compactionSummaryText(summary: string): string {
  return COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX;
}

export function branchSummaryText(summary: string): string {
  return BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX;
}

export interface BashExecution {
  command: string;
  output?: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  fullOutputPath?: string;
}

/** How pi shows a user's `!command` to the model (bashExecutionToText). */
export function bashExecutionText(msg: BashExecution): string {
  let text = `Ran \`${msg.command}\`\n`;
  if (msg.output) text += `\`\`\`\n${msg.output}\n\`\`\``;
  else text += '(no output)';
  if (msg.cancelled) text += '\n\n(command cancelled)';
  else if (msg.exitCode !== null && msg.exitCode !== undefined && msg.exitCode !== 0) {
    text += `\n\nCommand exited with code ${msg.exitCode}`;
  }
  if (msg.truncated && msg.fullOutputPath) text += `\n\n[Output truncated. Full output: ${msg.fullOutputPath}]`;
  return text;
}

export function isRecord(v: unknown): v is PiRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isHeader(v: unknown): v is PiHeader {
  return isRecord(v) && v.type === 'session' && typeof v.id === 'string';
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** pi's ids: 8 hex characters, unique within the session. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (let i = 0; i < 100; i++) {
    const id = crypto.randomUUID().slice(0, 8);
    if (!taken.has(id)) return id;
  }
  return crypto.randomUUID();
}

/** A time-ordered UUID (version 7), as pi mints session ids. */
export function newSessionId(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Brings records of an older file up to version 3 in memory, as pi does on load (pi then rewrites
 * the file; threadbase never does). v1 → v2: ids and parentIds along file order, and compaction's
 * firstKeptEntryIndex (an index into the file's records) becomes firstKeptEntryId. v2 → v3: the
 * `hookMessage` role is now `custom`. `records` are the entries after the header; returns copies.
 */
export function migrateRecords(
  version: number,
  records: readonly PiRecord[],
  header?: PiRecord,
  /** ids for v1 records; threadbase derives them from the file so they are the same on every read */
  makeId: (index: number, taken: Set<string>) => string = (_i, taken) => newEntryId(taken),
): PiRecord[] {
  const out = records.map((r) => ({ ...r }));
  if (version < 2) {
    const ids = new Set<string>();
    let prev: string | null = null;
    // firstKeptEntryIndex counts the header as index 0 when there is one.
    const fileOrder: (PiRecord | undefined)[] = header ? [header, ...out] : out;
    for (const [i, r] of out.entries()) {
      const id = makeId(i, ids);
      ids.add(id);
      r.id = id;
      r.parentId = prev;
      prev = id;
    }
    for (const r of out) {
      if (r.type === 'compaction' && typeof r.firstKeptEntryIndex === 'number') {
        const target = fileOrder[r.firstKeptEntryIndex];
        if (target && target.type !== 'session' && typeof target.id === 'string') r.firstKeptEntryId = target.id;
        delete r.firstKeptEntryIndex;
      }
    }
  }
  if (version < 3) {
    for (const r of out) {
      if (r.type === 'message' && isRecord(r.message) && r.message.role === 'hookMessage') {
        r.message = { ...r.message, role: 'custom' };
      }
    }
  }
  return out;
}

/** A pi session dir name: the cwd with `/`, `\` and `:` as `-`, between `--`. */
export function sessionDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/**
 * pi records an OpenAI Responses tool call's id as `call_id|item_id` (pi-ai
 * openai-responses-shared.js), and splits it again only for that API. The model's call id is the
 * call_id, what a provider calls it; the item id is kept to write pi's id back as it was.
 */
export function splitToolCallId(id: string): { callId: string; itemId?: string } {
  const bar = id.indexOf('|');
  return bar > 0 ? { callId: id.slice(0, bar), itemId: id.slice(bar + 1) } : { callId: id };
}

/** pi's tool-call id from the model's call id and the kept item id (meta.piItemId). */
export function joinToolCallId(callId: string, meta: Record<string, unknown> | undefined): string {
  return typeof meta?.piItemId === 'string' ? `${callId}|${meta.piItemId}` : callId;
}

/**
 * What pi-ai keeps in a thinking block's `thinkingSignature`, by the message's `api`:
 * `signature`: Anthropic's (anthropic.js; Bedrock's Claude likewise); `responses`: the OpenAI
 * reasoning item as JSON, encrypted_content included (openai-responses-shared.js); `google`:
 * Gemini's thought signature; `other`: openai-completions' name of the field the reasoning came
 * in. An api pi does not know (another agent's, written by threadbase) holds the model's
 * `signature`, which is Anthropic-style.
 */
export type ThinkingSignatureKind = 'signature' | 'responses' | 'google' | 'other';

export function thinkingSignatureKind(api: string | undefined): ThinkingSignatureKind {
  switch (api) {
    case 'openai-responses':
    case 'azure-openai-responses':
    case 'openai-codex-responses':
      return 'responses';
    case 'google-generative-ai':
    case 'google-vertex':
    case 'google-gemini-cli':
      return 'google';
    case 'openai-completions':
    case 'mistral-conversations':
      return 'other';
    default:
      return 'signature';
  }
}
