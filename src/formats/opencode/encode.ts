/**
 * The threadbase model → OpenCode session data (`{info, messages: [{info, parts}]}`) with fresh
 * ids in OpenCode's scheme. Entries read from OpenCode (rawSource 'opencode') are written back from
 * their original messages (ids remapped, as OpenCode's own fork does); entries from other formats
 * are encoded from the model fields: a user message per user entry, an assistant message per
 * assistant entry, or per response split over entries (one step: step-start, reasoning/text/tool
 * parts, step-finish) whose tool parts take their results from the tool entries that follow, and a
 * compaction as OpenCode's pair of a compaction request and a `summary` assistant message.
 */
import { declinedMarkOf } from '../../convert/declined.js';
import { isProviderExecuted, providerCallNote } from '../../convert/provider-tools.js';
import { mergeSplitResponses, pathToLeaf, responseEntriesAt } from '../../model/tree.js';
import type {
  CompactionEntry,
  Entry,
  FilePart,
  Message,
  MessageEntry,
  Session,
  ThinkingPart,
  ToolResultPart,
  Usage,
} from '../../model/types.js';
import { assistantImageNote } from '../shared/assistant-images.js';
import { branchSummaryField } from '../shared/branch-summary.js';
import { UniqueToolIds } from '../shared/unique-tool-ids.js';
import { usageExtrasOf } from '../shared/usage-extras.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { isThinkingOpenCodeDrops } from './context.js';
import { ABORTED_TOOL_ERROR, opencodeDeclinedMark, REJECTED_TOOL_ERROR } from './denials.js';
import { INTERRUPTED_TOOL, isOcEntryRaw, plainTextOf, readToolNote } from './parse.js';
import {
  holdsOpenCodeRecords,
  isoOf,
  type Json,
  newId,
  newSlug,
  num,
  type OcMessage,
  type OcSessionData,
  OPENCODE,
  type OpenCodeFlavor,
  obj,
  str,
} from './records.js';

export interface EncodeOptions {
  sessionId: string;
  projectID: string;
  worktree: string;
  directory: string;
  title?: string;
  parentID?: string;
  /** encode the path to this entry (default: the current leaf) */
  leafId?: string;
  /** the session's creation time in epoch ms (default: its first message's); a fork is created now */
  createdMs?: number;
  /** what a fork takes over from its original's info, as OpenCode's Session.fork does */
  forkedFrom?: Json;
  /** the agent keeping the records (default OpenCode): its primary agent's name and its version */
  flavor?: OpenCodeFlavor;
}

export interface EncodeResult {
  data: OcSessionData;
  /** what could not be carried over */
  warnings: string[];
}

const ms = (iso: string | undefined): number => {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : Date.now();
};

/**
 * Usage as OpenCode's tokens: its output leaves the reasoning out (see usageOf in parse.ts). What
 * OpenCode has no field for (1-hour cache writes, fast mode, place, web searches, advisor requests) rides in a
 * `threadbase` field that OpenCode leaves alone (test/agents/opencode.test.ts).
 */
function tokensOf(u: Usage | undefined): Json {
  const x = u ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const extras = usageExtrasOf(u, { reasoning: false });
  return {
    total: x.input + x.output + x.cacheRead + x.cacheWrite,
    input: x.input,
    output: Math.max(0, x.output - x.reasoning),
    reasoning: x.reasoning,
    cache: { read: x.cacheRead, write: x.cacheWrite },
    ...(extras ? { threadbase: extras } : {}),
  };
}

/**
 * A thinking part's metadata as OpenCode records reasoning: Anthropic's signature, or OpenAI's
 * encrypted reasoning (from Codex, or an OpenCode session through another agent) with its item id
 * where known.
 */
function reasoningMetadata(p: ThinkingPart): { metadata?: Json } {
  if (p.signature !== undefined) return { metadata: { anthropic: { signature: p.signature } } };
  const encrypted = p.meta?.encryptedContent;
  if (typeof encrypted !== 'string') return {};
  // OpenCode's own record of the item id, else the one Codex and pi keep (meta.codexItemId)
  const itemId = str(obj(obj(p.meta?.providerMetadata)?.openai)?.itemId) ?? str(p.meta?.codexItemId);
  return { metadata: { openai: { ...(itemId !== undefined ? { itemId } : {}), reasoningEncryptedContent: encrypted } } };
}

