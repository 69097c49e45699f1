/**
 * OpenCode session data (`{info, messages: [{info, parts}]}`) → the threadbase model.
 *
 * Each OpenCode message becomes entries in a linear chain: a user message one entry; an
 * assistant message one assistant entry per step (a step opens at a `step-start` part) followed by
 * a 'tool' entry holding the results of that step's tool parts. The parts are mapped as OpenCode
 * itself sends them to the model on resume (MessageV2.toModelMessages): ignored text and
 * text/plain or directory files left out, a compaction part as "What did we do so far?", a
 * subtask part as "The following tool was executed by the user", unfinished tools as
 * "[Tool execution was interrupted]", compacted tool output as "[Old tool result content
 * cleared]". A finished compaction (a user message with a compaction part answered by an
 * assistant `summary` message) becomes one compaction entry. The whole OpenCode message is kept in
 * the `raw` of its first entry.
 */

import { providerCallOf } from '../../convert/provider-tools.js';
import { messageText } from '../../model/tree.js';
import {
  addUsage,
  type Entry,
  emptyUsage,
  type FilePart,
  type Message,
  type MessageEntry,
  type ParseWarning,
  type Part,
  type Session,
  type SourceName,
  type ToolResultContent,
  type ToolResultPart,
  type Usage,
} from '../../model/types.js';
import { summarizeUsage } from '../../model/usage.js';
import { keptAssistantImage } from '../shared/assistant-images.js';
import { branchSummaryOf } from '../shared/branch-summary.js';
import { readUsageExtras } from '../shared/usage-extras.js';
import { writtenByOf } from '../shared/written-by.js';
import { opencodeDeclinedMark } from './denials.js';
import { isJson, isoOf, type Json, num, type OcMessage, type OcSessionData, obj, SOURCE, str, updatedTimeOf } from './records.js';

export const COMPACTION_PROMPT = 'What did we do so far?';
export const SUBTASK_PROMPT = 'The following tool was executed by the user';
export const INTERRUPTED_TOOL = '[Tool execution was interrupted]';
export const CLEARED_TOOL_OUTPUT = '[Old tool result content cleared]';

const KNOWN_PARTS = new Set([
  'text',
  'reasoning',
  'tool',
  'file',
  'step-start',
  'step-finish',
  'snapshot',
  'patch',
  'agent',
  'subtask',
  'retry',
  'compaction',
]);

/** What the `raw` of an OpenCode entry holds: the whole message on its first entry, else a pointer. */
export interface OcEntryRaw {
  messageID: string;
  /** ids of the parts this entry was made from */
  partIDs: string[];
  /** the whole message, on the first entry made from it */
  message?: OcMessage;
  /** a finished compaction's summary message (on compaction entries) */
  summaryMessage?: OcMessage;
}

export function isOcEntryRaw(v: unknown): v is OcEntryRaw {
  return isJson(v) && typeof v.messageID === 'string' && Array.isArray(v.partIDs);
}

/**
 * OpenCode's tokens in the model's terms: its output leaves the reasoning tokens out (its own stats add
 * them back), the model's output counts them.
 */
export function usageOf(tokens: unknown): Usage | undefined {
  const t = obj(tokens);
  if (!t) return undefined;
  const cache = obj(t.cache);
  // what threadbase wrote from another agent's record in a field OpenCode ignores (encode.ts tokensOf)
  const extras = readUsageExtras(t.threadbase, { reasoning: false });
  return {
    input: num(t.input) ?? 0,
    output: (num(t.output) ?? 0) + (num(t.reasoning) ?? 0),
    cacheRead: num(cache?.read) ?? 0,
    cacheWrite: num(cache?.write) ?? 0,
    reasoning: num(t.reasoning) ?? 0,
    ...extras,
  };
}

/** `data:<mime>;base64,<data>` split into its parts. */
export function parseDataUrl(url: string): { mediaType?: string; data: string } | undefined {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  if (!m) return undefined;
  const data = m[2] ? (m[3] ?? '') : Buffer.from(decodeURIComponent(m[3] ?? ''), 'utf8').toString('base64');
  return { mediaType: m[1] || undefined, data };
}

function fileToPart(mime: string, url: string, filename: string | undefined, detail?: string): Part {
  const inline = parseDataUrl(url);
  const meta = filename || detail ? { ...(filename ? { filename } : {}), ...(detail ? { detail } : {}) } : undefined;
  if (mime.startsWith('image/')) {
    return inline
      ? { type: 'image', mediaType: mime, data: inline.data, ...(meta ? { meta } : {}) }
      : { type: 'image', mediaType: mime, url, ...(meta ? { meta } : {}) };
  }
  return inline
    ? { type: 'file', mediaType: mime, data: inline.data, ...(filename ? { name: filename } : {}) }
    : { type: 'file', mediaType: mime, url, ...(filename ? { name: filename } : {}) };
}

