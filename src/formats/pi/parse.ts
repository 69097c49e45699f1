/**
 * One pi session file → a threadbase Session. Streams the file; a damaged line, an unknown record
 * type, a missing parent or a parent cycle becomes a ParseWarning naming file and line, and the
 * rest still loads.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { providerCallOf } from '../../convert/provider-tools.js';
import { prefixOf } from '../../model/text.js';
import { countMessages, messageText, resultText } from '../../model/tree.js';
import type {
  Entry,
  ImagePart,
  Message,
  ParseWarning,
  Part,
  Session,
  TextPart,
  ThinkingPart,
  ToolCallPart,
  ToolResultContent,
  Usage,
} from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { keptAssistantImage } from '../shared/assistant-images.js';
import { jsonValueOf, readJsonl } from '../shared/jsonl.js';
import { cutParentCycles } from '../shared/parent-cycles.js';
import { readUsageExtras } from '../shared/usage-extras.js';
import { writtenByOf } from '../shared/written-by.js';
import { piDeclinedMark } from './denials.js';
import {
  bashExecutionText,
  branchSummaryText,
  compactionSummaryText,
  isHeader,
  isRecord,
  migrateRecords,
  num,
  PI_SESSION_VERSION,
  type PiHeader,
  type PiRecord,
  splitToolCallId,
  str,
  thinkingSignatureKind,
} from './records.js';

export const SOURCE = 'pi';

/**
 * The `customType` of the extension entry (`custom`, which pi does not send) another agent's system
 * message is written into; read back as that system message, so it goes on to an agent that has them.
 */
export const SYSTEM_CUSTOM_TYPE = 'threadbase:system';
/** The custom entry of a tool result that answers a call of a failed turn, which pi leaves out (encode.ts). */
export const FAILED_TURN_RESULT_CUSTOM_TYPE = 'threadbase:failed-turn-result';

/**
 * The custom entries threadbase writes a message pi must not send into (encode.ts), by the role of
 * the message each is read back as.
 */
const MESSAGE_CUSTOM_ROLES: ReadonlyMap<string, 'system' | 'tool'> = new Map([
  [SYSTEM_CUSTOM_TYPE, 'system'],
  [FAILED_TURN_RESULT_CUSTOM_TYPE, 'tool'],
]);

/** `<timestamp>_<uuid>.jsonl` → uuid */
export function idFromFileName(file: string): string | undefined {
  const m = /_([0-9a-fA-F-]{8,})\.jsonl$/.exec(basename(file));
  return m?.[1];
}

/**
 * The id of a session file whose header is missing or damaged: the uuid of its name, else the name
 * itself; listing, sync and `show` all go by it, so a listed session opens.
 */
export function idOfHeaderlessFile(file: string): string {
  return idFromFileName(file) ?? basename(file, '.jsonl');
}

