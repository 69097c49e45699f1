/**
 * The one shape every agent's sessions map onto. Formats translate to and from these types;
 * nothing here knows any agent's quirks. Each entry keeps the agent's original record(s) in `raw`
 * so a format can write its own sessions back without loss.
 */

/** Where a session lives. `threadbase` is threadbase's own stores (SQLite, PostgreSQL, memory). */
export type SourceName =
  | 'claude'
  | 'cline'
  | 'pi'
  | 'opencode'
  | 'codex'
  | 'continue'
  | 'copilot'
  | 'gemini'
  | 'kilo'
  | 'qwen'
  | 'zed'
  | 'threadbase'
  | (string & {});

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Of cacheWrite, the tokens written to a 1-hour cache, which Anthropic bills higher; absent when none. */
  cacheWrite1h?: number;
  reasoning: number;
  /** Server-side web searches the request ran, billed per search (Anthropic); absent when none. */
  webSearches?: number;
  /** The request was served in Anthropic's fast mode, billed at the model's fast rates; absent: standard. */
  speed?: 'fast';
  /** Where the provider ran the request, when it was asked to keep it there (Anthropic: "us", billed higher). */
  inferenceGeo?: string;
  /**
   * Requests the provider made to another model while serving this one (Anthropic's advisor tool),
   * each billed at its own model's rates; not in the counts above. Absent when none.
   */
  advisors?: AdvisorUsage[];
}

/** One request to an advisor model inside a response: its model and tokens (where it ran is the response's). */
export interface AdvisorUsage {
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Of cacheWrite, the tokens written to a 1-hour cache; absent when none. */
  cacheWrite1h?: number;
}

/** Extra fields an agent keeps on a part or message that the model has no slot for. */
export type Meta = Record<string, unknown>;

export interface TextPart {
  type: 'text';
  text: string;
  meta?: Meta;
}

export interface ThinkingPart {
  type: 'thinking';
  thinking: string;
  /** Provider signature that lets the thinking be replayed to the same provider. */
  signature?: string;
  meta?: Meta;
}

export interface RedactedThinkingPart {
  type: 'redacted_thinking';
  data: string;
  meta?: Meta;
}

export interface ImagePart {
  type: 'image';
  mediaType: string;
  /** base64 without a data: prefix */
  data?: string;
  url?: string;
  meta?: Meta;
}

export interface FilePart {
  type: 'file';
  mediaType: string;
  /** base64 without a data: prefix */
  data?: string;
  url?: string;
  /** plain-text documents carry their text here instead of data */
  text?: string;
  name?: string;
  meta?: Meta;
}

export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
  /**
   * `meta.providerExecuted: true`: the provider ran the call itself (codex's `web_search_call`), kept its
   * results, and no result is owed; other APIs and agents get it as a text note (convert/provider-tools.ts).
   */
  meta?: Meta;
}

export type ToolResultContent = TextPart | ImagePart | FilePart;

export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  /** The tool's name where the format records it beside the result (pi, OpenCode). */
  name?: string;
  content: string | ToolResultContent[];
  isError?: boolean;
  meta?: Meta;
}

export type Part = TextPart | ThinkingPart | RedactedThinkingPart | ImagePart | FilePart | ToolCallPart | ToolResultPart;

export type Role = 'user' | 'assistant' | 'system' | 'tool';

export interface Message {
  role: Role;
  parts: Part[];
  model?: string;
  provider?: string;
  /** The wire API the message came from or goes to, e.g. `anthropic-messages`. */
  api?: string;
  usage?: Usage;
  /** USD, as the agent recorded it. */
  cost?: number;
  stopReason?: string;
  error?: string;
  /**
   * The provider's id for the response this message belongs to. Consecutive assistant entries with
   * the same responseId are one API response split over several records (Claude Code does this);
   * context building merges them and usage is counted once.
   */
  responseId?: string;
  meta?: Meta;
}

export interface EntryBase {
  id: string;
  /** null at a root */
  parentId: string | null;
  /** ISO 8601 */
  timestamp: string;
  /** The agent's original record(s), kept for lossless write-back. */
  raw?: unknown;
  /** Which format `raw` is in; a writer reuses raw only when it is its own format's. */
  rawSource?: SourceName;
  /** Side chains (Claude Code's sub-agent transcripts in the parent file) are not on any main path. */
  sidechain?: boolean;
}

export interface MessageEntry extends EntryBase {
  kind: 'message';
  message: Message;
}

export interface CompactionEntry extends EntryBase {
  kind: 'compaction';
  summary: string;
  /** Entries from this one (on the path to the compaction) are kept after the summary; none if absent. */
  firstKeptEntryId?: string;
  tokensBefore?: number;
  /**
   * false where the agent does not apply it when it resumes the session (Cline, once its state no
   * longer matches the messages it loads): the context at a later leaf is every message, as the agent
   * sends them; at the compaction itself, what the run that compacted sent (buildContext).
   */
  appliedOnResume?: false;
  /**
   * The model request that wrote the summary, where the agent recorded it (OpenCode does): usage
   * counts it as a response of its own, as the agent's totals do.
   */
  usage?: Usage;
  cost?: number;
  model?: string;
  /**
   * The agent's or provider's id of that request, as ResponseRecord.responseId: a copy of the
   * compaction under another entry id (OpenCode's own fork gives every message a new id) is known
   * by it, so `stats` counts the summary's request once.
   */
  responseId?: string;
}

