/**
 * Text written into a Markdown export as it reads: a Markdown renderer takes a raw tag in it
 * (`<system-reminder>`, `<div>`) for HTML and swallows or renders it, and an entity (`&amp;`) for the
 * character it names. Outside code (fenced and indented blocks and inline code spans, which a
 * renderer shows verbatim) `<` and the `&` of an entity are escaped; the Markdown itself (emphasis,
 * lists, links) is left to render.
 */

/** A fence's opening line: up to three spaces, then three or more backticks or tildes (CommonMark). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** `<` and an entity's `&` as entities: shown as written. */
const escapeOutsideCode = (text: string) =>
  text.replace(/&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/g, '&amp;').replace(/</g, '&lt;');

/** A paragraph's text with its inline code spans (a run of backticks to the next run as long) kept verbatim. */
function escapeInline(text: string): string {
  let out = '';
  let at = 0;
  const ticks = /`+/g;
  for (let m = ticks.exec(text); m; m = ticks.exec(text)) {
    const run = m[0];
    // the closing run: the same number of backticks, no more and no less
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = m.index + run.length;
    const end = close.exec(text);
    if (!end) continue; // backticks with no match are text
    out += escapeOutsideCode(text.slice(at, m.index)) + text.slice(m.index, end.index + run.length);
    at = end.index + run.length;
    ticks.lastIndex = at;
  }
  return out + escapeOutsideCode(text.slice(at));
}

/** The columns `s` takes, a tab to the next multiple of four (as CommonMark counts indentation). */
const width = (s: string) => [...s].reduce((col, ch) => (ch === '\t' ? col + 4 - (col % 4) : col + 1), 0);

/** A line's indentation in columns; undefined for a blank line. */
function indentOf(line: string): number | undefined {
  const lead = /^[ \t]*/.exec(line)?.[0] ?? '';
  return line.slice(lead.length).trim() ? width(lead) : undefined;
}

/** A list item's first line: its indentation and marker, and the spaces before its content. */
const LIST_ITEM = /^([ \t]*(?:[-+*]|\d{1,9}[.)]))([ \t]+)\S/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/**
 * `text` as Markdown that shows it as written: HTML outside code escaped, code blocks and spans verbatim.
 * `at: 'inline'`: its first line continues a line of the caller's (`# title`, `> error: …`), where no
 * indented code block starts.
 */
export function markdownText(text: string, at: 'block' | 'inline' = 'block'): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  // where an indented code block may start: after a blank line, a heading or a fenced block (it cannot interrupt a paragraph)
  let blockStart = at === 'block';
  // the content columns of the list items the text is in, innermost last: their code is indented four more
  const lists: number[] = [];
  const flush = () => {
    // code spans do not reach past a blank line (a paragraph's end)
    if (prose.length)
      out.push(
        ...prose
          .join('\n')
          .split(/(\n[ \t]*\n)/)
          .map((p, i) => (i % 2 ? p : escapeInline(p)))
          .join('')
          .split('\n'),
      );
    prose = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const indent = indentOf(line);
    if (indent === undefined) {
      prose.push(line);
      blockStart = true;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    // a line less indented than a list item's content, after a blank line, is past that item
    if (blockStart && !item) while (lists.length && indent < (lists.at(-1) as number)) lists.pop();
    const codeAt = (lists.at(-1) ?? 0) + 4;
    if (blockStart && indent >= codeAt) {
      // an indented code block: to the next line indented less that is not blank, kept as written
      flush();
      let end = i;
      while (end + 1 < lines.length && (indentOf(lines[end + 1] as string) ?? codeAt) >= codeAt) end++;
      // blank lines after the block are not in it
      while (end > i && indentOf(lines[end] as string) === undefined) end--;
      out.push(...lines.slice(i, end + 1));
      i = end;
      blockStart = false;
      continue;
    }
    if (item) {
      while (lists.length && indent < (lists.at(-1) as number)) lists.pop();
      // its content's column: past the marker and its spaces, or one space past the marker when five or more follow (code in the item)
      const marker = width(item[1] as string);
      const gap = width(`${item[1]}${item[2]}`) - marker;
      lists.push(marker + (gap > 4 ? 1 : gap));
    }
    const open = FENCE.exec(line);
    if (!open) {
      prose.push(line);
      blockStart = HEADING.test(line);
      continue;
    }
    flush();
    const mark = open[1] as string;
    // the block ends at a fence of the same character at least as long (with nothing after it), else at the text's end
    const closing = new RegExp(`^ {0,3}${mark[0] === '`' ? '`' : '~'}{${mark.length},}[ \\t]*$`);
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end] as string)) end++;
    out.push(...lines.slice(i, end + 1));
    i = end;
    blockStart = true;
  }
  flush();
  return out.join('\n');
}
