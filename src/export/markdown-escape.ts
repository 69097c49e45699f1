/**
 * Text written into a Markdown export as it reads: a Markdown renderer takes a raw tag in it
 * (`<system-reminder>`, `<div>`) for HTML and swallows or renders it, and an entity (`&amp;`) for the
 * character it names. Outside code (fenced blocks and inline code spans, which a renderer shows
 * verbatim) `<` and the `&` of an entity are escaped; the Markdown itself (emphasis, lists, links)
 * is left to render.
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

/** `text` as Markdown that shows it as written: HTML outside code escaped, code blocks and spans verbatim. */
export function markdownText(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
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
    const open = FENCE.exec(lines[i] as string);
    if (!open) {
      prose.push(lines[i] as string);
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
  }
  flush();
  return out.join('\n');
}