/**
 * The reasoning parts a thinking part becomes. OpenCode records an OpenAI reasoning item as one part per
 * summary part, all with the item id, the encrypted content on the last one only; resuming, it leaves
 * the item ids out (store: false) and the AI SDK then sends each part that has encrypted content as an
 * item of its own and leaves out the others (agents test): its own items go back with their last summary
 * part only. So an item of several summary parts (codex's, pi's) is written as one part of all their text
 * with the encrypted content: OpenCode sends the item once, with every summary (as one summary part), and
 * the parts are kept beside it (a field OpenCode ignores) to read back as the whole item.
 */
function reasoningParts(p: ThinkingPart): { text: string; metadata?: Json; threadbase?: Json }[] {
  const { metadata } = reasoningMetadata(p);
  const summaries = p.meta?.summaryParts;
  const several =
    obj(metadata?.openai) !== undefined &&
    Array.isArray(summaries) &&
    summaries.length >= 2 &&
    summaries.every((x): x is string => typeof x === 'string') &&
    summaries.join('\n\n') === p.thinking;
  return [
    { text: p.thinking, ...(metadata ? { metadata } : {}), ...(several ? { threadbase: { summaryParts: summaries } } : {}) },
  ];
}

/**
 * Whether a reply's thinking is written as text: a reply of thinking only that OpenCode's AI SDK providers
 * drop (another agent's, unsigned: context.ts isThinkingOpenCodeDrops), which as reasoning OpenCode would send
 * as an assistant message with no content, which the Messages API refuses (400) before the last message. Its
 * thinking goes as `text` parts, which OpenCode sends (as Claude Code and pi send such thinking), marked
 * `threadbase.thinking` (a field OpenCode ignores) for parse.ts to read back as thinking. Blank thinking stays
 * reasoning: OpenCode would send a blank text (which the API refuses too), while it removes blank unsigned
 * reasoning before the Anthropic provider (ProviderTransform), and a message that leaves empty; so a reply of
 * blank thinking only carries nothing, is written as reasoning as before, and is not sent.
 */
function thinkingAsText(m: Message): boolean {
  return m.parts.every(isThinkingOpenCodeDrops) && m.parts.some((p) => p.type === 'thinking' && p.thinking.trim() !== '');
}

/**
 * What a compaction's summary message keeps of the entry, in a field OpenCode ignores (parse.ts keptEntryOf,
 * summaryResponseId): its id and time, and its request's id where it has one.
 */
function keptCompaction(e: CompactionEntry): Json {
  return { entryId: e.id, timestamp: e.timestamp, ...(e.responseId ? { responseId: e.responseId } : {}) };
}

function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/**
 * A plain-text file the user attached, as OpenCode records one (SessionPrompt, a `data:` text/plain file
 * part): a synthetic text saying the Read tool read it, one of its text (both of which OpenCode sends),
 * and the file part (which it does not send). OpenCode sends any other text type as a file the Anthropic
 * provider refuses, so a Markdown file is written as text/plain, as OpenCode's `run --file` records any
 * UTF-8 file; its own type, base64 form and meta ride in a field OpenCode ignores (parse.ts reads them back).
 */
function textFileParts(p: FilePart, text: string): Json[] {
  const kept: Json = {
    ...(p.mediaType !== 'text/plain' ? { mediaType: p.mediaType } : {}),
    ...(p.data !== undefined ? { base64: true } : {}),
    ...(p.meta ? { meta: p.meta } : {}),
  };
  return [
    { type: 'text', text: readToolNote(p.name), synthetic: true },
    { type: 'text', text, synthetic: true },
    {
      type: 'file',
      mime: 'text/plain',
      url: dataUrl('text/plain', Buffer.from(text, 'utf8').toString('base64')),
      ...(p.name !== undefined ? { filename: p.name } : {}),
      ...(Object.keys(kept).length ? { threadbase: kept } : {}),
    },
  ];
}

function relativePath(worktree: string, directory: string): string {
  if (worktree === '/') return directory.replace(/^\/+/, '');
  if (directory === worktree) return '';
  return directory.startsWith(`${worktree}/`) ? directory.slice(worktree.length + 1) : directory;
}

/** What an append continues from: the session as it stands in OpenCode. */
export interface EncodeSeed {
  /** the last user message already in the session (the next assistant message answers it) */
  lastUserId?: string;
  /** the session's model so far, for messages that name none */
  model?: { providerID: string; modelID: string };
  /** tool parts already in the session, by call id, so a result appended after its call completes them */
  tools?: ReadonlyMap<string, Json>;
  /** the session's entry ids (and message ids) → their message ids, so an appended compaction can keep a tail of them */
  messageIds?: ReadonlyMap<string, string>;
}