/** `2026-01-01T10-00-00-000Z_<uuid>.jsonl` → 2026-01-01T10:00:00.000Z (pi names a file by its header's time). */
export function timeFromFileName(file: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_/.exec(basename(file));
  if (!m) return undefined;
  const time = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

function blocksToParts(content: unknown, where: Warn): (TextPart | ImagePart)[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: (TextPart | ImagePart)[] = [];
  for (const b of content) {
    if (!isRecord(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string')
      parts.push(withMeta({ type: 'text', text: b.text }, b, ['type', 'text']));
    else if (b.type === 'image') {
      parts.push(
        withMeta({ type: 'image', mediaType: str(b.mimeType) ?? 'application/octet-stream', data: str(b.data) ?? '' }, b, [
          'type',
          'mimeType',
          'data',
        ]),
      );
    } else where(`unknown content block type ${JSON.stringify(b.type)}`);
  }
  return parts;
}

/** Keeps the fields of a pi block the model has no slot for. */
function withMeta<T extends Part>(part: T, block: PiRecord, known: string[]): T {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(block)) if (!known.includes(k)) extra[k] = v;
  return Object.keys(extra).length ? { ...part, meta: extra } : part;
}

/**
 * A pi thinking block: only an Anthropic-style thinkingSignature is the model's `signature`. An
 * OpenAI reasoning item gives its encrypted content and id where the Codex reader puts them
 * (meta.encryptedContent, meta.codexItemId), with the rest of the item to write it back as it was;
 * a Gemini one is meta.thoughtSignature, as the Gemini reader keeps it; anything else stays as
 * pi's meta.thinkingSignature.
 */
function thinkingPart(b: PiRecord, api: string | undefined): ThinkingPart {
  const part = withMeta<ThinkingPart>({ type: 'thinking', thinking: str(b.thinking) ?? '' }, b, [
    'type',
    'thinking',
    'thinkingSignature',
    'redacted',
  ]);
  const sig = str(b.thinkingSignature);
  if (sig === undefined) return part;
  const meta: Record<string, unknown> = { ...part.meta };
  switch (thinkingSignatureKind(api)) {
    case 'signature':
      return { ...part, signature: sig };
    case 'google':
      meta.thoughtSignature = sig;
      break;
    case 'responses': {
      const item = parseJsonObject(sig);
      if (!item) {
        meta.thinkingSignature = sig;
        break;
      }
      if (typeof item.encrypted_content === 'string') {
        meta.encryptedContent = item.encrypted_content;
        // its place kept, its value once (in encryptedContent)
        item.encrypted_content = null;
      }
      if (typeof item.id === 'string') meta.codexItemId = item.id;
      const texts = (v: unknown) => (Array.isArray(v) ? v.filter(isRecord).map((x) => str(x.text) ?? '') : []);
      // as the Codex reader keeps a reasoning item's parts
      if (texts(item.summary).length > 1) meta.summaryParts = texts(item.summary);
      if (texts(item.content).length) meta.reasoningContent = texts(item.content);
      meta.piReasoningItem = item;
      break;
    }
    default:
      meta.thinkingSignature = sig;
  }
  return { ...part, meta };
}

function parseJsonObject(text: string): PiRecord | undefined {
  const v = jsonValueOf(text);
  return isRecord(v) ? v : undefined;
}

function assistantParts(content: unknown, where: Warn, api: string | undefined): Part[] {
  if (!Array.isArray(content)) return typeof content === 'string' ? [{ type: 'text', text: content }] : [];
  const parts: Part[] = [];
  for (const b of content) {
    if (!isRecord(b)) continue;
    switch (b.type) {
      case 'text': {
        const text = withMeta<Part>({ type: 'text', text: str(b.text) ?? '' }, b, ['type', 'text']);
        // the note threadbase wrote for a call the provider ran (encode.ts): the call again
        const call = isRecord(b.threadbase) ? providerCallOf({ type: 'text', text: '', meta: b.threadbase }) : undefined;
        // the note threadbase wrote for an image the assistant made (encode.ts): the image again
        const image = keptAssistantImage(b.threadbase);
        parts.push(call ?? image ?? text);
        break;
      }
      case 'thinking':
        if (b.redacted === true) parts.push({ type: 'redacted_thinking', data: str(b.thinkingSignature) ?? '' });
        else parts.push(thinkingPart(b, api));
        break;
      case 'toolCall': {
        const split = splitToolCallId(str(b.id) ?? '');
        const itemId = split.itemId;
        // the call's own id, where threadbase wrote it with a new one (encode.ts: an earlier call had it)
        const kept = isRecord(b.threadbase) ? str(b.threadbase.id) : undefined;
        const callId = kept ?? split.callId;
        const part = withMeta<ToolCallPart>(
          { type: 'tool_call', id: callId, name: str(b.name) ?? '', input: isRecord(b.arguments) ? b.arguments : {} },
          b,
          ['type', 'id', 'name', 'arguments', ...(kept !== undefined ? ['threadbase'] : [])],
        );
        parts.push(itemId !== undefined ? { ...part, meta: { ...part.meta, piItemId: itemId } } : part);
        break;
      }
      case 'image':
        parts.push({ type: 'image', mediaType: str(b.mimeType) ?? 'application/octet-stream', data: str(b.data) ?? '' });
        break;
      default:
        where(`unknown assistant content block type ${JSON.stringify(b.type)}`);
    }
  }
  return parts;
}

function usageOf(u: unknown): { usage?: Usage; cost?: number } {
  if (!isRecord(u)) return {};
  const cost = isRecord(u.cost) ? num(u.cost.total) : undefined;
  // what threadbase wrote from another agent's record in a field pi ignores (records.ts PiUsage)
  const { reasoning, ...extras } = readUsageExtras(u.threadbase, { reasoning: true });
  return {
    usage: {
      input: num(u.input) ?? 0,
      output: num(u.output) ?? 0,
      cacheRead: num(u.cacheRead) ?? 0,
      cacheWrite: num(u.cacheWrite) ?? 0,
      reasoning: reasoning ?? 0,
      ...extras,
    },
    ...(cost !== undefined ? { cost } : {}),
  };
}

type Warn = (message: string) => void;

/** The model message of a pi message record, or undefined when pi leaves it out of the context. */
export function messageFromPi(m: PiRecord, warn: Warn): Message | undefined {
  const role = m.role;
  switch (role) {
    case 'user':
      return { role: 'user', parts: blocksToParts(m.content, warn) };
    case 'assistant': {
      const { usage, cost } = usageOf(m.usage);
      const msg: Message = { role: 'assistant', parts: assistantParts(m.content, warn, str(m.api)) };
      if (str(m.model)) msg.model = str(m.model);
      if (str(m.provider)) msg.provider = str(m.provider);
      if (str(m.api)) msg.api = str(m.api);
      if (usage) msg.usage = usage;
      if (cost !== undefined) msg.cost = cost;
      if (str(m.stopReason)) msg.stopReason = str(m.stopReason);
      if (str(m.errorMessage)) msg.error = str(m.errorMessage);
      if (str(m.responseId)) msg.responseId = str(m.responseId);
      return msg;
    }
    case 'toolResult': {
      const content: ToolResultContent[] = blocksToParts(m.content, warn);
      // refused (blocked) or aborted, by its words (denials.ts)
      const mark = m.isError === true ? piDeclinedMark(resultText(content)) : undefined;
      const split = splitToolCallId(str(m.toolCallId) ?? '');
      const itemId = split.itemId;
      // the id of the call it answers, where threadbase wrote that call with a new one (encode.ts)
      const callId = (isRecord(m.threadbase) ? str(m.threadbase.toolCallId) : undefined) ?? split.callId;
      return {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId,
            ...(str(m.toolName) ? { name: str(m.toolName) } : {}),
            content,
            isError: m.isError === true,
            ...(itemId !== undefined || mark
              ? { meta: { ...(itemId !== undefined ? { piItemId: itemId } : {}), ...(mark ? { [mark]: true } : {}) } }
              : {}),
          },
        ],
        ...(m.details !== undefined ? { meta: { details: m.details } } : {}),
      };
    }
    case 'bashExecution': {
      if (m.excludeFromContext === true) return undefined;
      const text = bashExecutionText({
        command: str(m.command) ?? '',
        output: str(m.output),
        exitCode: num(m.exitCode),
        cancelled: m.cancelled === true,
        truncated: m.truncated === true,
        fullOutputPath: str(m.fullOutputPath),
      });
      return { role: 'user', parts: [{ type: 'text', text }], meta: { piRole: 'bashExecution' } };
    }
    case 'custom':
      return {
        role: 'user',
        parts: blocksToParts(m.content, warn),
        meta: { piRole: 'custom', customType: m.customType, display: m.display },
      };
    case 'branchSummary':
      return {
        role: 'user',
        parts: [{ type: 'text', text: branchSummaryText(str(m.summary) ?? '') }],
        meta: { piRole: 'branchSummary' },
      };
    case 'compactionSummary':
      return {
        role: 'user',
        parts: [{ type: 'text', text: compactionSummaryText(str(m.summary) ?? '') }],
        meta: { piRole: 'compactionSummary' },
      };
    default:
      return undefined;
  }
}

