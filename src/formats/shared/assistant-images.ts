/**
 * An image an assistant made (codex's image generation) written into an agent whose assistant messages
 * hold no images (pi, OpenCode) or whose API refuses them there (Claude Code: the Messages API takes
 * images only in user turns): a text note the agent sends in its place, the image kept beside it in a
 * `threadbase` field the agent ignores (pi, OpenCode: on the note; Claude Code: on the record, since it
 * sends a content block's every field), and read back from there as the image.
 */
import type { ImagePart, Message } from '../../model/types.js';

/** The text such an image is sent as. */
export function assistantImageNote(p: ImagePart): string {
  return `[image made by the assistant (${p.mediaType}); kept by threadbase, not sent]`;
}

/** The image kept beside a note (`threadbase.image`; Claude Code's `threadbase.parts[].image`), if that is one. */
export function keptAssistantImage(threadbase: unknown): ImagePart | undefined {
  const v = typeof threadbase === 'object' && threadbase !== null ? (threadbase as { image?: unknown }).image : undefined;
  return typeof v === 'object' &&
    v !== null &&
    (v as { type?: unknown }).type === 'image' &&
    typeof (v as ImagePart).mediaType === 'string'
    ? (v as ImagePart)
    : undefined;
}

/** An assistant message as the agent sends it: each image it holds as its note. */
export function withAssistantImageNotes(m: Message): Message {
  if (m.role !== 'assistant' || !m.parts.some((p) => p.type === 'image')) return m;
  return { ...m, parts: m.parts.map((p) => (p.type === 'image' ? { type: 'text', text: assistantImageNote(p) } : p)) };
}