export interface EncodedEntries {
  messages: OcMessage[];
  /** copies of seeded tool parts that an appended result completed (to be updated in place) */
  updatedParts: Json[];
  /** call ids of tool results with no open tool call to go into (left out) */
  orphanResults: string[];
  warnings: string[];
}

/** Entries (a path, root first) → OpenCode messages with fresh ids, continuing from `seed`. */
export function encodeEntries(
  path: readonly Entry[],
  opts: Pick<EncodeOptions, 'sessionId' | 'directory' | 'worktree' | 'flavor'>,
  seed: EncodeSeed = {},
): EncodedEntries {
  const warnings: string[] = [];
  const { agent, label } = opts.flavor ?? OPENCODE;
  const sessionID = opts.sessionId;
  const out: OcMessage[] = [];
  /** old OpenCode message id or model entry id → new message id */
  const messageIdFor = new Map<string, string>(seed.messageIds ?? []);
  /** OpenCode messages copied whole: old id → the copy (parts filtered at the end) */
  const copied = new Map<string, { message: OcMessage; keep: Set<string>; original: OcMessage }>();
  /** tool parts waiting for their result, by call id */
  const pendingTools = new Map<string, Json>();
  /** seeded tool parts (copies) and those of them a result completed */
  const seededTools = new Set<Json>();
  const updatedParts: Json[] = [];
  const orphanResults: string[] = [];
  /** call ids unique in the session: OpenCode sends them as recorded, and the Messages API refuses repeats */
  const toolIds = new UniqueToolIds();
  for (const [callId, part] of seed.tools ?? []) {
    toolIds.seen(callId, str(part.callID) ?? callId);
    const copy = structuredClone(part);
    pendingTools.set(callId, copy);
    seededTools.add(copy);
  }
  let lastUserId: string | undefined = seed.lastUserId;
  let defaultModel: { providerID: string; modelID: string } | undefined = seed.model;
  /** the provider each model's replies on the path name, for a compaction that names only its model */
  const providerOfModel = new Map<string, string>(seed.model ? [[seed.model.modelID, seed.model.providerID]] : []);
  for (const e of path) {
    if (e.kind === 'message' && e.message.role === 'assistant' && e.message.model) {
      defaultModel = { providerID: e.message.provider ?? 'anthropic', modelID: e.message.model };
      if (e.message.provider) providerOfModel.set(e.message.model, e.message.provider);
    }
  }
  const userModel = (m?: Message) =>
    m?.model
      ? { providerID: m.provider ?? defaultModel?.providerID ?? 'anthropic', modelID: m.model }
      : (defaultModel ?? { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' });
  /** the model that wrote a compaction's summary (CompactionEntry.model), else the user's, as OpenCode records it */
  const summaryModel = (e: Entry & { kind: 'compaction' }) =>
    e.model
      ? { providerID: providerOfModel.get(e.model) ?? defaultModel?.providerID ?? 'anthropic', modelID: e.model }
      : userModel();

  const newPart = (messageID: string, part: Json): Json => ({ ...part, id: newId('prt'), sessionID, messageID });

  const copyMessage = (m: OcMessage): OcMessage => {
    const oldId = str(m.info.id) ?? '';
    const id = newId('msg');
    messageIdFor.set(oldId, id);
    const info: Json = { ...m.info, id, sessionID };
    if (info.role === 'assistant') {
      const parent = messageIdFor.get(str(m.info.parentID) ?? '') ?? lastUserId;
      if (parent) info.parentID = parent;
    } else if (info.role === 'user') lastUserId = id;
    const parts = m.parts.map((p) =>
      newPart(id, { ...p, ...(p.type === 'compaction' && str(p.tail_start_id) ? { tail_start_id: p.tail_start_id } : {}) }),
    );
    for (const p of parts) if (p.type === 'tool' && str(p.callID)) toolIds.seen(str(p.callID) as string);
    const copy = { info, parts };
    out.push(copy);
    return copy;
  };

  const ensureUser = (at: number) => {
    if (lastUserId) return;
    // OpenCode needs a user message before an assistant one; an empty text is not sent to the model.
    const id = newId('msg');
    lastUserId = id;
    out.push({
      info: { id, sessionID, role: 'user', time: { created: at }, agent, model: userModel() },
      parts: [newPart(id, { type: 'text', text: '', synthetic: true })],
    });
  };

  /** each tool part a result went into, in the order the results came */
  const resultArrival = new Map<Json, number>();
  const attachResult = (r: ToolResultPart, at: number) => {
    const tool = pendingTools.get(r.callId);
    if (!tool) {
      warnings.push(`tool result ${r.callId} has no tool call before it; left out`);
      orphanResults.push(r.callId);
      return;
    }
    pendingTools.delete(r.callId);
    resultArrival.set(tool, resultArrival.size);
    if (seededTools.has(tool)) updatedParts.push(tool);
    const state = obj(tool.state) ?? {};
    const input = obj(state.input) ?? {};
    const texts: string[] = [];
    const attachments: Json[] = [];
    /** the result's content in order: a text's or text file's length in the output, or an attachment */
    const layout: Json[] = [];
    /** an image or a file OpenCode sends after the output, as a file part of the tool's message */
    const attach = (mime: string, url: string, filename: string | undefined) => {
      layout.push({ attachment: attachments.length });
      attachments.push({
        id: newId('prt'),
        sessionID,
        messageID: tool.messageID,
        type: 'file',
        mime,
        url,
        ...(filename ? { filename } : {}),
      });
    };
    if (typeof r.content === 'string') texts.push(r.content);
    else {
      for (const c of r.content) {
        const fileText = c.type === 'file' ? plainTextOf(c) : undefined;
        if (c.type === 'text') {
          texts.push(c.text);
          layout.push({ text: c.text.length });
        } else if (c.type === 'file' && fileText !== undefined) {
          // the Anthropic provider drops a text/plain attachment of a tool result: its text goes in the output
          texts.push(fileText);
          layout.push({
            text: fileText.length,
            file: {
              mediaType: c.mediaType,
              ...(c.name !== undefined ? { name: c.name } : {}),
              ...(c.data !== undefined ? { base64: true } : {}),
              ...(c.meta ? { meta: c.meta } : {}),
            },
          });
        } else if (c.data !== undefined)
          attach(c.mediaType, dataUrl(c.mediaType, c.data), c.type === 'file' ? c.name : undefined);
        // one by URL is written without a file name
        else if (c.url) attach(c.mediaType, c.url, undefined);
      }
    }
    const text = texts.join('\n');
    // OpenCode sends a result as its output, then its attachments: the parts' own order and bounds (where
    // the reader would not find them in that) ride beside it in a field OpenCode ignores (parse.ts resultLayout)
    const plain = layout.every((x, k) => x.file === undefined && (x.text === undefined || k === 0));
    // The call's time is when the tool started; the result's, when it ended (the read side dates the result by it).
    // (a result recorded before the response's last record, which dates the call, ends when the call starts)
    const start = num(obj(state.time)?.start) ?? at;
    const time = { start, end: Math.max(start, at) };
    // a call refused or cancelled: as OpenCode records one (its words unless the text is its own refusal)
    const mark = declinedMarkOf(r);
    const ownWords = opencodeDeclinedMark(text, false) === mark;
    tool.state =
      mark === 'refused'
        ? { status: 'error', input, error: ownWords ? text : REJECTED_TOOL_ERROR, time }
        : mark === 'cancelled'
          ? {
              status: 'error',
              input,
              error: ABORTED_TOOL_ERROR,
              // what the call printed before it stopped, which OpenCode sends as its output
              metadata: { interrupted: true, ...(text && r.isError !== true ? { output: text } : {}) },
              time,
            }
          : r.isError
            ? { status: 'error', input, error: text, time }
            : {
                status: 'completed',
                input,
                output: text,
                title: '',
                metadata: {},
                time,
                ...(attachments.length ? { attachments } : {}),
              };
    if (!plain && obj(tool.state)?.status === 'completed')
      tool.threadbase = { ...(obj(tool.threadbase) ?? {}), resultContent: layout };
  };

  /** `textFields`: more fields of its text parts. */
  const encodeUser = (e: Entry, m: Message, textFields: Json = {}) => {
    const id = newId('msg');
    const at = ms(e.timestamp);
    const parts: Json[] = [];
    for (const p of m.parts) {
      if (p.type === 'text') parts.push(newPart(id, { type: 'text', text: p.text, ...textFields }));
      else if (p.type === 'thinking') parts.push(newPart(id, { type: 'text', text: p.thinking }));
      else if (p.type === 'image' || p.type === 'file') {
        const text = p.type === 'file' ? plainTextOf(p) : undefined;
        if (p.type === 'file' && text !== undefined) for (const x of textFileParts(p, text)) parts.push(newPart(id, x));
        else if (p.data !== undefined)
          parts.push(
            newPart(id, {
              type: 'file',
              mime: p.mediaType,
              url: dataUrl(p.mediaType, p.data),
              filename: (p.type === 'file' ? p.name : undefined) ?? 'attachment',
              // codex's image detail, in a field OpenCode ignores (parse.ts reads it back)
              ...(typeof p.meta?.detail === 'string' ? { threadbase: { detail: p.meta.detail } } : {}),
            }),
          );
        else if (p.url)
          parts.push(
            newPart(id, {
              type: 'file',
              mime: p.mediaType,
              url: p.url,
              filename: (p.type === 'file' ? p.name : undefined) ?? 'attachment',
            }),
          );
      } else if (p.type === 'tool_result') attachResult(p, at);
      else warnings.push(`${e.id}: a ${p.type} part in a user message has no ${label} equivalent; left out`);
    }
    if (parts.length === 0) {
      // only tool results: they went into the tool parts of the message before
      const last = out.at(-1);
      if (last) messageIdFor.set(e.id, str(last.info.id) ?? '');
      return;
    }
    messageIdFor.set(e.id, id);
    lastUserId = id;
    out.push({ info: { id, sessionID, role: 'user', time: { created: at }, agent, model: userModel(m) }, parts });
  };

  const encodeAssistant = (e: Entry, m: Message) => {
    const at = ms(e.timestamp);
    ensureUser(at);
    const id = newId('msg');
    messageIdFor.set(e.id, id);
    const asText = thinkingAsText(m);
    const parts: Json[] = [newPart(id, { type: 'step-start' })];
    let hasTools = false;
    for (const p of m.parts) {
      if (p.type === 'text') parts.push(newPart(id, { type: 'text', text: p.text, time: { start: at, end: at } }));
      else if (p.type === 'thinking' && asText && p.thinking.trim())
        parts.push(newPart(id, { type: 'text', text: p.thinking, threadbase: { thinking: true }, time: { start: at, end: at } }));
      else if (p.type === 'thinking') {
        for (const r of reasoningParts(p)) parts.push(newPart(id, { type: 'reasoning', ...r, time: { start: at, end: at } }));
      } else if (p.type === 'redacted_thinking')
        parts.push(
          newPart(id, {
            type: 'reasoning',
            text: '',
            metadata: { anthropic: { redactedData: p.data } },
            time: { start: at, end: at },
          }),
        );
      else if (p.type === 'tool_call' && isProviderExecuted(p))
        // a call the provider ran (codex's web search) has no result: OpenCode would send it as failed;
        // its note is sent instead, the call kept beside it (a field OpenCode ignores) for reading back
        parts.push(
          newPart(id, { type: 'text', text: providerCallNote(p), threadbase: { providerCall: p }, time: { start: at, end: at } }),
        );
      else if (p.type === 'image')
        // OpenCode's assistant messages hold no images (codex's generated ones): a note it sends, the
        // image kept beside it (a field OpenCode ignores) for reading back
        parts.push(
          newPart(id, { type: 'text', text: assistantImageNote(p), threadbase: { image: p }, time: { start: at, end: at } }),
        );
      else if (p.type === 'tool_call') {
        hasTools = true;
        // an id an earlier call has gets a new one, the call's own kept beside it (a field OpenCode ignores)
        const callID = toolIds.call(p.id);
        const tool = newPart(id, {
          type: 'tool',
          callID,
          tool: p.name,
          state: { status: 'error', input: p.input, error: INTERRUPTED_TOOL, time: { start: at, end: at } },
          ...(callID !== p.id ? { threadbase: { callID: p.id } } : {}),
        });
        pendingTools.set(p.id, tool);
        parts.push(tool);
      } else if (p.type === 'tool_result') attachResult(p, at);
      else warnings.push(`${e.id}: a ${p.type} part in an assistant message has no ${label} equivalent; left out`);
    }
    const tokens = tokensOf(m.usage);
    parts.push(newPart(id, { type: 'step-finish', reason: hasTools ? 'tool-calls' : 'stop', tokens, cost: m.cost ?? 0 }));
    const model = userModel(m);
    out.push({
      info: {
        id,
        sessionID,
        role: 'assistant',
        parentID: lastUserId,
        mode: agent,
        agent,
        path: { cwd: opts.directory, root: opts.worktree },
        cost: m.cost ?? 0,
        tokens,
        modelID: model.modelID,
        providerID: model.providerID,
        time: { created: at, completed: at },
        finish: hasTools ? 'tool-calls' : 'stop',
        // the provider's id of the response, else (a reply that had none, as Zed's) the entry's id and
        // time (OpenCode's is made later on a tie), in a field OpenCode ignores (so that `stats` knows the copy)
        threadbase: m.responseId ? { responseId: m.responseId } : { entryId: e.id, timestamp: e.timestamp },
        ...(m.error ? { error: errorOf(m.error) } : {}),
      },
      parts,
    });
  };

  const encodeCompaction = (e: Entry & { kind: 'compaction' }) => {
    const at = ms(e.timestamp);
    const userId = newId('msg');
    messageIdFor.set(e.id, userId);
    const tail = e.firstKeptEntryId ? messageIdFor.get(e.firstKeptEntryId) : undefined;
    out.push({
      info: { id: userId, sessionID, role: 'user', time: { created: at }, agent, model: userModel() },
      parts: [newPart(userId, { type: 'compaction', auto: false, ...(tail ? { tail_start_id: tail } : {}) })],
    });
    lastUserId = userId;
    const id = newId('msg');
    // the summary's request is priced and counted under the model that made it (stats --by model)
    const model = summaryModel(e);
    out.push({
      info: {
        id,
        sessionID,
        role: 'assistant',
        parentID: userId,
        mode: 'compaction',
        agent: 'compaction',
        summary: true,
        path: { cwd: opts.directory, root: opts.worktree },
        // what writing the summary cost, where the compaction came with it (CompactionEntry.usage)
        cost: e.cost ?? 0,
        tokens: tokensOf(e.usage),
        modelID: model.modelID,
        providerID: model.providerID,
        time: { created: at, completed: at },
        finish: 'stop',
        // the compaction's entry id and time, in a field OpenCode ignores, as on a reply without a
        // response id: its message ids are new on each write, so `stats` knows a copy by these (and
        // by the summary request's id, where the compaction has one)
        threadbase: keptCompaction(e),
      },
      parts: [
        newPart(id, { type: 'step-start' }),
        newPart(id, { type: 'text', text: e.summary, time: { start: at, end: at } }),
        newPart(id, { type: 'step-finish', reason: 'stop', tokens: tokensOf(e.usage), cost: e.cost ?? 0 }),
      ],
    });
  };

  for (let i = 0; i < path.length; i++) {
    const e = path[i] as Entry;
    if (holdsOpenCodeRecords(e.rawSource) && isOcEntryRaw(e.raw)) {
      const raw = e.raw;
      if (raw.message) {
        const copy = copyMessage(raw.message);
        copied.set(raw.messageID, { message: copy, keep: new Set(raw.partIDs), original: raw.message });
        if (raw.summaryMessage) {
          const s = copyMessage(raw.summaryMessage);
          // a summary OpenCode wrote keeps the compaction's entry id and time in its copy (a fork), as
          // encodeCompaction writes them, and its request's id (parse.ts made it of the original's
          // times and tokens), so `stats` counts the summary's request once with its original
          if (e.kind === 'compaction' && !str(obj(s.info.threadbase)?.entryId))
            s.info.threadbase = { ...(obj(s.info.threadbase) ?? {}), ...keptCompaction(e) };
          copied.set(str(raw.summaryMessage.info.id) ?? '', {
            message: s,
            keep: new Set(raw.summaryMessage.parts.map((p) => str(p.id) ?? '')),
            original: raw.summaryMessage,
          });
        }
      } else {
        const c = copied.get(raw.messageID);
        if (c) for (const p of raw.partIDs) c.keep.add(p);
      }
      messageIdFor.set(e.id, messageIdFor.get(raw.messageID) ?? '');
      continue;
    }
    if (e.kind === 'message') {
      const m = e.message;
      if (m.role === 'user') encodeUser(e, m);
      else if (m.role === 'assistant') {
        // a response split over several entries (Claude Code: one per content block) is one OpenCode
        // message, as OpenCode records a response: its parallel calls are sent as one turn's, their results together
        // an entry OpenCode itself wrote stays its own message
        const { group, results, length } = responseAt(path, i);
        i += length - 1;
        // at the time of the response's last record, the one whose usage counts (copyKeyOf: a copy is
        // known by its response id and that time, so stats counts the response once with its original)
        const last = group.at(-1) as MessageEntry;
        encodeAssistant(last, mergeSplitResponses(group.map((g) => g.message))[0] as Message);
        for (const g of group) messageIdFor.set(g.id, messageIdFor.get(last.id) ?? '');
        // results recorded between the response's calls go into its tool parts, in the order they came
        for (const r of results) encodeUser(r, r.message);
      }
      // results go into the tool parts; text or images that came alongside become a user message
      else if (m.role === 'tool') encodeUser(e, m);
      else warnings.push(`${e.id}: ${m.role} messages have no ${label} equivalent; left out`);
    } else if (e.kind === 'compaction') encodeCompaction(e);
    // a user message of what the agent it came from sends for it (convert/session.ts), the entry kept
    // in its text part's `threadbase.branchSummary`, which OpenCode ignores (parse.ts reads it back)
    else if (e.kind === 'branch_summary')
      encodeUser(
        e,
        { role: 'user', parts: [{ type: 'text', text: e.text ?? e.summary }] },
        { threadbase: { branchSummary: { ...branchSummaryField(e) } } },
      );
    // model changes, labels and other metadata have no OpenCode record
  }

  // OpenCode keeps a result in its call's part and sends a step's results in the order of its calls:
  // results that came in another order (Claude Code records each as its call ends) keep theirs beside
  // them (a field OpenCode ignores; parse.ts reads the step's results back in it)
  for (const m of out) {
    const tools = m.parts.filter((p) => resultArrival.has(p));
    const arrival = tools.map((p) => resultArrival.get(p) as number);
    if (arrival.every((n, k) => k === 0 || n > (arrival[k - 1] as number))) continue;
    tools.forEach((p, k) => {
      p.threadbase = { ...(obj(p.threadbase) ?? {}), resultOrder: arrival.filter((n) => n < (arrival[k] as number)).length };
    });
  }

  // A copied message cut short by the path keeps only its parts up to the last one on the path.
  for (const { message, keep, original } of copied.values()) {
    let last = -1;
    original.parts.forEach((p, i) => {
      if (keep.has(str(p.id) ?? '')) last = i;
    });
    if (last >= 0 && last < original.parts.length - 1) message.parts = message.parts.slice(0, last + 1);
  }
  // Compaction tails point at copied messages by their old ids.
  for (const m of out) {
    for (const p of m.parts) {
      if (p.type === 'compaction' && typeof p.tail_start_id === 'string') {
        const mapped = messageIdFor.get(p.tail_start_id);
        if (mapped && mapped !== p.tail_start_id) p.tail_start_id = mapped;
        else if (!mapped && !out.some((x) => x.info.id === p.tail_start_id)) delete p.tail_start_id;
      }
    }
  }

  // OpenCode orders a session's messages by time: a tie (records written in one millisecond, or two
  // messages made of one entry) may come back in either order, so each message is made at least
  // 1 ms after the one before it.
  let last = Number.NEGATIVE_INFINITY;
  for (const m of out) {
    const time = obj(m.info.time);
    const created = num(time?.created);
    if (!time || created === undefined) continue;
    if (created <= last) {
      const completed = num(time.completed);
      m.info.time = {
        ...time,
        created: last + 1,
        ...(completed !== undefined && completed <= last ? { completed: last + 1 } : {}),
      };
    }
    last = Math.max(created, last + 1);
  }
  return { messages: out, updatedParts, orphanResults, warnings };
}

/**
 * The entries of the response at `path[i]` (responseEntriesAt), also across results recorded between its
 * calls (Claude Code may record a call's result before the response's next call: one response, which
 * OpenCode records as one message, its results in its tool parts): the response's entries, those
 * results, and how many entries of the path they take. An entry OpenCode itself wrote stays its own message.
 */
function responseAt(path: readonly Entry[], i: number): { group: MessageEntry[]; results: MessageEntry[]; length: number } {
  const own = (e: Entry) => holdsOpenCodeRecords(e.rawSource) && isOcEntryRaw(e.raw);
  const group = responseEntriesAt(path, i, own);
  const results: MessageEntry[] = [];
  let length = group.length;
  const id = group[0]?.message.responseId;
  for (;;) {
    const between = path[i + length];
    const next = path[i + length + 1];
    if (id === undefined || between?.kind !== 'message' || between.message.role !== 'tool' || own(between)) break;
    if (next?.kind !== 'message' || next.message.role !== 'assistant' || next.message.responseId !== id || own(next)) break;
    // only results of the response's calls so far: anything else (a user's text) ends the response's message
    const calls = new Set(group.flatMap((g) => g.message.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []))));
    if (!between.message.parts.every((p) => p.type === 'tool_result' && calls.has(p.callId))) break;
    const more = responseEntriesAt(path, i + length + 1, own);
    results.push(between);
    group.push(...more);
    length += 1 + more.length;
  }
  return { group, results, length };
}

