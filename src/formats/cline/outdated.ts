/**
 * Cline's rewrite of a file read again later (@cline/core 0.0.86 MessageBuilder: reindex,
 * commitOutdatedRewrites, replaceOutdatedReadContent): in a `read`/`read_files` result, a file (or
 * line range) some later read returned again is replaced by `[outdated - see the latest file content]`,
 * but only once the bytes that saves (the outdated entries as they would be sent) reach 64 KiB in all.
 * A resumed Cline builds the request with a fresh builder, so the rule is applied to the whole chain at once.
 */
import type { Message, Part, ToolResultContent, ToolResultPart } from '../../model/types.js';

export const CLINE_OUTDATED = '[outdated - see the latest file content]';
/** The bytes a rewrite must save before Cline makes it (gb, CLINE_MESSAGE_BUILDER_MIN_OUTDATED_REWRITE_BYTES). */
export const CLINE_MIN_OUTDATED_REWRITE_BYTES = 65_536;
const READ_TOOLS = new Set(['read', 'read_files']);

/** A tool result's content as Cline holds it: a string, or blocks and its own tools' JSON entries. */
export type ClineContent = string | unknown[];
type Obj = Record<string, unknown>;
interface Locator {
  path: string;
  startLine: number | null;
  endLine: number | null;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
/** An entry of Cline's own JSON (X2): an object that is no text, image or file block. */
const isEntry = (v: unknown): boolean => isObj(v) && v.type !== 'text' && v.type !== 'image' && v.type !== 'file';

/** A result's content in Cline's form; undefined for JSON that is no array (Cline finds no locator in it). */
export function clineContentOf(p: ToolResultPart): ClineContent | undefined {
  const json = p.meta?.clineContent;
  if (json !== undefined) return typeof json === 'string' || Array.isArray(json) ? json : undefined;
  if (typeof p.content === 'string') return p.content;
  return p.content.map((c) => {
    if (c.type === 'text') return { type: 'text', text: c.text };
    if (c.type === 'image') return { type: 'image', data: c.data ?? '', mediaType: c.mediaType };
    return { type: 'file', path: c.name ?? 'file', content: c.text ?? '' };
  });
}

/** The result with `content` (Cline's form, as clineContentOf gave it, item for item) back in the model's terms. */
export function withClineContent(p: ToolResultPart, content: ClineContent): ToolResultPart {
  if (p.meta?.clineContent !== undefined)
    return {
      ...p,
      content: typeof content === 'string' ? content : JSON.stringify(content),
      meta: { ...p.meta, clineContent: content },
    };
  if (typeof content === 'string' || typeof p.content === 'string')
    return { ...p, content: typeof content === 'string' ? content : JSON.stringify(content) };
  const items = p.content.map((orig, i): ToolResultContent => {
    const b = content[i] as Obj;
    if (b.type === 'text' && typeof b.text === 'string')
      return orig.type === 'text' ? { ...orig, text: b.text } : { type: 'text', text: b.text };
    if (orig.type === 'file' && typeof b.content === 'string') return { ...orig, text: b.content };
    return orig;
  });
  return { ...p, content: items };
}

function lineNumber(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}
function pathOf(o: Obj): string | undefined {
  for (const v of [o.path, o.file_path, o.filePath]) if (typeof v === 'string' && v.length > 0) return v;
  return undefined;
}
function requestLocator(v: unknown): Locator | undefined {
  if (!isObj(v)) return undefined;
  const path = pathOf(v);
  return path ? { path, startLine: lineNumber(v.start_line), endLine: lineNumber(v.end_line) } : undefined;
}
function entryLocator(v: unknown): Locator | undefined {
  if (!isObj(v)) return undefined;
  const loc = requestLocator(v);
  if (loc) return loc;
  if (typeof v.query !== 'string' || v.query.length === 0) return undefined;
  const m = /^(.*):(\d+)-(EOF|\d+)$/.exec(v.query);
  if (!m) return { path: v.query, startLine: null, endLine: null };
  return { path: m[1] as string, startLine: Number(m[2]), endLine: m[3] === 'EOF' ? null : Number(m[3]) };
}
const isFullRead = (l: Locator): boolean => l.startLine == null && l.endLine == null;
const keyOf = (l: Locator): string => (isFullRead(l) ? l.path : `${l.path}:${l.startLine ?? 1}-${l.endLine ?? 'EOF'}`);
function dedupe(ls: Locator[]): Locator[] {
  return [...new Map(ls.map((l) => [keyOf(l), l])).values()];
}
function parsedLocators(text: string): Locator[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(v)) {
    const l = entryLocator(v);
    return l ? [l] : [];
  }
  return dedupe(v.flatMap((e) => entryLocator(e) ?? []));
}
function contentLocators(c: ClineContent): Locator[] {
  if (typeof c === 'string') return parsedLocators(c);
  return dedupe(
    c.flatMap((b) => {
      if (isObj(b) && b.type === 'text' && typeof b.text === 'string') return parsedLocators(b.text);
      return isEntry(b) ? (entryLocator(b) ?? []) : [];
    }),
  );
}
function inputLocators(input: unknown): Locator[] {
  if (!isObj(input)) return [];
  const out: Locator[] = [];
  const own = requestLocator(input);
  if (own) out.push(own);
  if (Array.isArray(input.files))
    for (const f of input.files) {
      const l = requestLocator(f);
      if (l) out.push(l);
    }
  if (Array.isArray(input.file_paths))
    for (const f of input.file_paths)
      if (typeof f === 'string' && f.length > 0) out.push({ path: f, startLine: null, endLine: null });
  return dedupe(out);
}

