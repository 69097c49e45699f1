/** A readable Markdown rendering of messages (the `markdown` context format and `export --format md`). */
import type { Context } from '../model/tree.js';
import type { Message, Part } from '../model/types.js';
import { isProviderExecuted, PROVIDER_RAN } from './provider-tools.js';

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
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
      return p.url ? `![image](${p.url})` : `![image](data:${p.mediaType};base64,${p.data ?? ''})`;
    case 'file':
      return `📎 ${p.name ?? 'file'} (${p.mediaType})${p.text ? `\n\n${fence(p.text)}` : ''}`;
    case 'tool_call':
      return `**tool call** \`${p.name}\` (${p.id})${isProviderExecuted(p) ? ` — ${PROVIDER_RAN}` : ''}\n\n${fence(JSON.stringify(p.input, null, 2), 'json')}`;
    case 'tool_result': {
      const body =
        typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      return `**tool result** (${p.callId})${p.isError ? ' — error' : ''}\n\n${fence(body)}`;
    }
  }
}

export function messageToMarkdown(m: Message): string {
  const who = m.role === 'assistant' && m.model ? `assistant (${m.model})` : m.role;
  const body = m.parts.map(partToMarkdown).join('\n\n');
  return `## ${who}\n\n${body}${m.error ? `\n\n> error: ${m.error}` : ''}\n`;
}

export function contextToMarkdown(ctx: Context): string {
  const head = ctx.system ? `## system\n\n${ctx.system}\n\n` : '';
  return head + ctx.messages.map(messageToMarkdown).join('\n');
}
