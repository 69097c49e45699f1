import { linesJoined } from '../convert/markdown.js';

/**
 * Text written into a Markdown export as it reads: a Markdown renderer takes a raw tag in it
 * (`<system-reminder>`, `<div>`) for HTML and swallows or renders it, and an entity (`&amp;`) for the
 * character it names. Outside code (fenced and indented blocks and inline code spans, which a
 * renderer shows verbatim) `<` and the `&` of an entity are escaped (not where a backslash escapes
 * them already); the Markdown itself (emphasis, lists, links, autolinks, quotes, GFM tables) is left
 * to render.
 *
 * Which lines are code follows CommonMark's block structure (its spec, section 4-5 and appendix A):
 * the block quotes and list items a line is in are matched as a renderer matches them (a quote's `>`,
 * an item's content column, lazy paragraph lines, tabs to the next multiple of four), so code in a
 * quote or an item, at any depth, is found where the renderer finds it.
 *
 * The escaped text keeps the raw text's blocks. A raw HTML block becomes a paragraph of text that,
 * as the HTML block, takes no lazy line and no line after its end (a blank line is put there), and
 * whose lines start no block (a backslash before a list's or a heading's marker). A table's rows are
 * escaped cell by cell, as GFM splits a row at its pipes before it reads code spans, and indented
 * code after a table is code. A link reference definition, which a renderer shows nothing of, is
 * shown as text (`\[x]: …`), and code after it stays code. A paragraph's line indented four past a
 * list item's content goes out unindented (marked would read it as code, and what follows it too).
 */

/** `<` and an entity's `&` as entities: shown as written. One a backslash escapes already shows as written. */
const escapeOutsideCode = (text: string) =>
  text.replace(/(\\*)(?:<|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};))/g, (m, slashes: string) =>
    slashes.length % 2 ? m : `${slashes}${m.endsWith('<') ? '&lt;' : '&amp;'}`,
  );

/**
 * An autolink (`<https://…>`, `<a@b.c>`): a link as written, which escaped would show its `<` while a
 * GFM renderer still links the address, `>` and all. Other schemes (`javascript:`) stay text.
 */