/** A tool result's string as the builder cuts it before counting (truncateMiddle / truncateNestedStrings). */
type Cut = (s: string) => string;
function cutNested(v: unknown, cut: Cut): unknown {
  if (typeof v === 'string') return cut(v);
  if (Array.isArray(v)) return v.map((x) => cutNested(x, cut));
  if (isObj(v)) {
    if (v.type === 'image' && typeof v.data === 'string' && typeof v.mediaType === 'string') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutNested(x, cut)]));
  }
  return v;
}

interface ReadResult {
  part: ToolResultPart;
  content: ClineContent;
  locators: Locator[];
}

/** Cline's indexes of a chain: which read result holds the latest copy of each file and range. */
class ReadIndex {
  readonly toolNames = new Map<string, string>();
  readonly inputLocators = new Map<string, Locator[]>();
  readonly latestByKey = new Map<string, string>();
  readonly latestFullByPath = new Map<string, string>();
  readonly reads: ReadResult[] = [];

  constructor(messages: Message[]) {
    messages.forEach((m, mi) => {
      for (const [pi, p] of m.parts.entries()) this.add(p, mi, pi);
    });
  }

  toolName(p: ToolResultPart): string | undefined {
    return this.toolNames.get(p.callId) ?? (p.name ? p.name.toLowerCase() : undefined);
  }

  private add(p: Part, mi: number, pi: number): void {
    if (p.type === 'file') this.latestFullByPath.set(p.name ?? 'file', `file:${mi}:${pi}`);
    else if (p.type === 'tool_call') {
      const name = p.name.toLowerCase();
      this.toolNames.set(p.id, name);
      const ls = READ_TOOLS.has(name) ? inputLocators(p.input) : [];
      if (ls.length) this.inputLocators.set(p.id, ls);
    } else if (p.type === 'tool_result') {
      const name = this.toolName(p);
      if (!name || !READ_TOOLS.has(name) || p.isError) return;
      const content = clineContentOf(p);
      if (content === undefined) return;
      const own = contentLocators(content);
      const locators = own.length ? own : (this.inputLocators.get(p.callId) ?? []);
      this.reads.push({ part: p, content, locators });
      for (const l of locators) {
        this.latestByKey.set(keyOf(l), p.callId);
        if (isFullRead(l)) this.latestFullByPath.set(l.path, p.callId);
      }
    }
  }

  isOutdated(l: Locator, callId: string): boolean {
    const full = this.latestFullByPath.get(l.path);
    if (full && full !== callId) return true;
    return this.latestByKey.get(keyOf(l)) !== callId;
  }
}

function outdatedImageEntries(text: string, keys: Set<string>): number {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of Array.isArray(v) ? v : [v]) {
    const l = entryLocator(e);
    if (!isObj(e) || !l || !keys.has(keyOf(l))) continue;
    if (e.result === 'Successfully read image' || e.content === 'Successfully read image') n++;
  }
  return n;
}

