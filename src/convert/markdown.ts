/** A readable Markdown rendering of messages (the `markdown` context format and `export --format md`). */
import type { Context } from '../model/tree.js';
import type { Message, Part, ToolResultPart } from '../model/types.js';
import { declinedMarkOf, declinedWords } from './declined.js';
import { recordedImage } from './image-data.js';
import { isProviderExecuted, PROVIDER_RAN } from './provider-tools.js';

/**
 * A heading's, a list item's or a fold summary's text on one line: its lines trimmed, a space apart
 * (spaces within a line kept as written; the CLI's oneLine also folds them for a terminal).
 */
export const linesJoined = (text: string) =>
  text
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');

/**
 * A name as written, on one line, inside a line of Markdown (a file's name, a tool call's id, a
 * session's id or project): what would start inline Markdown in it backslash-escaped (CommonMark: an
 * escaped punctuation character shows as itself), so `a*b_[c].md` is no emphasis or link, a backtick
 * opens no code span, `<` no tag and `&` no entity. `_` within a word (toolu_01…) can neither open nor
 * close emphasis and stays as it is. Names, not prose: markdownText leaves the Markdown of a text to render.
 */
export const markdownLiteral = (text: string) =>
  linesJoined(text).replace(/[\\`*[\]<&~|]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&');

/** A fenced code block showing `text` as written: a fence longer than any backtick run in it; its last line break is the fence's. */
export function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

/**
 * Inline code showing `text` as written, by CommonMark's code span rules: fenced by one backtick more
 * than its longest run of them, and padded with a space where it starts or ends with a backtick (which
 * would join the fence) or with a space at both ends (which a renderer strips, one each side). Line
 * breaks are spaces, as a renderer reads them in a span (a blank line would end the paragraph).
 */
export function codeSpan(text: string): string {
  const flat = text.replace(/\r\n?|\n/g, ' ');
  const ticks = '`'.repeat(Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  const pad = flat === '' || /^`|`$/.test(flat) || (/^ .* $/.test(flat) && /[^ ]/.test(flat)) ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/**
 * A result's head: a refused or cancelled call said so in the words the export and viewer use (it did
 * not run), not as a failed one; its call's id as written (markdownLiteral: an id with a backtick or
 * `*` broke the Markdown), as names are below.
 */
export function resultHeadMarkdown(r: ToolResultPart): string {
  const mark = declinedMarkOf(r);
  return `**tool result** (${markdownLiteral(r.callId)})${mark ? ` — **${mark}** (${declinedWords(mark)})` : r.isError ? ' — error' : ''}`;
}

/** The image as shown (by its address when it has one) said in words when no browser can show its data (imageData). */
function damagedImage(p: Extract<Part, { type: 'image' }>): string | undefined {
  const image = recordedImage(p.url ? { mediaType: p.mediaType, url: p.url } : p);
  return image && !image.ok ? image.said : undefined;
}

export function partToMarkdown(p: Part): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'thinking':
      return `<details><summary>thinking</summary>\n\n${p.thinking}\n\n</details>`;
    case 'redacted_thinking':
      return '_(redacted thinking)_';
    case 'image':
      return damagedImage(p) ?? (p.url ? `![image](${p.url})` : `![image](data:${p.mediaType};base64,${p.data ?? ''})`);
    case 'file':
      return `📎 ${markdownLiteral(p.name ?? 'file')} (${markdownLiteral(p.mediaType)})${p.text ? `\n\n${fence(p.text)}` : ''}`;
    case 'tool_call':
      return `**tool call** ${codeSpan(p.name)} (${markdownLiteral(p.id)})${isProviderExecuted(p) ? ` — ${PROVIDER_RAN}` : ''}\n\n${fence(JSON.stringify(p.input, null, 2), 'json')}`;
    case 'tool_result': {
      const body =
        typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      return `${resultHeadMarkdown(p)}\n\n${fence(body)}`;
    }
  }
}

export function messageToMarkdown(m: Message): string {
  const who = m.role === 'assistant' && m.model ? `assistant (${markdownLiteral(m.model)})` : m.role;
  const body = m.parts.map(partToMarkdown).join('\n\n');
  return `## ${who}\n\n${body}${m.error ? `\n\n> error: ${m.error}` : ''}\n`;
}

export function contextToMarkdown(ctx: Context): string {
  const head = ctx.system ? `## system\n\n${ctx.system}\n\n` : '';
  return head + ctx.messages.map(messageToMarkdown).join('\n');
}