/** The token and cost totals of the assistant messages, as OpenCode sums them onto the session. */
export function totalsOf(messages: readonly OcMessage[]): {
  tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  cost: number;
} {
  const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
  let cost = 0;
  for (const m of messages) {
    if (m.info.role !== 'assistant') continue;
    const t = obj(m.info.tokens);
    tokens.input += num(t?.input) ?? 0;
    tokens.output += num(t?.output) ?? 0;
    tokens.reasoning += num(t?.reasoning) ?? 0;
    tokens.cache.read += num(obj(t?.cache)?.read) ?? 0;
    tokens.cache.write += num(obj(t?.cache)?.write) ?? 0;
    cost += num(m.info.cost) ?? 0;
  }
  return { tokens, cost };
}

/** The last time (epoch ms) of the written messages: their creation and completion times. */
function lastTimeOf(messages: readonly OcMessage[]): number | undefined {
  let last: number | undefined;
  for (const m of messages) {
    const t = obj(m.info.time);
    for (const v of [num(t?.created), num(t?.completed)]) if (v !== undefined && (last === undefined || v > last)) last = v;
  }
  return last;
}

/**
 * A session's metadata keeping its own last time beside the time of the write, its time_updated: Kilo's
 * retention deletes sessions whose time_updated is past `retention.maxAgeDays` (FORMAT.md in
 * src/formats/kilo), so a copy of an older session gets the time it arrived, and updatedTimeOf reads the
 * session's own back while time_updated is still `writtenAt`. Kilo keeps a session's other metadata keys
 * when it sets its own (`kilo.goal`).
 */