function errorText(err: unknown): string | undefined {
  const e = obj(err);
  if (!e) return typeof err === 'string' ? err : undefined;
  const data = obj(e.data);
  const message = str(data?.message) ?? str(e.message);
  const name = str(e.name);
  return [name, message].filter(Boolean).join(': ') || JSON.stringify(err);
}

/** Whether OpenCode leaves an assistant message out of the context (failed, unless aborted with content). */
export function assistantSkippedInContext(m: OcMessage): boolean {
  const err = obj(m.info.error);
  if (!err) return false;
  const aborted = err.name === 'MessageAbortedError';
  return !(aborted && m.parts.some((p) => p.type !== 'step-start' && p.type !== 'reasoning'));
}

/** The synthetic text OpenCode records before a plain-text file's text (SessionPrompt, a `data:` file). */
export const READ_TOOL_INPUT = 'Called the Read tool with the following input: ';

/** What OpenCode says of a plain-text file it read for the prompt (JSON.stringify leaves an unnamed file's path out). */
export function readToolNote(name: string | undefined): string {
  return `${READ_TOOL_INPUT}${JSON.stringify({ filePath: name })}`;
}

/** A file's text where it is plain text: its text, or its base64 data of type text/plain that is UTF-8. */
export function plainTextOf(p: FilePart): string | undefined {
  if (p.text !== undefined) return p.data === undefined && p.url === undefined ? p.text : undefined;
  if (p.data === undefined || p.mediaType !== 'text/plain') return undefined;
  const text = Buffer.from(p.data, 'base64').toString('utf8');
  return Buffer.from(text, 'utf8').toString('base64') === p.data ? text : undefined;
}

/**
 * The plain-text file at `parts[i]` as OpenCode records one the user attached inline (a synthetic
 * "Called the Read tool" text naming it, a synthetic text of its text, its `data:` text/plain file part;
 * encode.ts textFileParts): the file, with what threadbase kept beside it.
 */
function attachedTextFile(parts: readonly Json[], i: number): FilePart | undefined {
  const [note, body, file] = [parts[i], parts[i + 1], parts[i + 2]];
  if (note?.type !== 'text' || note.synthetic !== true || body?.type !== 'text' || body.synthetic !== true) return undefined;
  if (file?.type !== 'file' || file.mime !== 'text/plain') return undefined;
  const text = str(body.text);
  const name = str(file.filename);
  if (text === undefined || note.text !== readToolNote(name)) return undefined;
  const inline = parseDataUrl(str(file.url) ?? '');
  if (!inline || Buffer.from(inline.data, 'base64').toString('utf8') !== text) return undefined;
  const kept = obj(file.threadbase) ?? {};
  const mediaType = str(kept.mediaType) ?? 'text/plain';
  return {
    type: 'file',
    mediaType,
    ...(kept.base64 === true ? { data: Buffer.from(text, 'utf8').toString('base64') } : { text }),
    ...(name !== undefined ? { name } : {}),
    ...(obj(kept.meta) ? { meta: obj(kept.meta) } : {}),
  };
}

function userParts(parts: readonly Json[]): Part[] {
  const out: Part[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as Json;
    const textFile = attachedTextFile(parts, i);
    if (textFile) {
      out.push(textFile);
      i += 2;
    } else if (p.type === 'text' && p.ignored !== true && typeof p.text === 'string' && p.text !== '') {
      out.push({ type: 'text', text: p.text, ...(p.synthetic === true ? { meta: { synthetic: true } } : {}) });
    } else if (p.type === 'file') {
      const mime = str(p.mime) ?? 'application/octet-stream';
      // OpenCode already turned text files and directories into synthetic text parts.
      if (mime !== 'text/plain' && mime !== 'application/x-directory')
        out.push(fileToPart(mime, str(p.url) ?? '', str(p.filename), str(obj(p.threadbase)?.detail)));
    } else if (p.type === 'compaction') out.push({ type: 'text', text: COMPACTION_PROMPT, meta: { compactionRequest: true } });
    else if (p.type === 'subtask') out.push({ type: 'text', text: SUBTASK_PROMPT, meta: { subtask: p } });
  }
  return out;
}

/**
 * A result's content as it came, where threadbase kept its order and bounds beside the tool part
 * (encode.ts: texts and plain-text files joined into the output, then the attachments): undefined when
 * there is none or it does not fit the output and attachments.
 */