const AUTOLINK =
  /^<(?:(?:https?|ftp|mailto):[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/i;

/** A paragraph's text with its inline code spans (a run of backticks to the next run as long) and autolinks kept verbatim. */
function escapeInline(text: string): string {
  let out = '';
  let at = 0;
  const starts = /`+|</g;
  for (let m = starts.exec(text); m; m = starts.exec(text)) {
    let run = m[0];
    let start = m.index;
    // a backslash before a run escapes its first backtick: the span, if any, opens after it
    const slashes = /\\*$/.exec(text.slice(at, start))?.[0].length ?? 0;
    if (run === '<') {
      const link = slashes % 2 ? null : AUTOLINK.exec(text.slice(start));
      if (!link) continue;
      out += escapeOutsideCode(text.slice(at, start)) + link[0];
      at = start + link[0].length;
      starts.lastIndex = at;
      continue;
    }
    if (slashes % 2) {
      run = run.slice(1);
      start++;
      if (!run) continue;
    }
    // the closing run: the same number of backticks, no more and no less
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = start + run.length;
    const end = close.exec(text);
    if (!end) continue; // backticks with no match are text
    out += escapeOutsideCode(text.slice(at, start)) + text.slice(start, end.index + run.length);
    at = end.index + run.length;
    starts.lastIndex = at;
  }
  return out + escapeOutsideCode(text.slice(at));
}

type Container = { kind: 'quote' } | { kind: 'item'; column: number; hasChild: boolean };
/**
 * The block of the raw text an escaped paragraph stands for, which no Markdown line goes on: an HTML block
 * (the line pattern that ends it, null: a blank line) or a link reference definition (ended at once).
 */
type RawBlock = { end: RegExp | null; ended: boolean };
type Leaf =
  | { kind: 'none' }
  // tableFrom: the paragraph's line a GFM table starts at (its header row), the lines before it a paragraph
  | { kind: 'paragraph'; lines: number[]; raw?: RawBlock; tableFrom?: number }
  | { kind: 'fence'; char: string; length: number }
  | { kind: 'code' };

const ATX_HEADING = /^#{1,6}(?:[ \t]+|$)/;
const FENCE_OPEN = /^(?:`{3,}(?!.*`)|~{3,})/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/;
const BULLET = /^[*+-]/;
const ORDERED = /^(\d{1,9})[.)]/;
// CommonMark's HTML blocks (4.6): types 1-5 end at a line holding their end, 6 and 7 at a blank line
const HTML_ENDS: readonly (readonly [RegExp, RegExp])[] = [
  [/^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];
const HTML_BLOCK_TAG =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|meta|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
const HTML_LONE_TAG =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$/;

/** The HTML block a line (past its containers and indent) starts in the raw text; a lone tag (type 7) interrupts no paragraph. */
function htmlBlockStart(rest: string, interrupting: boolean): RawBlock | undefined {
  for (const [start, end] of HTML_ENDS) if (start.test(rest)) return { end, ended: end.test(rest) };
  if (HTML_BLOCK_TAG.test(rest) || (!interrupting && HTML_LONE_TAG.test(rest))) return { end: null, ended: false };
  return undefined;
}

/** A link reference definition's start (`[label]: …`): the renderer shows no definition, the backslash keeps it text. */
const LINK_DEFINITION = /^\[(?:\\.|[^[\]\\])+\]:/;
const WHOLE_LINK_DEFINITION =
  /^\[(?:\\.|[^[\]\\])+\]:[ \t]*(?:<[^<>\n]*>|[^<\s]\S*)(?:[ \t]+(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\)))?[ \t]*$/;

/** What starts a block at a line's start (or may: a table's delimiter row), past the digits of an ordered list's marker. */
const BLOCK_START = /^(?:>|#{1,6}(?:[ \t]|$)|`{3}|~{3}|[-+*](?:[ \t]|$)|=+[ \t]*$|(\d{1,9})[.)](?:[ \t]|$))/;
/** A GFM table's delimiter row, as marked takes it (a pipe or a colon in it). */
const TABLE_DELIMITER = /^ {0,3}(?=.*[:|])(?:\| *)?:?-+:? *(?:\| *:?-+:? *)*(?:\| *)?$/;
/** A pipe no backslash escapes: a table row's cells are split there, in a code span too. */
const CELL_PIPE = /(?<=(?:^|[^\\])(?:\\\\)*)\|/;
/** A table row's cells, the empty ends dropped. */
function tableCells(row: string): string[] {
  const cells = row.split(CELL_PIPE);
  if (cells.length > 1 && !cells[0]?.trim()) cells.shift();
  if (cells.length > 1 && !cells.at(-1)?.trim()) cells.pop();
  return cells;
}
const delimiterCells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|').length;

const isSpaceOrTab = (c: string | undefined) => c === ' ' || c === '\t';

/** One line as a renderer consumes it: an offset into it, the column reached, a tab part-consumed (CommonMark's). */
class Cursor {
  offset = 0;
  column = 0;
  nextNonspace = 0;
  nextNonspaceColumn = 0;
  indent = 0;
  blank = false;
  constructor(readonly line: string) {}
  findNextNonspace() {
    let i = this.offset;
    let cols = this.column;
    for (let c = this.line[i]; c === ' ' || c === '\t'; c = this.line[++i]) cols += c === '\t' ? 4 - (cols % 4) : 1;
    this.blank = i >= this.line.length;
    this.nextNonspace = i;
    this.nextNonspaceColumn = cols;
    this.indent = cols - this.column;
  }
  advanceNextNonspace() {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
  }
  /** `count` characters on, or with `columns` that many columns (a tab may be part-consumed). */
  advance(count: number, columns: boolean) {
    for (let c = this.line[this.offset]; count > 0 && c !== undefined; c = this.line[this.offset]) {
      if (c === '\t' && columns) {
        const toTab = 4 - (this.column % 4);
        const step = Math.min(toTab, count);
        this.column += step;
        if (step === toTab) this.offset++;
        count -= step;
      } else {
        this.column += c === '\t' ? 4 - (this.column % 4) : 1;
        this.offset++;
        count--;
      }
    }
  }
  get rest() {
    return this.line.slice(this.nextNonspace);
  }
}

/**
 * `text` as Markdown that shows it as written: HTML outside code escaped, code blocks and spans verbatim.
 * `at: 'inline'`: its first line continues a line of the caller's (`# title`, `> error: …`), where no
 * block (code, a list, a quote) starts.
 */
export function markdownText(text: string, at: 'block' | 'inline' = 'block'): string {
  const lines = text.split('\n');
  const out: string[] = [];
  // the content (past the quotes' and items' markers) of each line of the open paragraph
  const contents: string[] = [];
  const stack: Container[] = [];
  let leaf: Leaf = { kind: 'none' };

  const closeLeaf = () => {
    if (leaf.kind === 'paragraph') {
      const table = leaf.tableFrom ?? leaf.lines.length;
      // code spans reach across the paragraph's lines, not past it
      const paragraph = leaf.lines.slice(0, table).map((n) => contents[n] as string);
      const escaped = paragraph.length ? escapeInline(paragraph.join('\n')).split('\n') : [];
      // a table's cells each: the renderer splits a row at its pipes before it reads code spans
      for (const n of leaf.lines.slice(table)) escaped.push((contents[n] as string).split(CELL_PIPE).map(escapeInline).join('|'));
      leaf.lines.forEach((n, k) => {
        out[n] = `${out[n]}${escaped[k]}`;
      });
    }
    leaf = { kind: 'none' };
  };
  /**
   * A paragraph's line indented four past a list item's content goes out with no indent (a renderer drops a
   * paragraph line's indent): marked reads it in an item as code that takes the blank and indented lines after
   * it into the paragraph, where their tags (verbatim, as code) would be HTML.
   */
  const flattens = (c: Cursor) => c.indent >= 4 && stack.at(-1)?.kind === 'item';
  /** The line from `from` as paragraph text: a backslash before what would start a block at its start (a list, a heading, a fence, a table's delimiter row, a setext underline). */
  const textLine = (c: Cursor, from: number) => {
    const rest = c.rest;
    const blockStart =
      BLOCK_START.exec(rest) ??
      (THEMATIC_BREAK.test(rest) || SETEXT_UNDERLINE.test(rest) || TABLE_DELIMITER.test(rest) ? [''] : null);
    if (!blockStart) return c.line.slice(from);
    const at = c.nextNonspace + (blockStart[1]?.length ?? 0);
    return `${c.line.slice(from, at)}\\${c.line.slice(at)}`;
  };
  /** A block starts in the innermost container: the container now has a child. */
  const addChild = () => {
    const inner = stack.at(-1);
    if (inner?.kind === 'item') inner.hasChild = true;
  };

  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] as string;
    const c = new Cursor(line);
    if (n === 0 && at === 'inline') {
      // a continuation of the caller's line: paragraph text
      out[n] = '';
      contents[n] = line;
      leaf = { kind: 'paragraph', lines: [n] };
      continue;
    }
    // the open containers the line continues
    let matched = 0;
    for (const container of stack) {
      c.findNextNonspace();
      if (container.kind === 'quote') {
        if (c.indent >= 4 || line[c.nextNonspace] !== '>') break;
        c.advanceNextNonspace();
        c.advance(1, false);
        if (isSpaceOrTab(line[c.offset])) c.advance(1, true);
      } else if (c.blank) {
        // an item that began with a blank line ends at the next blank one
        if (!container.hasChild) break;
        c.advanceNextNonspace();
      } else if (c.indent >= container.column) c.advance(container.column, true);
      else break;
      matched++;
    }
    const allMatched = matched === stack.length;
    const matchedPrefix = line.slice(0, c.offset);
    c.findNextNonspace();
    // code goes on in the containers it is in
    if (allMatched && leaf.kind === 'fence') {
      const close = c.indent <= 3 && /^(?:`{3,}|~{3,})(?=[ \t]*$)/.exec(c.rest)?.[0];
      out[n] = line;
      if (close && close[0] === leaf.char && close.length >= leaf.length) leaf = { kind: 'none' };
      continue;
    }
    if (allMatched && leaf.kind === 'code' && (c.indent >= 4 || c.blank)) {
      out[n] = line;
      continue;
    }
    if (leaf.kind === 'code' || leaf.kind === 'fence') leaf = { kind: 'none' };
    // a raw HTML block, escaped to a paragraph, takes no lazy line and none after its end: the line is no
    // continuation of it, and a blank line keeps the renderer from taking it for one
    let separate = false;
    if (leaf.kind === 'paragraph' && leaf.raw && (leaf.raw.ended || !allMatched) && !c.blank) {
      closeLeaf();
      separate = true;
    }
    // a paragraph goes on in the containers matched (lazily past the others) unless a block starts
    const paragraphMatched = allMatched && leaf.kind === 'paragraph';
    if (allMatched && leaf.kind === 'paragraph' && leaf.raw && !c.blank) {
      // a line of a raw HTML block is text, no Markdown: one that would start a block gets a backslash
      const flat = flattens(c);
      out[n] = line.slice(0, c.offset);
      contents[n] = c.indent < 4 || flat ? textLine(c, flat ? c.nextNonspace : c.offset) : line.slice(c.offset);
      leaf.lines.push(n);
      if (leaf.raw.end?.test(contents[n])) leaf.raw.ended = true;
      continue;
    }
    // a delimiter row under a paragraph's line of as many cells: a GFM table from that line on
    const header = allMatched && leaf.kind === 'paragraph' && leaf.tableFrom === undefined ? leaf.lines.at(-1) : undefined;
    if (
      leaf.kind === 'paragraph' &&
      header !== undefined &&
      !(header === 0 && at === 'inline') &&
      c.indent < 4 &&
      TABLE_DELIMITER.test(line.slice(c.offset)) &&
      tableCells(contents[header] as string).length === delimiterCells(line.slice(c.offset))
    ) {
      leaf.tableFrom = leaf.lines.length - 1;
      out[n] = line.slice(0, c.offset);
      contents[n] = line.slice(c.offset);
      leaf.lines.push(n);
      continue;
    }
    const paragraphOpen: boolean = leaf.kind === 'paragraph';
    // the blocks the line starts: containers, then a leaf
    let opened = false;
    const openContainer = (container: Container) => {
      closeLeaf();
      stack.length = matched;
      addChild();
      stack.push(container);
      matched = stack.length;
      opened = true;
    };
    let started: 'heading' | 'fence' | 'code' | 'setext' | 'break' | undefined;
    for (;;) {
      c.findNextNonspace();
      // indented code ends a table as it does not a paragraph
      const tipIsParagraph = leaf.kind === 'paragraph' && leaf.tableFrom === undefined && !opened;
      const interruptsParagraph = paragraphMatched && !opened;
      if (c.indent >= 4) {
        if (!tipIsParagraph && !c.blank) {
          c.advance(4, true);
          started = 'code';
        }
        break;
      }
      const rest = c.rest;
      if (rest[0] === '>') {
        c.advanceNextNonspace();
        c.advance(1, false);
        if (isSpaceOrTab(line[c.offset])) c.advance(1, true);
        openContainer({ kind: 'quote' });
        continue;
      }
      if (ATX_HEADING.test(rest)) started = 'heading';
      else if (FENCE_OPEN.test(rest)) started = 'fence';
      else if (interruptsParagraph && SETEXT_UNDERLINE.test(rest)) started = 'setext';
      else if (THEMATIC_BREAK.test(rest)) started = 'break';
      if (started) break;
      const bullet = BULLET.exec(rest)?.[0];
      const ordered = ORDERED.exec(rest);
      const marker = bullet ?? (ordered && (!interruptsParagraph || Number(ordered[1]) === 1) ? ordered[0] : undefined);
      const after = marker === undefined ? undefined : rest[marker.length];
      if (marker === undefined || !(after === undefined || isSpaceOrTab(after))) break;
      // an item interrupting a paragraph has text
      if (interruptsParagraph && !rest.slice(marker.length).trim()) break;
      const markerOffset = c.indent;
      c.advanceNextNonspace();
      c.advance(marker.length, true);
      const spacesColumn = c.column;
      const spacesOffset = c.offset;
      do c.advance(1, true);
      while (c.column - spacesColumn < 5 && isSpaceOrTab(line[c.offset]));
      const spaces = c.column - spacesColumn;
      let padding = marker.length + spaces;
      if (spaces >= 5 || spaces < 1 || c.offset >= line.length) {
        // five or more spaces (indented code in the item) or none: the content one space past the marker
        padding = marker.length + 1;
        c.column = spacesColumn;
        c.offset = spacesOffset;
        if (isSpaceOrTab(line[c.offset])) c.advance(1, true);
      }
      openContainer({ kind: 'item', column: markerOffset + padding, hasChild: false });
    }
    // an HTML block the raw text starts here, escaped: a paragraph of its own (one starting here interrupts a
    // paragraph as the raw block does, lazy line or not; marked takes only one with no space before it for that)
    const interrupting: boolean = paragraphOpen && !opened;
    const html: RawBlock | undefined =
      started || c.blank || c.indent >= 4 || (interrupting && c.indent > 0) ? undefined : htmlBlockStart(c.rest, interrupting);
    if (html && paragraphOpen && !opened) {
      closeLeaf();
      separate = true;
    }
    if (!started && !opened && !allMatched && !c.blank && leaf.kind === 'paragraph') {
      // a lazy line: the paragraph's, its containers still open
      out[n] = '';
      contents[n] = line;
      leaf.lines.push(n);
      continue;
    }
    if (!opened) stack.length = matched;
    const blankBefore = separate ? `${matchedPrefix.trimEnd()}\n` : '';
    if (started === 'fence' || started === 'code') {
      closeLeaf();
      addChild();
      out[n] = blankBefore + line;
      const fence = FENCE_OPEN.exec(c.rest)?.[0] ?? '';
      leaf = started === 'code' ? { kind: 'code' } : { kind: 'fence', char: fence[0] as string, length: fence.length };
      continue;
    }
    const prefix = line.slice(0, c.offset);
    let content = line.slice(c.offset);
    if (started === 'heading' || started === 'break' || started === 'setext') {
      // a setext underline ends the paragraph above it, now the heading's text
      closeLeaf();
      if (started !== 'setext') addChild();
      out[n] = `${blankBefore}${prefix}${escapeInline(content)}`;
      continue;
    }
    if (c.blank) {
      closeLeaf();
      out[n] = line;
      continue;
    }
    if (!paragraphMatched || opened || leaf.kind !== 'paragraph') {
      closeLeaf();
      addChild();
      leaf = { kind: 'paragraph', lines: [], raw: html };
      // only a paragraph's first line can be a definition, shown escaped; one on a line of its own takes no
      // line after it, which may be code then
      if (LINK_DEFINITION.test(c.rest)) {
        content = `${line.slice(c.offset, c.nextNonspace)}\\${c.rest}`;
        if (WHOLE_LINK_DEFINITION.test(c.rest)) leaf.raw = { end: null, ended: true };
      }
    } else if (flattens(c)) content = textLine(c, c.nextNonspace);
    out[n] = blankBefore + prefix;
    contents[n] = content;
    (leaf as { lines: number[] }).lines.push(n);
  }
  closeLeaf();
  return out.join('\n');
}

/**
 * `text` as an ATX heading's (`# …`): one line (a heading ends at its line; a title's second line went
 * out as a paragraph, indented code or a list item), escaped as markdownText's, and a closing run of `#`
 * (which the renderer takes for the heading's closing sequence and drops) kept as text.
 */
export const markdownHeading = (text: string) => markdownText(linesJoined(text), 'inline').replace(/(^|[ \t])(#+)$/, '$1\\$2');
