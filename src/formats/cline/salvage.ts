/**
 * Cline keeps a session's messages as one JSON document (the CLI: `{…, "messages": [...]}`; the
 * VS Code extension: a bare array), rewritten whole at every turn. A document torn at the end (a
 * crash mid-write, a disk full) is no JSON; the whole items before the tear still are. This finds
 * them, and the line where the first broken item starts, so the rest of the session still loads.
 */
import { promises as fs } from 'node:fs';
import type { ParseWarning } from '../../model/types.js';
import { parseJson } from '../shared/jsonl.js';

export type JsonObject = Record<string, unknown>;
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A small JSON file of Cline's holding one object (a manifest, a compaction state); a warning and undefined else (none when absent). */
export async function readJsonObject(file: string, warnings: ParseWarning[]): Promise<JsonObject | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      warnings.push({ file, message: `cannot read: ${(err as Error).message}` });
    return undefined;
  }
  try {
    const v = parseJson(text);
    if (isObject(v)) return v;
    warnings.push({ file, line: 1, message: 'not a JSON object; ignored' });
  } catch (err) {
    warnings.push({ file, line: 1, message: `malformed JSON: ${(err as Error).message}; ignored` });
  }
  return undefined;
}

export interface SalvagedArray {
  /** the items that parsed, in file order, each with the line it starts on (1-based) */
  items: { value: unknown; line: number }[];
  /** where reading stopped and why, when the array did not end whole */
  broken?: { line: number; message: string };
}

function lineAt(text: string, pos: number, from: { pos: number; line: number }): number {
  let line = from.line;
  for (let i = from.pos; i < pos; i++) if (text.charCodeAt(i) === 10) line++;
  from.pos = pos;
  from.line = line;
  return line;
}

/** The end (exclusive) of the JSON value starting at `start`, or -1 when the text ends first. */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return i;
    } else if (depth === 0 && (c === 0x2c || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) return i;
    // a scalar item (a number, true, null) ends at a comma, a space or the array's end
  }
  return inString || depth > 0 ? -1 : text.length;
}

/** The end of a bare string value (after its closing quote), or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** The whole items of the array whose `[` is at `open`. */
export function salvageArray(text: string, open: number): SalvagedArray {
  const items: SalvagedArray['items'] = [];
  const cursor = { pos: 0, line: 1 };
  let i = open + 1;
  for (;;) {
    while (i < text.length && /[\s,]/.test(text[i] as string)) i++;
    if (i >= text.length)
      return {
        items,
        broken: { line: lineAt(text, i, cursor), message: 'the messages end before the array closes (file torn?)' },
      };
    if (text[i] === ']') return { items };
    const line = lineAt(text, i, cursor);
    const end = text[i] === '"' ? stringEnd(text, i) : valueEnd(text, i);
    if (end < 0) return { items, broken: { line, message: 'a message is cut off at the end of the file (file torn?)' } };
    try {
      items.push({ value: parseJson(text.slice(i, end)), line });
    } catch (err) {
      return { items, broken: { line, message: `malformed JSON: ${(err as Error).message}` } };
    }
    i = end;
  }
}

/** Where the array of a top-level object's `key` opens (`"key": [`), or -1. */
export function arrayOfKey(text: string, key: string): number {
  const m = new RegExp(`"${key}"\\s*:\\s*\\[`).exec(text);
  return m ? m.index + m[0].length - 1 : -1;
}
