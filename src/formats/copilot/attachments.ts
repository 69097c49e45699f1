/**
 * A user's file attached by its bytes (`{type: 'blob', mimeType, data, displayName}`), as Copilot CLI 1.0.102
 * sends it on resume (seen with the real binary against the stand-in, test/agents/copilot-attachments.test.ts):
 * a PDF as a text of its name (`displayName`, else `attached-<n>.pdf`, n its place among the message's
 * attachments from 1), a text (`text/*`, `application/json`) as `<attachment mimeType="…" name="…">` around
 * its decoded text (name `Attached text` when it has none), `application/octet-stream` and `application/xml`
 * not at all; an image is read and sent as an image (events.ts, context.ts).
 */
import type { FilePart, Part } from '../../model/types.js';

/** Where the reader keeps a nameless attachment's place among its message's attachments (from 1). */
export const ATTACHMENT_PLACE = 'copilotAttachment';

const isText = (mediaType: string) => mediaType.startsWith('text/') || mediaType === 'application/json';

/** Whether Copilot CLI sends a file attached by its bytes in a way this module knows (so threadbase writes such a file so). */
export function sentAttachmentKind(mediaType: string): 'pdf' | 'text' | 'none' | undefined {
  if (mediaType === 'application/pdf') return 'pdf';
  if (isText(mediaType)) return 'text';
  if (mediaType === 'application/octet-stream' || mediaType === 'application/xml') return 'none';
  return undefined;
}

/** The parts Copilot CLI sends for a file part read from a blob attachment; undefined when this module does not know. */
export function sentAttachment(p: FilePart): Part[] | undefined {
  if (p.data === undefined) return undefined;
  const kind = sentAttachmentKind(p.mediaType);
  if (kind === 'none') return [];
  const place = p.meta?.[ATTACHMENT_PLACE];
  if (kind === 'pdf') {
    const name = p.name ?? (typeof place === 'number' ? `attached-${place}.pdf` : undefined);
    return name === undefined ? undefined : [{ type: 'text', text: name }];
  }
  if (kind === 'text') {
    const text = Buffer.from(p.data, 'base64').toString('utf8');
    return [
      {
        type: 'text',
        text: `<attachment mimeType="${p.mediaType}" name="${p.name ?? 'Attached text'}">\n${text}\n</attachment>`,
      },
    ];
  }
  return undefined;
}