const KNOWN_ROLES = new Set(['user', 'assistant', 'toolResult', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary']);

function isoTime(v: unknown, fallback: string): string {
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return v;
  // Past ±8.64e15 ms a Date is invalid and toISOString throws: such a time is damage, not a time.
  if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15) return new Date(v).toISOString();
  return fallback;
}

/**
 * The model's fromId (the abandoned branch's leaf) of a pi branch_summary record: the one threadbase keeps
 * beside pi's own (encode.ts), else pi's fromId where it is not the branch point pi writes there.
 */
function abandonedLeafOf(r: PiRecord, parentId: string | null): { fromId?: string } {
  const kept = isRecord(r.threadbase) ? str(r.threadbase.fromId) : undefined;
  if (kept !== undefined) return { fromId: kept };
  const own = str(r.fromId);
  return own !== undefined && own !== (parentId ?? 'root') ? { fromId: own } : {};
}

/** One record (already migrated to v3) → one entry. */
export function entryFromRecord(r: PiRecord, warn: Warn): Entry {
  const id = str(r.id) ?? '';
  const parentId = typeof r.parentId === 'string' ? r.parentId : null;
  const timestamp = isoTime(r.timestamp, new Date(0).toISOString());
  const base = { id, parentId, timestamp, raw: r, rawSource: SOURCE };
  switch (r.type) {
    case 'message': {
      if (!isRecord(r.message)) {
        warn('message record without a message');
        return { ...base, kind: 'metadata', type: 'message' };
      }
      const role = r.message.role;
      if (!KNOWN_ROLES.has(String(role))) warn(`unknown message role ${JSON.stringify(role)}; kept raw`);
      const message = messageFromPi(r.message, warn);
      // Left out of the model's context by pi (unknown role, `!!` commands): kept, but not a message.
      if (!message) return { ...base, kind: 'metadata', type: `message:${String(role)}`, data: r.message };
      return { ...base, kind: 'message', message };
    }
    case 'model_change':
      return { ...base, kind: 'model_change', model: str(r.modelId), provider: str(r.provider) };
    case 'thinking_level_change':
      return { ...base, kind: 'model_change', thinkingLevel: str(r.thinkingLevel) };
    case 'compaction':
      return {
        ...base,
        kind: 'compaction',
        summary: str(r.summary) ?? '',
        ...(str(r.firstKeptEntryId) !== undefined ? { firstKeptEntryId: str(r.firstKeptEntryId) } : {}),
        ...(num(r.tokensBefore) !== undefined ? { tokensBefore: num(r.tokensBefore) } : {}),
      };
    case 'branch_summary':
      // pi leaves an empty summary out of the context; it only moved the leaf.
      if (!str(r.summary)) return { ...base, kind: 'metadata', type: 'branch_summary', data: { fromId: r.fromId } };
      return {
        ...base,
        kind: 'branch_summary',
        summary: str(r.summary) ?? '',
        // pi's fromId is the branch point (the parent, or "root"); the abandoned leaf the model's fromId
        // means is the one threadbase keeps beside it (encode.ts), else another value than the branch point
        // (written by threadbase before, or as pi's session-format doc shows it)
        ...abandonedLeafOf(r, parentId),
        // an extension's data and mark (branchWithSummary's details, fromHook), carried through other agents
        ...(r.details !== undefined ? { details: r.details } : {}),
        ...(typeof r.fromHook === 'boolean' ? { fromHook: r.fromHook } : {}),
      };
    case 'custom_message':
      return {
        ...base,
        kind: 'message',
        message: {
          role: 'user',
          parts: blocksToParts(r.content, warn),
          meta: { piType: 'custom_message', customType: r.customType, display: r.display },
        },
      };
    case 'custom': {
      const role = typeof r.customType === 'string' ? MESSAGE_CUSTOM_ROLES.get(r.customType) : undefined;
      if (role && isRecord(r.data) && Array.isArray(r.data.parts))
        return {
          ...base,
          kind: 'message',
          message: {
            role,
            parts: r.data.parts as Part[],
            meta: { ...(isRecord(r.data.meta) ? r.data.meta : {}), piType: 'custom', customType: r.customType },
          },
        };
      return { ...base, kind: 'metadata', type: 'custom', data: { customType: r.customType, data: r.data } };
    }
    case 'label':
      return { ...base, kind: 'label', targetId: str(r.targetId) ?? '', ...(str(r.label) ? { label: str(r.label) } : {}) };
    case 'session_info':
      return { ...base, kind: 'metadata', type: 'session_info', data: { name: r.name } };
    default:
      warn(`unknown entry type ${JSON.stringify(r.type)}; kept raw`);
      return { ...base, kind: 'metadata', type: String(r.type) };
  }
}

/**
 * Breaks parent cycles (pi itself would loop forever on one): the entry that closes a cycle, the
 * later one in file order, becomes a root. Reports missing parents. Mutates `entries`.
 */
function checkTree(
  entries: Entry[],
  lineOf: Map<string, number>,
  file: string,
  warnings: ParseWarning[],
  continuation = false,
): void {
  cutParentCycles(entries, { file, lineOf, warnings, link: 'parentId' }, (child) => {
    // Reading on from an offset, parents before it are in the earlier entries (the index checks them).
    if (continuation) return;
    warnings.push({
      file,
      line: lineOf.get(child.id),
      id: child.id,
      message: `parent ${child.parentId} not found; entry treated as a root`,
    });
  });
}

export interface ParsedPiFile {
  session: Session;
  header?: PiHeader;
  /** Where the next read continues: just after the last whole line (a torn last line is read again). */
  end: { offset: number; line: number };
}

export interface PiReadOptions {
  /** Continue from this byte (the start of a line) and line number, in a file of this version. */
  start?: number;
  startLine?: number;
  version?: number;
}

/** Reads one pi session file into a Session (entries in file order, leaf = last entry, as pi does). */
/** A session's title when no session_info names it: its first user message, on one line, cut to 100. */
export function firstUserTitle(entries: readonly Entry[]): string | undefined {
  const first = entries.find((e) => e.kind === 'message' && e.message.role === 'user' && !e.message.meta);
  const t = first?.kind === 'message' ? prefixOf(messageText(first.message).replace(/\s+/g, ' ').trim(), 100) : '';
  return t || undefined;
}

export async function parsePiFile(file: string, opts: PiReadOptions = {}): Promise<ParsedPiFile> {
  const continuation = opts.start !== undefined && opts.start > 0;
  const warnings: ParseWarning[] = [];
  let header: PiHeader | undefined;
  const records: { record: PiRecord; line: number }[] = [];
  let first = !continuation;
  let end = { offset: opts.start ?? 0, line: opts.startLine ?? 1 };
  for await (const l of readJsonl(file, { start: opts.start ?? 0, startLine: opts.startLine ?? 1 })) {
    // A torn last line may still be being written: the next read starts at it again.
    if (l.partial && l.error) end = { offset: l.offset, line: l.line };
    else end = l.partial ? { offset: l.end, line: l.line } : { offset: l.end, line: l.line + 1 };
    if (l.error) {
      warnings.push({ file, line: l.line, message: l.error });
      continue;
    }
    const v = l.value;
    if (first && isHeader(v)) {
      header = v;
      first = false;
      continue;
    }
    first = false;
    if (!isRecord(v)) {
      warnings.push({ file, line: l.line, message: 'line is not a JSON object' });
      continue;
    }
    if (v.type === 'session') {
      warnings.push({ file, line: l.line, message: 'second session header ignored' });
      continue;
    }
    records.push({ record: v, line: l.line });
  }
  if (!header && !continuation) warnings.push({ file, line: 1, message: 'no pi session header on the first line' });
  const version = continuation ? (opts.version ?? PI_SESSION_VERSION) : header ? (num(header.version) ?? 1) : PI_SESSION_VERSION;
  // v1 ids are derived from the session and position, so every read of the file gives the same ids.
  const seed = header?.id ?? basename(file);
  const stableId = (i: number, taken: Set<string>) => {
    for (let n = 0; ; n++) {
      const id = createHash('sha1').update(`${seed}:${i}:${n}`).digest('hex').slice(0, 8);
      if (!taken.has(id)) return id;
    }
  };
  const migrated =
    version < PI_SESSION_VERSION
      ? migrateRecords(
          version,
          records.map((r) => r.record),
          header,
          stableId,
        )
      : records.map((r) => r.record);

  const entries: Entry[] = [];
  const lineOf = new Map<string, number>();
  // pi indexes entries by id with Map.set (SessionManager._buildIndex), so of an id met twice only the
  // later record is ever found: the parent lookups, the leaf, getChildren and branch() all give it.
  // The earlier one is left out here too; kept, it hung under its parent with the later one's id, a
  // loop by id (read as a cycle, cutting an entry in none) that pi never walks.
  const lastWithId = new Map<string, number>();
  migrated.forEach((record, i) => {
    if (typeof record.id === 'string' && record.id !== '') lastWithId.set(record.id, i);
  });
  migrated.forEach((record, i) => {
    const line = records[i]?.line;
    const warn: Warn = (message) => warnings.push({ file, line, id: str(record.id), message });
    if (typeof record.id !== 'string' || record.id === '') {
      warn(`${String(record.type)} record without an id; skipped`);
      return;
    }
    const later = lastWithId.get(record.id) ?? i;
    if (later !== i) {
      const laterLine = records[later]?.line;
      warn(
        `duplicate id ${record.id}: line ${laterLine ?? '?'} has it again and pi finds only that later record by the id; this one left out`,
      );
      return;
    }
    if (record.parentId === record.id) {
      warn(`entry is its own parent; made a root`);
      record.parentId = null;
    }
    const entry = entryFromRecord(record, warn);
    entries.push(entry);
    if (line !== undefined) lineOf.set(entry.id, line);
  });
  checkTree(entries, lineOf, file, warnings, continuation);

  const id = header?.id ?? idOfHeaderlessFile(file);
  const times = entries.map((e) => e.timestamp).filter((t) => t !== new Date(0).toISOString());
  // without a readable header: the time its name gives, else its first dated record (not 1970)
  const createdAt = isoTime(header?.timestamp, timeFromFileName(file) ?? times[0] ?? new Date(0).toISOString());
  // ISO strings of one format sort as times do.
  const updatedAt = [createdAt, ...times].sort().at(-1) ?? createdAt;
  const u = summarizeUsage(entries);

  let name: string | undefined;
  for (const e of entries) {
    if (e.kind === 'metadata' && e.type === 'session_info') {
      const n = isRecord(e.data) ? str(e.data.name)?.trim() : undefined;
      name = n || undefined;
    }
  }
  const title = name ?? firstUserTitle(entries);

  const session: Session = {
    id,
    source: SOURCE,
    ...(typeof header?.cwd === 'string' && header.cwd ? { project: header.cwd } : {}),
    ...(title ? { title } : {}),
    // a session threadbase wrote (driver.ts writeWithHeader, encode.ts encodePiSessionFile)
    ...writtenByOf(isRecord(header?.threadbase) ? header.threadbase.writtenBy : undefined),
    createdAt,
    updatedAt,
    messageCount: countMessages(entries),
    ...(u.models.length ? { models: u.models } : {}),
    usage: u.usage,
    ...usageByModelOf(u),
    cost: u.cost,
    path: file,
    entries,
    leafId: entries[entries.length - 1]?.id ?? null,
    warnings,
    ...(header ? { raw: header } : {}),
    meta: {
      version,
      ...(typeof header?.parentSession === 'string' && header.parentSession ? { parentSession: header.parentSession } : {}),
    },
  };
  return { session, header, end };
}