function resultLayout(p: Json, output: string, files: ToolResultContent[]): ToolResultContent[] | undefined {
  const layout = obj(p.threadbase)?.resultContent;
  if (!Array.isArray(layout) || !layout.every(isJson)) return undefined;
  const content: ToolResultContent[] = [];
  let at = 0;
  let texts = 0;
  for (const x of layout) {
    const k = num(x.attachment);
    const length = num(x.text);
    if (k !== undefined) {
      const file = files[k];
      if (!file) return undefined;
      content.push(file);
      continue;
    }
    if (length === undefined) return undefined;
    if (texts++ > 0) {
      if (output[at] !== '\n') return undefined;
      at++;
    }
    const text = output.slice(at, at + length);
    if (text.length !== length) return undefined;
    at += length;
    const file = obj(x.file);
    if (!file) {
      content.push({ type: 'text', text });
      continue;
    }
    const fileName = str(file.name);
    content.push({
      type: 'file',
      mediaType: str(file.mediaType) ?? 'text/plain',
      ...(file.base64 === true ? { data: Buffer.from(text, 'utf8').toString('base64') } : { text }),
      ...(fileName !== undefined ? { name: fileName } : {}),
      ...(obj(file.meta) ? { meta: obj(file.meta) } : {}),
    });
  }
  const used = layout.filter((x) => x.attachment !== undefined).length;
  return at === output.length && content.length === layout.length && used === files.length ? content : undefined;
}

/**
 * A message as OpenCode sends it (MessageV2.toModelMessages) where its parts differ from the model's: a
 * plain-text file in a prompt as the two texts OpenCode recorded for it (the file part itself is not
 * sent), a tool result as its output (its texts and plain-text files joined) then its attachments. For
 * the context (context.ts).
 */
export function asOpenCodeSends(m: Message): Message {
  if (m.role === 'assistant' || m.role === 'system') return m;
  if (!m.parts.some((p) => (p.type === 'file' && plainTextOf(p) !== undefined) || p.type === 'tool_result')) return m;
  const parts = m.parts.flatMap((p): Part[] => {
    const text = p.type === 'file' ? plainTextOf(p) : undefined;
    if (p.type === 'file' && text !== undefined)
      // (an empty text part is not sent)
      return [
        { type: 'text', text: readToolNote(p.name), meta: { synthetic: true } },
        ...(text !== '' ? [{ type: 'text' as const, text, meta: { synthetic: true } }] : []),
      ];
    if (p.type !== 'tool_result' || typeof p.content === 'string') return [p];
    const texts: string[] = [];
    const media: ToolResultContent[] = [];
    for (const c of p.content) {
      const fileText = c.type === 'file' ? plainTextOf(c) : undefined;
      if (c.type === 'text') texts.push(c.text);
      else if (fileText !== undefined) texts.push(fileText);
      else media.push(c);
    }
    const output = texts.join('\n');
    if (media.length === 0) return [{ ...p, content: output }];
    return [{ ...p, content: [...(output ? [{ type: 'text' as const, text: output }] : []), ...media] }];
  });
  return { ...m, parts };
}

function toolResultOf(p: Json, callId: string, name: string): ToolResultPart {
  const state = obj(p.state) ?? {};
  const status = str(state.status);
  const meta: Json = {
    status,
    ...(obj(state.time) ? { time: state.time } : {}),
    ...(state.title !== undefined ? { title: state.title } : {}),
  };
  if (obj(state.metadata)) meta.metadata = state.metadata;
  if (status === 'completed') {
    const compacted = num(obj(state.time)?.compacted) !== undefined;
    const text = compacted ? CLEARED_TOOL_OUTPUT : (str(state.output) ?? '');
    const attachments = compacted || !Array.isArray(state.attachments) ? [] : state.attachments.filter(isJson);
    const files = attachments.flatMap((a) => {
      const part = fileToPart(str(a.mime) ?? 'application/octet-stream', str(a.url) ?? '', str(a.filename));
      return part.type === 'image' || part.type === 'file' ? [part] : [];
    });
    const laidOut = compacted ? undefined : resultLayout(p, text, files);
    if (laidOut) return { type: 'tool_result', callId, name, content: laidOut, meta };
    if (attachments.length === 0) return { type: 'tool_result', callId, name, content: text, meta };
    const content: ToolResultContent[] = text ? [{ type: 'text', text }] : [];
    content.push(...files);
    return { type: 'tool_result', callId, name, content, meta };
  }
  if (status === 'error') {
    const md = obj(state.metadata);
    // refused by the user or a rule, or aborted: marked (denials.ts, CONVERT.md)
    const mark = opencodeDeclinedMark(str(state.error) ?? '', md?.interrupted === true);
    if (mark) meta[mark] = true;
    if (md?.interrupted === true && typeof md.output === 'string')
      return { type: 'tool_result', callId, name, content: md.output, meta };
    return { type: 'tool_result', callId, name, content: str(state.error) ?? '', isError: true, meta };
  }
  return { type: 'tool_result', callId, name, content: INTERRUPTED_TOOL, isError: true, meta };
}

/**
 * A part's provider metadata (OpenAI item ids, Gemini thought signatures), which OpenCode sends back
 * to the same model; Anthropic's is read into the part itself.
 */
function otherProviderMetadata(p: Json): { providerMetadata?: Json } {
  const metadata = obj(p.metadata);
  if (!metadata || Object.keys(metadata).every((k) => k === 'anthropic')) return {};
  return { providerMetadata: metadata };
}

