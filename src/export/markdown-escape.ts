/**
 * Text written into a Markdown export as it reads: a Markdown renderer takes a raw tag in it
 * (`<system-reminder>`, `<div>`) for HTML and swallows or renders it, and an entity (`&amp;`) for the
 * character it names. Outside code (fenced and indented blocks and inline code spans, which a
 * renderer shows verbatim) `<` and the `&` of an entity are escaped; the Markdown itself (emphasis,
 * lists, links, quotes) is left to render.
 *
 * Which lines are code follows CommonMark's block structure (its spec, section 4-5 and appendix A):
 * the block quotes and list items a line is in are matched as a renderer matches them (a quote's `>`,
 * an item's content column, lazy paragraph lines, tabs to the next multiple of four), so code in a
 * quote or an item, at any depth, is found where the renderer finds it.
 */

/** `<` and an entity's `&` as entities: shown as written. */
const escapeOutsideCode = (text: string) =>
  text.replace(/&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/g, '&amp;').replace(/</g, '&lt;');

/** A paragraph's text with its inline code spans (a run of backticks to the next run as long) kept verbatim. */
function escapeInline(text: string): string {
  let out = '';
  let at = 0;
  const ticks = /`+/g;
  for (let m = ticks.exec(text); m; m = ticks.exec(text)) {
    let run = m[0];
    let start = m.index;
    // a backslash before a run escapes its first backtick: the span, if any, opens after it
    const slashes = /\\*$/.exec(text.slice(at, start))?.[0].length ?? 0;
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
    ticks.lastIndex = at;
  }
  return out + escapeOutsideCode(text.slice(at));
}

type Container = { kind: 'quote' } | { kind: 'item'; column: number; hasChild: boolean };
type Leaf =
  | { kind: 'none' }
  | { kind: 'paragraph'; lines: number[] }
  | { kind: 'fence'; char: string; length: number }
  | { kind: 'code' };

const ATX_HEADING = /^#{1,6}(?:[ \t]+|$)/;
const FENCE_OPEN = /^(?:`{3,}(?!.*`)|~{3,})/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/;
const BULLET = /^[*+-]/;
const ORDERED = /^(\d{1,9})[.)]/;
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
      // code spans reach across the paragraph's lines, not past it
      const escaped = escapeInline(leaf.lines.map((n) => contents[n] as string).join('\n')).split('\n');
      leaf.lines.forEach((n, k) => {
        out[n] = `${out[n]}${escaped[k]}`;
      });
    }
    leaf = { kind: 'none' };
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
    // a paragraph goes on in the containers matched (lazily past the others) unless a block starts
    const paragraphMatched = allMatched && leaf.kind === 'paragraph';
    if (leaf.kind === 'code' || leaf.kind === 'fence') leaf = { kind: 'none' };
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
      const tipIsParagraph = leaf.kind === 'paragraph' && !opened;
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
    if (!started && !opened && !allMatched && !c.blank && leaf.kind === 'paragraph') {
      // a lazy line: the paragraph's, its containers still open
      out[n] = '';
      contents[n] = line;
      leaf.lines.push(n);
      continue;
    }
    if (!opened) stack.length = matched;
    if (started === 'fence' || started === 'code') {
      closeLeaf();
      addChild();
      out[n] = line;
      const fence = FENCE_OPEN.exec(c.rest)?.[0] ?? '';
      leaf = started === 'code' ? { kind: 'code' } : { kind: 'fence', char: fence[0] as string, length: fence.length };
      continue;
    }
    const prefix = line.slice(0, c.offset);
    const content = line.slice(c.offset);
    if (started === 'heading' || started === 'break' || started === 'setext') {
      // a setext underline ends the paragraph above it, now the heading's text
      closeLeaf();
      if (started !== 'setext') addChild();
      out[n] = `${prefix}${escapeInline(content)}`;
      continue;
    }
    if (c.blank) {
      closeLeaf();
      out[n] = line;
      continue;
    }
    if (!paragraphMatched || opened) {
      closeLeaf();
      addChild();
      leaf = { kind: 'paragraph', lines: [] };
    }
    out[n] = prefix;
    contents[n] = content;
    (leaf as { lines: number[] }).lines.push(n);
  }
  closeLeaf();
  return out.join('\n');
}
