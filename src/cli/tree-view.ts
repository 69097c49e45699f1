/** Draws a session's entry tree as text, with the current leaf marked. */

import {
  currentLeaf,
  indexEntries,
  isConversationEntry,
  messageText,
  nearestConversationEntry,
  resultText,
} from '../model/tree.js';
import type { Entry, Part, Session } from '../model/types.js';
import { cutToColumns, oneLineCut, stringWidth } from './text-width.js';

/** A count and its noun: '1 image', '2 images'. */
const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * A tool call as `name(what)`: its input's first text (a command, a path, a pattern: what Claude Code's
 * own view shows beside the name), cut to 30 columns; the name alone when the input holds no text.
 */
function callLabel(call: Extract<Part, { type: 'tool_call' }>): string {
  const first = Object.values(call.input ?? {}).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return first === undefined ? call.name : `${call.name}(${oneLineCut(first, 30)})`;
}

/** What a message holds besides its text: thinking, calls, results, images and files. */
function partsNote(parts: readonly Part[], thinkingUnsaid: boolean): string {
  const calls = parts.filter((p) => p.type === 'tool_call');
  const results = parts.filter((p) => p.type === 'tool_result');
  const failed = results.filter((p) => p.isError).length;
  const images = parts.filter((p) => p.type === 'image').length;
  const files = parts.filter((p) => p.type === 'file');
  const thought = thinkingUnsaid && parts.some((p) => p.type === 'thinking' || p.type === 'redacted_thinking');
  const more = calls.length > 3 ? ` +${calls.length - 3} more` : '';
  const file = files[0];
  return [
    thought ? 'thinking' : '',
    calls.length ? `calls ${calls.slice(0, 3).map(callLabel).join(', ')}${more}` : '',
    results.length ? `${counted(results.length, 'result')}${failed ? ` (${failed} failed)` : ''}` : '',
    images ? counted(images, 'image') : '',
    files.length === 1 && file?.name ? `file ${oneLineCut(file.name, 30)}` : files.length ? counted(files.length, 'file') : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** How `show` describes an entry in one line. */
export function describeEntry(e: Entry): string {
  // cut to 70 columns with '…' where cut (a line cut silently read as the whole text; CJK takes two columns)
  const one = (s: string) => oneLineCut(s, 70);
  switch (e.kind) {
    case 'message': {
      const m = e.message;
      let text = one(messageText(m));
      const hasText = text !== '';
      // a reply of thinking alone (Claude Code keeps each block a record) shows its thinking, not nothing
      if (!hasText) {
        const thinking = m.parts.flatMap((p) => (p.type === 'thinking' && p.thinking.trim() ? [p.thinking] : []));
        if (thinking.length) text = `(thinking) ${oneLineCut(thinking.join('\n'), 59)}`;
        else if (m.parts.some((p) => p.type === 'redacted_thinking')) text = '(thinking, redacted)';
        else {
          // a message of results alone (a tool's) shows what the tool printed, not only how many results
          const printed = m.parts.flatMap((p) => (p.type === 'tool_result' ? [resultText(p.content).trim()] : []));
          text = one(printed.filter(Boolean).join('\n'));
        }
      }
      const extra = partsNote(m.parts, hasText);
      return `${m.role}:${text ? ` ${text}` : ''}${extra ? ` [${extra}]` : ''}`;
    }
    case 'compaction':
      return `compaction: ${one(e.summary)}`;
    case 'branch_summary':
      return `branch summary: ${one(e.summary)}`;
    case 'model_change': {
      // a change of the thinking level alone is no model ('model: off' read as a model named off)
      const model = e.model
        ? `model: ${e.provider ? `${e.provider}/` : ''}${e.model}`
        : e.provider
          ? `provider: ${e.provider}`
          : '';
      const thinking = e.thinkingLevel ? `thinking: ${e.thinkingLevel}` : '';
      return [model, thinking].filter(Boolean).join(', ') || 'model: (unchanged)';
    }
    case 'label':
      return `label ${e.targetId}: ${e.label ?? '(cleared)'}`;
    case 'metadata':
      return `(${e.type})`;
  }
}

/**
 * Each entry's id shortened for display: its first `min` characters, or as many as make it unique
 * among the session's ids (the commands that take an entry take a unique prefix).
 */
export function shortEntryIds(entries: readonly Entry[], min = 12): Map<string, string> {
  return shortIds(
    entries.map((e) => e.id),
    min,
  );
}

/** shortEntryIds for ids alone (search has a session's entry ids from the index, not its entries). */
export function shortIds(allIds: Iterable<string>, min = 12): Map<string, string> {
  const ids = [...new Set(allIds)].sort();
  const common = (a = '', b = '') => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const out = new Map<string, string>();
  ids.forEach((id, i) => {
    const needed = Math.max(common(ids[i - 1], id), common(id, ids[i + 1])) + 1;
    out.set(id, id.slice(0, Math.max(min, needed)));
  });
  return out;
}

/** Whether `show` lists an entry: an agent's own bookkeeping records only when asked for all. */
export function shownEntry(e: Entry, all = false): boolean {
  return all || isConversationEntry(e);
}

/**
 * Draws the tree of the entries `show` lists. A hidden entry's children hang from its nearest shown
 * ancestor, so an agent's bookkeeping records (Claude Code writes several per turn, some as side
 * branches) neither show nor look like branches; a hidden current leaf marks its nearest shown ancestor.
 * `at` (`show --tree --at`): that entry is shown, even a hidden one, and marked.
 */
export function drawTree(
  session: Pick<Session, 'entries' | 'leafId'>,
  opts: { all?: boolean; at?: string; columns?: number } = {},
): string {
  const index = indexEntries(session.entries);
  const memo = new Map<string, string | null>();
  const nearestShown = (id: string | null): string | null =>
    opts.all ? (id !== null && index.byId.has(id) ? id : null) : nearestConversationEntry(index, id, memo);
  const children = new Map<string | null, Entry[]>();
  for (const e of session.entries) {
    if (!shownEntry(e, opts.all) && e.id !== opts.at) continue;
    const parent = e.parentId === null ? null : nearestShown(e.parentId);
    const list = children.get(parent) ?? [];
    list.push(e);
    children.set(parent, list);
  }
  const short = shortEntryIds(session.entries);
  const leafEntry = currentLeaf(session);
  const leaf = leafEntry ? nearestShown(leafEntry.id) : undefined;
  const lines: string[] = [];
  const seen = new Set<string>();
  // Iterative walk: sessions can be thousands of entries deep. `lead` starts an entry's line, `below`
  // the lines under it: a single child continues in the same column, so a chain does not drift right
  // and reads as one chain, not as siblings.
  const stack: { e: Entry; lead: string; below: string }[] = [];
  const roots = children.get(null) ?? [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ e: roots[i] as Entry, lead: '', below: '' });
  while (stack.length) {
    const { e, lead, below } = stack.pop() as (typeof stack)[number];
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    const kids = children.get(e.id) ?? [];
    const marks = [e.id === leaf ? 'current' : '', e.id === opts.at ? '--at' : ''].filter(Boolean);
    const mark = marks.length ? ` ← ${marks.join(', ')}` : '';
    lines.push(fitLine(`${lead}${short.get(e.id)} ${describeEntry(e)}`, opts.columns, mark));
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i] as Entry;
      const last = i === kids.length - 1;
      if (kids.length === 1) stack.push({ e: k, lead: below, below });
      else stack.push({ e: k, lead: below + (last ? '└─ ' : '├─ '), below: below + (last ? '   ' : '│  ') });
    }
  }
  return lines.join('\n');
}

/**
 * `line` cut to `columns` (a terminal's width) with `mark` kept whole at its end: on a narrow
 * terminal a line wrapped under the tree's next lines, and a cut one lost its `← current`.
 */
export function fitLine(line: string, columns: number | undefined, mark = ''): string {
  if (columns === undefined) return line + mark;
  return cutToColumns(line, Math.max(1, columns - stringWidth(mark))) + mark;
}