/** The bytes replacing `keys` in a result saves (estimateOutdatedReclaimBytes). */
function reclaimBytes(read: ReadResult, keys: Set<string>, cut: Cut): number {
  const all = read.locators.length > 0 && read.locators.every((l) => keys.has(keyOf(l)));
  const entryBytes = (e: unknown): number => {
    const l = entryLocator(e);
    return l && keys.has(keyOf(l)) ? bytes(JSON.stringify(cutNested(e, cut))) : 0;
  };
  const ofText = (text: string): number => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return all || read.locators.length === 0 ? bytes(cut(text)) : 0;
    }
    return (Array.isArray(v) ? v : [v]).reduce((n: number, e) => n + entryBytes(e), 0);
  };
  const c = read.content;
  if (typeof c === 'string') return ofText(c);
  let images = c.reduce(
    (n: number, b) => n + (isObj(b) && b.type === 'text' ? outdatedImageEntries(String(b.text), keys) : 0),
    0,
  );
  let total = 0;
  for (const b of c) {
    if (!isObj(b)) continue;
    if (b.type === 'text') total += ofText(String(b.text));
    else if (b.type === 'image') {
      if (images > 0) {
        images--;
        total += bytes(String(b.data));
      }
    } else if (isEntry(b)) total += entryBytes(b);
    else if (b.type === 'file' && keys.has(b.path as string)) total += bytes(cut(String(b.content)));
  }
  return total;
}

function replaceEntry(e: unknown, keys: Set<string>): unknown {
  if (!isObj(e)) return e;
  const l = entryLocator(e);
  if (!l || !keys.has(keyOf(l))) return e;
  if (typeof e.result === 'string') return { ...e, result: CLINE_OUTDATED };
  if (typeof e.content === 'string') return { ...e, content: CLINE_OUTDATED };
  return { ...e, result: CLINE_OUTDATED };
}
function replaceInString(text: string, keys: Set<string>): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return JSON.stringify(Array.isArray(v) ? v.map((e) => replaceEntry(e, keys)) : replaceEntry(v, keys));
}

/** replaceOutdatedReadContent: the outdated entries, files and images of a result replaced by the note. */
function replaceOutdated(c: ClineContent, outdated: Locator[]): ClineContent {
  const keys = new Set(outdated.map(keyOf));
  const paths = new Set(outdated.map((l) => l.path));
  if (typeof c === 'string') return replaceInString(c, keys) ?? CLINE_OUTDATED;
  let images = c.reduce(
    (n: number, b) => n + (isObj(b) && b.type === 'text' ? outdatedImageEntries(String(b.text), keys) : 0),
    0,
  );
  return c.map((b) => {
    if (!isObj(b)) return b;
    if (b.type === 'file') return paths.has(b.path as string) ? { ...b, content: CLINE_OUTDATED } : b;
    if (b.type === 'image') {
      if (images === 0) return b;
      images--;
      return { type: 'text', text: CLINE_OUTDATED };
    }
    if (isEntry(b)) return replaceEntry(b, keys);
    if (b.type !== 'text') return b;
    const text = replaceInString(String(b.text), keys);
    return { ...b, text: text ?? CLINE_OUTDATED };
  });
}

/**
 * The messages with Cline's outdated-read rewrite made: every read result's outdated files and ranges
 * replaced, when all of them together save at least `minBytes` (as the builder counts them, each string
 * cut by `cut` first); otherwise the messages unchanged.
 */
export function rewriteOutdatedReads(
  messages: Message[],
  cut: Cut,
  minBytes: number = CLINE_MIN_OUTDATED_REWRITE_BYTES,
): Message[] {
  const index = new ReadIndex(messages);
  const rewrites = new Map<ToolResultPart, ClineContent>();
  let saved = 0;
  for (const read of index.reads) {
    const outdated = read.locators.filter((l) => index.isOutdated(l, read.part.callId));
    if (!outdated.length) continue;
    saved += reclaimBytes(read, new Set(outdated.map(keyOf)), cut);
    rewrites.set(read.part, replaceOutdated(read.content, outdated));
  }
  if (!rewrites.size || saved < minBytes) return messages;
  return messages.map((m) => {
    if (!m.parts.some((p) => p.type === 'tool_result' && rewrites.has(p))) return m;
    return {
      ...m,
      parts: m.parts.map((p) => {
        const content = p.type === 'tool_result' ? rewrites.get(p) : undefined;
        return p.type === 'tool_result' && content !== undefined ? withClineContent(p, content) : p;
      }),
    };
  });
}