/**
 * The summary parts of a reasoning item threadbase wrote as one part of all their text (encode.ts
 * reasoningParts), kept beside it: the item's parts again (meta.summaryParts, as the Codex reader keeps them).
 */
function keptSummaryParts(p: Json): { summaryParts?: string[] } {
  const parts = obj(p.threadbase)?.summaryParts;
  if (!Array.isArray(parts) || !parts.every((x): x is string => typeof x === 'string')) return {};
  return parts.length >= 2 && parts.join('\n\n') === (str(p.text) ?? '') ? { summaryParts: parts } : {};
}

interface Step {
  id: string;
  parts: Json[];
}

/** Assistant parts split into steps at each step-start (parts before the first one form a step too). */
function stepsOf(m: OcMessage, messageId: string): Step[] {
  const steps: Step[] = [];
  let cur: Step | undefined;
  for (const p of m.parts) {
    if (p.type === 'step-start' || !cur) {
      cur = { id: steps.length === 0 ? messageId : (str(p.id) ?? `${messageId}#${steps.length}`), parts: [] };
      steps.push(cur);
    }
    cur.parts.push(p);
  }
  return steps;
}

/**
 * One step's messages. `messageParts`: the parts of its message OpenCode sends (all, but where a revert
 * cut the message), of which any signed reasoning makes an empty text a single space in every step.
 */
function stepMessages(
  m: OcMessage,
  step: Step,
  info: Json,
  messageParts: readonly Json[] = m.parts,
): { assistant: Message; tool?: Message } {
  const parts: Part[] = [];
  const results: ToolResultPart[] = [];
  let usage: Usage | undefined;
  let cost: number | undefined;
  let stopReason: string | undefined;
  const hasSignedReasoning = messageParts.some(
    (p) => p.type === 'reasoning' && obj(obj(p.metadata)?.anthropic)?.signature != null,
  );
  for (const p of step.parts) {
    const call =
      p.type === 'text'
        ? providerCallOf({ type: 'text', text: '', meta: { providerCall: obj(p.threadbase)?.providerCall } })
        : undefined;
    const image = p.type === 'text' ? keptAssistantImage(p.threadbase) : undefined;
    if (call)
      parts.push(call); // the note threadbase wrote for a call the provider ran (encode.ts)
    else if (image)
      parts.push(image); // the note threadbase wrote for an image the assistant made (encode.ts)
    else if (p.type === 'text' && obj(p.threadbase)?.thinking === true)
      // thinking threadbase wrote as text, which OpenCode sends as such (encode.ts thinkingAsText; context.ts)
      parts.push({ type: 'thinking', thinking: str(p.text) ?? '', meta: { sentAsText: true } });
    else if (p.type === 'text') {
      const text = str(p.text) ?? '';
      // OpenCode sends an empty text as a single space when its message (any step) holds signed reasoning.
      parts.push({
        type: 'text',
        text: text === '' && hasSignedReasoning ? ' ' : text,
        ...(obj(p.metadata) ? { meta: { providerMetadata: p.metadata } } : {}),
      });
    } else if (p.type === 'reasoning') {
      const anthropic = obj(obj(p.metadata)?.anthropic);
      const redacted = str(anthropic?.redactedData);
      // OpenAI's encrypted reasoning goes where the Codex reader puts it, so Codex can replay it
      const encrypted = str(obj(obj(p.metadata)?.openai)?.reasoningEncryptedContent);
      const meta = {
        ...otherProviderMetadata(p),
        ...(encrypted !== undefined ? { encryptedContent: encrypted } : {}),
        ...keptSummaryParts(p),
      };
      if (redacted !== undefined) parts.push({ type: 'redacted_thinking', data: redacted });
      else
        parts.push({
          type: 'thinking',
          thinking: str(p.text) ?? '',
          ...(str(anthropic?.signature) !== undefined ? { signature: str(anthropic?.signature) } : {}),
          ...(Object.keys(meta).length ? { meta } : {}),
        });
    } else if (p.type === 'tool') {
      const state = obj(p.state) ?? {};
      // the call's own id, where threadbase wrote it with a new one (encode.ts: an earlier call had it)
      const callId = str(obj(p.threadbase)?.callID) ?? str(p.callID) ?? str(p.id) ?? '';
      const name = str(p.tool) ?? 'unknown';
      const meta = otherProviderMetadata(p);
      parts.push({
        type: 'tool_call',
        id: callId,
        name,
        input: obj(state.input) ?? {},
        ...(meta.providerMetadata ? { meta } : {}),
      });
      results.push(toolResultOf(p, callId, name));
    } else if (p.type === 'step-finish') {
      usage = usageOf(p.tokens);
      cost = num(p.cost);
      stopReason = str(p.reason);
    }
  }
  const assistant: Message = {
    role: 'assistant',
    parts,
    model: str(info.modelID),
    provider: str(info.providerID),
    api: 'opencode',
    ...(usage ? { usage } : {}),
    ...(cost !== undefined ? { cost } : {}),
    ...(stopReason ? { stopReason } : {}),
  };
  const err = errorText(info.error);
  if (err) assistant.error = err;
  if (assistantSkippedInContext(m)) assistant.meta = { excludedFromContext: true };
  return { assistant, ...(results.length ? { tool: { role: 'tool', parts: resultsInOrder(step, results) } } : {}) };
}