function keptLastTime(metadata: unknown, lastUpdated: number, writtenAt: number): unknown {
  const kept = obj(metadata);
  // a fork's original may carry what threadbase kept for that one
  const others = kept ? Object.fromEntries(Object.entries(kept).filter(([k]) => k !== 'threadbase')) : undefined;
  if (lastUpdated >= writtenAt) return kept ? others : metadata;
  return { ...(others ?? {}), threadbase: { lastUpdated, writtenAt } };
}

export function encodeSession(session: Session, opts: EncodeOptions): EncodeResult {
  const path = pathToLeaf(session, opts.leafId);
  const { messages: out, warnings } = encodeEntries(path, opts);
  // the session's first message says threadbase wrote it (OpenCode's session row has no field of
  // ours; the message's `threadbase` it leaves alone): parse.ts reads it back as SessionInfo.writtenBy
  const first = out[0];
  if (first) first.info = { ...first.info, threadbase: { ...(obj(first.info.threadbase) ?? {}), writtenBy: WRITTEN_BY } };
  const created =
    opts.createdMs ?? (out.length ? (num(obj(out[0]?.info.time)?.created) ?? ms(session.createdAt)) : ms(session.createdAt));
  // A session just written is the most recently updated, so OpenCode lists it first.
  const updated = Math.max(Date.now(), created);
  const flavor = opts.flavor ?? OPENCODE;
  const metadata = flavor.keepsOwnLastTime
    ? keptLastTime(opts.forkedFrom?.metadata, Math.max(lastTimeOf(out) ?? created, created), updated)
    : opts.forkedFrom?.metadata;
  const { tokens: totals, cost } = totalsOf(out);
  const info: Json = {
    id: opts.sessionId,
    slug: newSlug(),
    projectID: opts.projectID,
    directory: opts.directory,
    path: relativePath(opts.worktree, opts.directory),
    ...(opts.parentID ? { parentID: opts.parentID } : {}),
    ...(str(opts.forkedFrom?.workspaceID) !== undefined ? { workspaceID: opts.forkedFrom?.workspaceID } : {}),
    ...(metadata !== undefined ? { metadata: structuredClone(metadata) } : {}),
    title: opts.title ?? session.title ?? `New session - ${isoOf(created)}`,
    version: flavor.writtenVersion,
    cost,
    tokens: totals,
    time: { created, updated },
  };
  return { data: { info, messages: out, project: { id: opts.projectID, worktree: opts.worktree } }, warnings };
}

/**
 * OpenCode's error object for a message's error text. The reader gives an error as `Name: message`,
 * so such a text is split back into its name and message (else each copy through OpenCode would
 * prefix the name once more); any other text is an UnknownError, as OpenCode names what it cannot
 * classify.
 */
function errorOf(text: string): { name: string; data: { message: string } } {
  const named = /^([A-Za-z]*Error): ([\s\S]*)$/.exec(text);
  return named?.[1] && named[2] !== undefined
    ? { name: named[1], data: { message: named[2] } }
    : { name: 'UnknownError', data: { message: text } };
}
