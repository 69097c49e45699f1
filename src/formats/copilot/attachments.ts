/**
 * A user's file or image attached by its bytes (`{type: 'blob', mimeType, data, displayName}`), as Copilot CLI
 * 1.0.102 sends it on resume (seen with the real binary against the stand-in, test/agents/copilot-attachments.test.ts;
 * its media type lower-cased and without parameters, `Text/Plain; charset=utf-8` as `text/plain`):
 * - a document (PDF, Word, Excel, PowerPoint, RTF, OpenDocument text) as a text of its name (`displayName`, else
 *   `attached-<n>.<ext>`, n its place among the message's attachments from 1);
 * - a text (`text/*`, JSON, YAML, JavaScript, TypeScript) as `<attachment mimeType="…" name="…">` around its
 *   decoded text (name `Attached text` when it has none), `&`, `<`, `>` escaped in both, `"` in the name too;
 * - a PNG, JPEG (`image/jpg` sent as `image/jpeg`), GIF or WebP image as a text of its name (`Attached image`
 *   without one), then the image; another image (BMP, TIFF, AVIF, HEIC, icon) as that text and
 *   `[<type> omitted: the model reads PNG, JPEG, WebP and GIF images only]`; an SVG, or an image whose media type
 *   is not lower case (`image/JPEG`), not at all;
 * - anything else (XML, CSV as `application/csv`, a shell script, Python, TOML, SQL, NDJSON, JSON-LD, zip, binary,
 *   OpenDocument spreadsheets and presentations, EPUB) not at all.
 */
import type { FilePart, ImagePart, Part } from '../../model/types.js';

/** Where the reader keeps a nameless attachment's place among its message's attachments (from 1). */
export const ATTACHMENT_PLACE = 'copilotAttachment';
/** Where the reader keeps an attached image's `displayName` (an image part has no name of its own). */
export const IMAGE_NAME = 'copilotImageName';

/** A media type as Copilot CLI names it when it sends the attachment: lower case, no parameters. */
const normal = (mediaType: string) => (mediaType.split(';')[0] ?? '').trim().toLowerCase();

/** The documents Copilot CLI sends as their name, with the extension it names a nameless one by. */
const DOCUMENTS: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/rtf': 'rtf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.oasis.opendocument.text': 'odt',
};
/** The application/* types it sends as text, beside text/*. */
const TEXT_APPLICATIONS = new Set([
  'application/json',
  'application/yaml',
  'application/x-yaml',
  'application/javascript',
  'application/typescript',
]);
/** The images the model reads, as Copilot CLI sends their media type. */
const MODEL_IMAGES: Record<string, string> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
};

/** How Copilot CLI sends a file attached by its bytes: its name, its text, or nothing. */
export function sentAttachmentKind(mediaType: string): 'document' | 'text' | 'none' {
  const type = normal(mediaType);
  if (DOCUMENTS[type]) return 'document';
  if (type.startsWith('text/') || TEXT_APPLICATIONS.has(type)) return 'text';
  return 'none';
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The parts Copilot CLI sends for a file part read from a blob attachment; undefined when this module does not know. */
export function sentAttachment(p: FilePart): Part[] | undefined {
  if (p.data === undefined) return undefined;
  const kind = sentAttachmentKind(p.mediaType);
  if (kind === 'none') return [];
  const place = p.meta?.[ATTACHMENT_PLACE];
  if (kind === 'document') {
    const name = p.name ?? (typeof place === 'number' ? `attached-${place}.${DOCUMENTS[normal(p.mediaType)]}` : undefined);
    return name === undefined ? undefined : [{ type: 'text', text: name }];
  }
  const text = escapeText(Buffer.from(p.data, 'base64').toString('utf8'));
  const name = escapeText(p.name ?? 'Attached text').replace(/"/g, '&quot;');
  return [{ type: 'text', text: `<attachment mimeType="${normal(p.mediaType)}" name="${name}">\n${text}\n</attachment>` }];
}

/** The parts Copilot CLI sends for an image in a user's message (an attached blob). */
export function sentImage(p: ImagePart): Part[] {
  const name = typeof p.meta?.[IMAGE_NAME] === 'string' ? (p.meta[IMAGE_NAME] as string) : 'Attached image';
  if (p.data === undefined) return [{ type: 'text', text: name }, p];
  const type = normal(p.mediaType);
  if (p.mediaType !== p.mediaType.toLowerCase() || type === 'image/svg+xml') return [];
  const sent = MODEL_IMAGES[type];
  if (!sent) return [{ type: 'text', text: `${name}\n[${type} omitted: the model reads PNG, JPEG, WebP and GIF images only]` }];
  return [{ type: 'text', text: name }, sent === p.mediaType ? p : { ...p, mediaType: sent }];
}

/** Whether Copilot CLI sends an image of this media type as an image (else a note, or nothing). */
export const sentAsImage = (mediaType: string): boolean =>
  mediaType === mediaType.toLowerCase() && MODEL_IMAGES[normal(mediaType)] !== undefined;
