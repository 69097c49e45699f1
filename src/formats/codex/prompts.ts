/**
 * The prompts of a codex thread as codex itself takes them for its title and first user message (codex-rs state
 * extract.rs): its `user_message` events and (codex's paginated threads) its UserMessage items, never the user
 * message items of the model's history (codex's own injected context, another agent's notices written in a
 * user's place, which get no event: driver.ts isTypedPrompt).
 */
import type { Entry } from '../../model/types.js';
import { isObject, str } from './items.js';

/** What codex puts before a prompt's text in a `user_message` event (codex-rs protocol USER_MESSAGE_BEGIN). */
const USER_MESSAGE_BEGIN = '## My request for Codex:';

/** A `user_message` event's text as codex takes it for a title: after USER_MESSAGE_BEGIN, trimmed. */
function promptText(message: string): string {
  const at = message.indexOf(USER_MESSAGE_BEGIN);
  return (at >= 0 ? message.slice(at + USER_MESSAGE_BEGIN.length) : message).trim();
}

/** A prompt's text and whether it had images, from its `user_message` event or (codex 0.169's paginated threads) its UserMessage item. */
function promptOf(e: Entry): { text: string; images: boolean } | undefined {
  if (e.kind !== 'metadata' || !isObject(e.data)) return undefined;
  const data = e.data;
  if (e.type === 'event_msg:user_message') {
    const listed = (k: string) => Array.isArray(data[k]) && (data[k] as unknown[]).length > 0;
    return { text: str(data.message) ?? '', images: listed('images') || listed('local_images') };
  }
  const item = data.item;
  if (e.type !== 'event_msg:item_completed' || !isObject(item) || item.type !== 'UserMessage' || !Array.isArray(item.content))
    return undefined;
  const parts = item.content.filter(isObject);
  return {
    text: parts.map((c) => (c.type === 'text' ? (str(c.text) ?? '') : '')).join(''),
    images: parts.some((c) => c.type === 'image' || c.type === 'local_image'),
  };
}

/**
 * The thread's title and first user message as codex derives them (codex-rs state extract.rs): from its
 * prompts only (`user_message` events, UserMessage items), never from the user message items of the model's
 * history (codex's own injected context, another agent's notices written in a user's place: driver.ts
 * isTypedPrompt). The title is the first non-empty text; the first user message is that text, or "[Image]"
 * for a prompt of images only.
 */
export function firstUserMessage(path: readonly Entry[]): { title: string; preview: string } {
  let title = '';
  let preview = '';
  for (const e of path) {
    const prompt = promptOf(e);
    if (!prompt) continue;
    const text = promptText(prompt.text);
    if (!preview) preview = text || (prompt.images ? '[Image]' : '');
    if (!title) title = text;
    if (title && preview) break;
  }
  return { title, preview };
}