/**
 * A step's results (in the order of its tool parts) in the order they came, where threadbase kept it
 * (encode.ts: another agent's results that came in another order than their calls), else as they are.
 * OpenCode sends them in the order of its calls (context.ts).
 */
function resultsInOrder(step: Step, results: ToolResultPart[]): ToolResultPart[] {
  const order = step.parts.filter((p) => p.type === 'tool').map((p) => num(obj(p.threadbase)?.resultOrder));
  if (order.length !== results.length || order.some((n) => n === undefined)) return results;
  return results
    .map((r, k) => ({ r, at: order[k] as number }))
    .sort((a, b) => a.at - b.at)
    .map(({ r }) => r);
}

/** Where each side part goes in the message's meta. */
const SIDE_RECORD_KEYS: Record<string, string> = { snapshot: 'snapshots', patch: 'patches', retry: 'retries', agent: 'agents' };

/** Side records of a message (snapshots, patches, retries, agent mentions, unknown parts), kept in meta. */
function sideRecords(m: OcMessage): Json | undefined {
  const out: Record<string, Json[]> = {};
  const add = (key: string, p: Json) => {
    const list = out[key] ?? [];
    list.push(p);
    out[key] = list;
  };
  for (const p of m.parts) {
    const t = str(p.type);
    const key = SIDE_RECORD_KEYS[t ?? ''];
    if (key) add(key, p);
    else if (!t || !KNOWN_PARTS.has(t)) add('unknownParts', p);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * A step cut where OpenCode reverts at a part (SessionRevert.cleanup removes the part and what
 * follows it in the message): its earlier parts as entries beside the step's own, `from`, so the
 * session resumes with them; none when no text or tool part comes before it.
 */
function keptBeforePart(m: OcMessage, partId: string, from: Entry): Entry[] {
  const messageId = str(m.info.id) ?? '';
  const step = stepsOf(m, messageId).find((s) => s.parts.some((p) => str(p.id) === partId));
  if (!step) return [];
  const before = step.parts.slice(
    0,
    step.parts.findIndex((p) => str(p.id) === partId),
  );
  if (!before.some((p) => p.type === 'text' || p.type === 'tool')) return [];
  // what the message keeps after the cut: its parts before the part
  const keptParts = m.parts.slice(
    0,
    m.parts.findIndex((p) => str(p.id) === partId),
  );
  const { assistant, tool } = stepMessages(m, { id: step.id, parts: before }, m.info, keptParts);
  const partIDs = before.map((p) => str(p.id) ?? '');
  const id = `${from.id}:before:${partId}`;
  const first = step.id === messageId;
  const out: Entry[] = [
    {
      id,
      parentId: from.parentId,
      timestamp: from.timestamp,
      kind: 'message',
      message: assistant,
      raw: (first ? { messageID: messageId, partIDs, message: m } : { messageID: messageId, partIDs }) satisfies OcEntryRaw,
      rawSource: SOURCE,
    },
  ];
  if (tool) {
    const toolIds = before.filter((p) => p.type === 'tool').map((p) => str(p.id) ?? '');
    out.push({
      id: `${id}:result`,
      parentId: id,
      timestamp: from.timestamp,
      kind: 'message',
      message: tool,
      raw: { messageID: messageId, partIDs: toolIds } satisfies OcEntryRaw,
      rawSource: SOURCE,
    });
  }
  return out;
}

/** A compaction summary message's parts as OpenCode sends it on resume (as any assistant message). */
export function summaryParts(summary: OcMessage): Part[] {
  return stepsOf(summary, str(summary.info.id) ?? '').flatMap(
    (step) => stepMessages(summary, step, summary.info).assistant.parts,
  );
}

/** The summary's text, for agents that take a compaction summary as text. */
function summaryText(m: OcMessage): string {
  return m.parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => (p.text as string).trim())
    .filter(Boolean)
    .join('\n')
    .trim();
}

/**
 * The request that wrote a compaction's summary, as OpenCode recorded it on the summary message (its
 * tokens and cost count in OpenCode's totals), none when it recorded none (zeros, as we write it); the
 * model whenever the message names one.
 */
function summaryRequest(summary: OcMessage): { usage?: Usage; cost?: number; model?: string } {
  const usage = usageOf(summary.info.tokens);
  const cost = num(summary.info.cost);
  // the model that wrote it, whether or not its request was recorded
  const model = str(summary.info.modelID);
  const named = model ? { model } : {};
  if (!(usage && Object.values(usage).some((v) => v > 0)) && !cost) return named;
  return { ...(usage ? { usage } : {}), ...(cost !== undefined ? { cost } : {}), ...named };
}

/**
 * The id of the request that wrote a compaction's summary (CompactionEntry.responseId): the one
 * threadbase kept on a copy (encode.ts, `threadbase.responseId`); else, for a summary OpenCode wrote
 * (no kept entry), one made of its times and tokens, as a reply's step gets: OpenCode's fork copies
 * the summary under new ids with the same times and tokens, so `stats` knows the copy by it. A
 * summary threadbase wrote of another agent's compaction (kept entry, no response id) gets none: its
 * original has none, and the kept entry id and time are its copy key.
 */
function summaryResponseId(summary: OcMessage, kept: boolean): string | undefined {
  const copied = str(obj(summary.info.threadbase)?.responseId);
  if (copied || kept) return copied;
  return madeResponseId(summary.info, usageOf(summary.info.tokens), 'summary');
}

/**
 * A response id made of a message's times and tokens (of its step `step`, or of its compaction summary):
 * OpenCode records none, and its fork copies a message under new ids with the same times and tokens, so
 * the copy is known for one (`stats` counts the response once); two responses of other sessions never
 * share them all.
 */
function madeResponseId(info: Record<string, unknown>, usage: Usage | undefined, step: number | 'summary'): string {
  const t = obj(info.time);
  const times = `${num(t?.created) ?? ''}:${num(t?.completed) ?? ''}`;
  const tokens = usage ? `${usage.input}/${usage.output}` : '';
  return step === 'summary' ? `opencode:summary:${times}:${tokens}` : `opencode:${times}:${step}:${tokens}`;
}

/** Whether an assistant message is the finished summary of a compaction. */
function isFinishedSummary(m: OcMessage): boolean {
  return m.info.role === 'assistant' && m.info.summary === true && m.info.finish != null && !m.info.error;
}

export interface ParseOptions {
  /** file (or database) the data came from, for warnings */
  file: string;
  warnings?: ParseWarning[];
  /** the source name of the agent that kept the data, when a fork of OpenCode (default 'opencode') */
  source?: SourceName;
  /** its name in warnings (default 'OpenCode') */
  label?: string;
}

/**
 * The entry id and time threadbase kept on a message it wrote or copied (encode.ts: `threadbase.entryId`,
 * `timestamp`), whose OpenCode ids are new in every copy; none when another entry has that id already.
 */
function keptEntryOf(
  info: Record<string, unknown>,
  usedIds: ReadonlySet<string>,
): { id: string; timestamp?: string } | undefined {
  const kept = obj(info.threadbase);
  const id = str(kept?.entryId);
  if (!id || usedIds.has(id)) return undefined;
  const timestamp = str(kept?.timestamp);
  return timestamp === undefined ? { id } : { id, timestamp };
}

/** OpenCode session data → a threadbase session. */
export function sessionFromOpencode(data: OcSessionData, opts: ParseOptions): Session {
  const warnings = opts.warnings ?? [];
  const label = opts.label ?? 'OpenCode';
  const info = data.info;
  const sessionId = str(info.id) ?? '';
  const messages = [...data.messages].sort((a, b) => {
    const ta = num(obj(a.info.time)?.created) ?? 0;
    const tb = num(obj(b.info.time)?.created) ?? 0;
    const ia = str(a.info.id) ?? '';
    const ib = str(b.info.id) ?? '';
    return ta !== tb ? ta - tb : ia < ib ? -1 : ia > ib ? 1 : 0;
  });

  // Finished compactions: the user message's id → its summary message.
  const summaries = new Map<string, OcMessage>();
  for (const m of messages) if (isFinishedSummary(m)) summaries.set(str(m.info.parentID) ?? '', m);
  const absorbed = new Set<OcMessage>();
  const firstEntryOf = new Map<string, string>();

  const entries: Entry[] = [];
  let prev: string | null = null;
  const usedIds = new Set<string>();
  const push = (e: Entry) => {
    entries.push(e);
    usedIds.add(e.id);
    prev = e.id;
  };
  const pendingTails: { entry: Entry & { kind: 'compaction' }; tail: string }[] = [];

  for (const m of messages) {
    if (absorbed.has(m)) continue;
    const id = str(m.info.id);
    if (!id) {
      warnings.push({ file: opts.file, message: 'message without an id skipped' });
      continue;
    }
    const created = isoOf(obj(m.info.time)?.created);
    for (const p of m.parts) {
      const t = str(p.type);
      if (!t || !KNOWN_PARTS.has(t))
        warnings.push({
          file: opts.file,
          id: str(p.id),
          message: `unknown ${label} part type ${JSON.stringify(p.type)} kept raw`,
        });
    }
    const side = sideRecords(m);
    const partIds = m.parts.map((p) => str(p.id) ?? '');
    firstEntryOf.set(id, id);

    if (m.info.role === 'user') {
      const compaction = m.parts.find((p) => p.type === 'compaction');
      const summary = summaries.get(id);
      if (compaction && summary) {
        absorbed.add(summary);
        // the compaction's entry id and time threadbase kept on the summary (encode.ts), as on a reply:
        // its message ids are new in every copy, so `stats` knows a copy by these
        const kept = keptEntryOf(summary.info, usedIds);
        if (kept) firstEntryOf.set(id, kept.id);
        const responseId = summaryResponseId(summary, kept !== undefined);
        const entry: Entry & { kind: 'compaction' } = {
          id: kept?.id ?? id,
          parentId: prev,
          timestamp: kept?.timestamp ?? created,
          kind: 'compaction' as const,
          summary: summaryText(summary),
          ...summaryRequest(summary),
          ...(responseId ? { responseId } : {}),
          raw: { messageID: id, partIDs: partIds, message: m, summaryMessage: summary } satisfies OcEntryRaw,
          rawSource: SOURCE,
        };
        const tail = str(compaction.tail_start_id);
        if (tail) pendingTails.push({ entry, tail });
        push(entry);
        continue;
      }
      const message: Message = { role: 'user', parts: userParts(m.parts) };
      // a branch summary threadbase wrote as a user message, the entry kept in its text part (encode.ts)
      const marked = m.parts.find((p) => p.type === 'text' && obj(p.threadbase)?.branchSummary !== undefined);
      const kept = marked ? branchSummaryOf(obj(marked.threadbase)?.branchSummary, messageText(message)) : undefined;
      if (kept) {
        push({
          id,
          parentId: prev,
          timestamp: created,
          kind: 'branch_summary',
          ...kept,
          raw: { messageID: id, partIDs: partIds, message: m } satisfies OcEntryRaw,
          rawSource: SOURCE,
        });
        continue;
      }
      const model = obj(m.info.model);
      if (model) {
        message.model = str(model.modelID);
        message.provider = str(model.providerID);
      }
      if (side) message.meta = side;
      push({
        id,
        parentId: prev,
        timestamp: created,
        kind: 'message',
        message,
        raw: { messageID: id, partIDs: partIds, message: m } satisfies OcEntryRaw,
        rawSource: SOURCE,
      });
      continue;
    }

    if (m.info.role !== 'assistant') {
      warnings.push({ file: opts.file, id, message: `unknown ${label} message role ${JSON.stringify(m.info.role)} kept raw` });
      push({
        id,
        parentId: prev,
        timestamp: created,
        kind: 'metadata',
        type: 'opencode-message',
        data: m,
        raw: { messageID: id, partIDs: partIds, message: m } satisfies OcEntryRaw,
        rawSource: SOURCE,
      });
      continue;
    }

    const steps = stepsOf(m, id);
    if (steps.length === 0) steps.push({ id, parts: [] });
    // the entry id and time threadbase kept of a reply it copied that had no response id (encode.ts):
    // the entry's, with no response id made up, so that `stats` knows the copy by them
    const kept = steps.length === 1 && !str(obj(m.info.threadbase)?.responseId) ? keptEntryOf(m.info, usedIds) : undefined;
    if (kept) firstEntryOf.set(id, kept.id);
    steps.forEach((step, i) => {
      const { assistant, tool } = stepMessages(m, step, m.info);
      if (i === 0) {
        const cost = num(m.info.cost);
        // A message recorded without step-finish parts still carries its totals on the info.
        if (!assistant.usage && steps.length === 1) {
          const u = usageOf(m.info.tokens);
          if (u) assistant.usage = u;
          if (cost !== undefined && assistant.cost === undefined) assistant.cost = cost;
        }
        // the id threadbase kept of a response it copied from another agent (encode.ts), on our one-step messages
        const copied = str(obj(m.info.threadbase)?.responseId);
        if (copied && steps.length === 1) assistant.responseId = copied;
        if (side) assistant.meta = { ...(assistant.meta ?? {}), ...side };
        if (m.info.summary === true) assistant.meta = { ...(assistant.meta ?? {}), summary: true };
      }
      // a step is one model response, of which OpenCode records no id
      if (!assistant.responseId && !kept) assistant.responseId = madeResponseId(m.info, assistant.usage, i);
      const stepPartIds = step.parts.map((p) => str(p.id) ?? '');
      const stepTime = num(obj(step.parts[0]?.time)?.start);
      push({
        id: kept?.id ?? step.id,
        parentId: prev,
        timestamp: kept?.timestamp ?? (stepTime !== undefined ? isoOf(stepTime) : created),
        kind: 'message',
        message: assistant,
        raw: (i === 0
          ? { messageID: id, partIDs: stepPartIds, message: m }
          : { messageID: id, partIDs: stepPartIds }) satisfies OcEntryRaw,
        rawSource: SOURCE,
      });
      if (tool) {
        const toolParts = step.parts.filter((p) => p.type === 'tool');
        const toolIds = toolParts.map((p) => str(p.id) ?? '');
        // The results are there when the last tool of the step ended; the message may complete much later.
        const ends = toolParts.flatMap((p) => num(obj(obj(p.state)?.time)?.end) ?? []);
        push({
          id: `${toolIds[0] ?? step.id}:result`,
          parentId: prev,
          timestamp: isoOf(ends.length ? Math.max(...ends) : (num(obj(m.info.time)?.completed) ?? obj(m.info.time)?.created)),
          kind: 'message',
          message: assistantSkippedInContext(m) ? { ...tool, meta: { excludedFromContext: true } } : tool,
          raw: { messageID: id, partIDs: toolIds } satisfies OcEntryRaw,
          rawSource: SOURCE,
        });
      }
    });
  }

  for (const { entry, tail } of pendingTails) {
    const first = firstEntryOf.get(tail);
    if (first) (entry as { firstKeptEntryId?: string }).firstKeptEntryId = first;
    else
      warnings.push({
        file: opts.file,
        id: entry.id,
        message: `compaction keeps messages from ${tail}, which is not in the session`,
      });
  }

  // A reverted session resumes before the revert point (OpenCode drops what follows on the next prompt).
  let leafId = entries[entries.length - 1]?.id ?? null;
  const revertFrom = str(obj(info.revert)?.messageID);
  if (revertFrom) {
    const revertPart = str(obj(info.revert)?.partID);
    const idx = entries.findIndex(
      (e) =>
        isOcEntryRaw(e.raw) &&
        e.raw.messageID === revertFrom &&
        (!revertPart || e.raw.partIDs.includes(revertPart) || e.raw.message !== undefined),
    );
    let cut = idx;
    let kept: Entry[] = [];
    if (idx >= 0 && revertPart) {
      // reverting from a part keeps that message's entries made only of earlier parts
      const at = entries.findIndex(
        (e, i) => i >= idx && isOcEntryRaw(e.raw) && e.raw.messageID === revertFrom && e.raw.partIDs.includes(revertPart),
      );
      if (at > idx) cut = at;
      const message = data.messages.find((m) => str(m.info.id) === revertFrom);
      const from = entries[at];
      if (message && from) kept = keptBeforePart(message, revertPart, from);
    }
    if (kept.length > 0) {
      entries.push(...kept);
      leafId = (kept.at(-1) as Entry).id;
    } else if (cut > 0) leafId = entries[cut - 1]?.id ?? leafId;
    else if (cut === 0)
      warnings.push({ file: opts.file, id: revertFrom, message: 'the whole session is reverted; resuming from its last entry' });
  }

  const time = obj(info.time) ?? {};
  const usageTotals = summarizeUsage(entries);
  const tokens = usageOf(info.tokens);
  const title = str(info.title);
  const session: Session = {
    id: sessionId,
    source: SOURCE,
    project: str(info.directory) ?? data.project?.worktree,
    ...(title !== undefined ? { title } : {}),
    createdAt: isoOf(time.created, entries[0]?.timestamp),
    updatedAt: isoOf(updatedTimeOf(info), entries[entries.length - 1]?.timestamp),
    // OpenCode's own count (message rows), the same number the listing reports.
    messageCount: data.messages.length,
    parentId: str(info.parentID) ?? null,
    ...(data.parentToolCallId ? { parentToolCallId: data.parentToolCallId } : {}),
    // a session threadbase wrote: its first message says so (encode.ts encodeSession)
    ...writtenByOf(obj(messages[0]?.info.threadbase)?.writtenBy),
    models: usageTotals.models,
    usage: tokens && Object.values(tokens).some((v) => v > 0) ? tokens : addUsage(emptyUsage(), usageTotals.usage),
    cost: num(info.cost) ?? usageTotals.cost,
    path: opts.file,
    entries,
    leafId,
    warnings,
    raw: { info, ...(data.project ? { project: data.project } : {}) },
    meta: {
      ...(data.project
        ? { projectID: data.project.id, worktree: data.project.worktree }
        : str(info.projectID)
          ? { projectID: info.projectID }
          : {}),
      ...(str(info.slug) ? { slug: info.slug } : {}),
      ...(str(info.version) ? { version: info.version } : {}),
      ...(info.revert !== undefined && info.revert !== null ? { revert: info.revert } : {}),
    },
  };
  // a fork's records are OpenCode's: only the names differ
  const source = opts.source ?? SOURCE;
  if (source !== SOURCE) {
    session.source = source;
    for (const e of entries) if (e.rawSource === SOURCE) e.rawSource = source;
  }
  return session;
}

/** The entries an OpenCode message produced, for mapping an entry id back to its message. */
export function messageIdOfEntry(e: Entry): string | undefined {
  return isOcEntryRaw(e.raw) ? e.raw.messageID : undefined;
}

export type { MessageEntry };