export interface BranchSummaryEntry extends EntryBase {
  kind: 'branch_summary';
  summary: string;
  /** The leaf of the abandoned branch this summarises. */
  fromId?: string;
  /** Data the summariser kept with it, not sent to the model (pi's extension-specific `details`). */
  details?: unknown;
  /** Whether an extension wrote it rather than the agent itself (pi's `fromHook`). */
  fromHook?: boolean;
  /**
   * What is sent to the model for it where that is not the bare summary: the wording of the agent it
   * came from, carried into another agent (convert/session.ts) and read back from the message that
   * agent sends (each writer keeps the entry beside it). Absent, the agent's own wording applies.
   */
  text?: string;
  /**
   * A copy a compaction kept before its summary (codex's replacement history), written after the target's
   * summary by convert/session.ts: counted in the conversion warnings, as a message's `meta.compactionKept`.
   */
  compactionKept?: boolean;
}

export interface ModelChangeEntry extends EntryBase {
  kind: 'model_change';
  model?: string;
  provider?: string;
  thinkingLevel?: string;
}

export interface LabelEntry extends EntryBase {
  kind: 'label';
  targetId: string;
  /** undefined clears the label */
  label?: string;
}

/** Anything agent-specific that is not part of the conversation (snapshots, queue ops, titles, ...). */
export interface MetadataEntry extends EntryBase {
  kind: 'metadata';
  type: string;
  data?: unknown;
}

export type Entry = MessageEntry | CompactionEntry | BranchSummaryEntry | ModelChangeEntry | LabelEntry | MetadataEntry;

export type EntryKind = Entry['kind'];

export interface SessionInfo {
  id: string;
  source: SourceName;
  /** The working directory the session ran in. */
  project?: string;
  title?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /** Fork origin or sub-agent parent. */
  parentId?: string | null;
  /** The tool call in the parent that spawned this (sub-agent) session. */
  parentToolCallId?: string;
  /** The entry of the parent session this one was forked at. */
  parentEntryId?: string;
  models?: string[];
  usage?: Usage;
  /** `usage` per model ('' for records that name none), when it is split over more than one. */
  usageByModel?: Record<string, Usage>;
  cost?: number;
  /** File or database the session was read from. */
  path?: string;
  /**
   * Workspace directories beyond `project` the agent was given (Gemini CLI `/dir add`, Codex
   * workspace roots, Zed worktrees). Optional; formats without the notion leave it out.
   */
  directories?: string[];
  /**
   * `threadbase` when threadbase wrote the session into its agent's store (`convert`, `handoff`), as the
   * session itself records it: of a response's copies in sessions that started at the same time, the
   * original's counts (preferredCopy). Absent for the agent's own sessions.
   */
  writtenBy?: 'threadbase';
  meta?: Meta;
}

export interface Session extends SessionInfo {
  /** In the order the agent stored them (file order, or time order for relational stores). */
  entries: Entry[];
  /** The current leaf; when absent, the last entry that is not on a side chain; EMPTY_LEAF (''): none (model/tree.ts). */
  leafId?: string | null;
  /** Problems met while reading, each naming file and line. */
  warnings?: ParseWarning[];
  /** The agent's own session-level record (pi's header, OpenCode's session row), in `source`'s format. */
  raw?: unknown;
}

export interface ParseWarning {
  file: string;
  line?: number;
  id?: string;
  message: string;
}

export const emptyUsage = (): Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
});

/** Tokens a usage counts (reasoning is part of output, as agents count it). */
export function totalTokens(u: Usage | undefined): number {
  return u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0;
}

export function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  if (!b) return a;
  // built field by field in the order the spreads gave (JSON output keeps it): a session's totals add thousands
  const sum: Usage = {
    input: a.input + (b.input ?? 0),
    output: a.output + (b.output ?? 0),
    cacheRead: a.cacheRead + (b.cacheRead ?? 0),
    cacheWrite: a.cacheWrite + (b.cacheWrite ?? 0),
  } as Usage;
  if (a.cacheWrite1h || b.cacheWrite1h) sum.cacheWrite1h = (a.cacheWrite1h ?? 0) + (b.cacheWrite1h ?? 0);
  sum.reasoning = a.reasoning + (b.reasoning ?? 0);
  if (a.webSearches || b.webSearches) sum.webSearches = (a.webSearches ?? 0) + (b.webSearches ?? 0);
  // a sum of requests keeps how they were served only when they all were served so
  if (a.speed && a.speed === b.speed) sum.speed = a.speed;
  if (a.inferenceGeo && a.inferenceGeo === b.inferenceGeo) sum.inferenceGeo = a.inferenceGeo;
  return sum;
}

/** A listed session as the CLI contract prints it (`sessions --json`), absent fields as null. */
export interface SessionRow {
  id: string;
  source: SourceName;
  project: string | null;
  title: string | null;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  parentId: string | null;
}

export function sessionRow(s: SessionInfo): SessionRow {
  return {
    id: s.id,
    source: s.source,
    project: s.project ?? null,
    title: s.title ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    messageCount: s.messageCount,
    parentId: s.parentId ?? null,
  };
}
