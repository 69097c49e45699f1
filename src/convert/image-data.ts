/**
 * Whether an image's recorded data is one a browser can show, judged from the data as a browser
 * judges it: its bytes (their signature) say what it is, not the media type recorded with it, and data
 * that is not base64, empty, of no image kind, or cut short before its picture starts is none. The
 * Markdown export and the context's Markdown (convert/markdown.ts) write such an image as words saying
 * what it was, not as an image that shows broken (the HTML page replaces one the browser fails to
 * decode: imageHtml).
 */

export type ImageData = { ok: true; mediaType: string; data: string } | { ok: false; said: string };

/** Forgiving base64 (the WHATWG form a data: URL is decoded by): whitespace dropped, padding optional. */
function base64Bytes(text: string): { data: string; bytes: Buffer } | undefined {
  const data = text.replace(/[\t\n\f\r ]+/g, '');
  const bare = data.length % 4 === 0 ? data.replace(/={1,2}$/, '') : data;
  if (bare.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(bare)) return undefined;
  return { data, bytes: Buffer.from(bare, 'base64') };
}

const startsWith = (b: Buffer, sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);
const ascii = (b: Buffer, at: number, s: string) => b.toString('latin1', at, at + s.length) === s;

/** A PNG's chunks from the signature on reach its image data (IDAT): a browser shows what it has of it. */
function pngHasPicture(b: Buffer): boolean {
  for (let at = 8; at + 8 <= b.length; at += 12 + b.readUInt32BE(at)) if (ascii(b, at + 4, 'IDAT')) return true;
  return false;
}

/** The image kind its bytes are, if it has enough of them to show; undefined: no image, or cut short. */
function sniff(b: Buffer): { mediaType: string; whole: boolean } | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mediaType: 'image/png', whole: pngHasPicture(b) };
  // a JPEG's picture starts at its start-of-scan marker
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { mediaType: 'image/jpeg', whole: b.includes(Buffer.from([0xff, 0xda])) };
  // a GIF's at its first image descriptor, past the 13-byte header
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return { mediaType: 'image/gif', whole: b.indexOf(0x2c, 13) > 0 };
  // a WebP is all there when its RIFF size is
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return { mediaType: 'image/webp', whole: b.length >= 8 + b.readUInt32LE(4) };
  if (ascii(b, 4, 'ftypavif') || ascii(b, 4, 'ftypavis')) return { mediaType: 'image/avif', whole: true };
  if (ascii(b, 0, 'BM')) return { mediaType: 'image/bmp', whole: b.length > 26 };
  if (startsWith(b, [0, 0, 1, 0])) return { mediaType: 'image/x-icon', whole: b.length > 22 };
  const text = b.toString('utf8').trim();
  if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(text))
    return { mediaType: 'image/svg+xml', whole: /<\/svg>$|^[^>]*\/>$/i.test(text) };
  return undefined;
}

/** The image of `mediaType` whose data is `base64`: as a browser would show it (its kind by its bytes), or what it was in words. */
export function imageData(mediaType: string, base64: string): ImageData {
  const decoded = base64Bytes(base64);
  const was = (what: string) => ({
    ok: false as const,
    said: `[image: ${mediaType || 'no media type'}, ${what}, could not be read]`,
  });
  if (!decoded) return was(`${base64.length.toLocaleString('en-US')} characters of data that is not base64`);
  const size = `${decoded.bytes.length.toLocaleString('en-US')} bytes`;
  if (!decoded.bytes.length) return was(size);
  const kind = sniff(decoded.bytes);
  if (!kind) return was(`${size} of no image kind known`);
  if (!kind.whole) return was(`${size}, cut short`);
  return { ok: true, mediaType: kind.mediaType, data: decoded.data };
}

/** A base64 data: URL: its media type and its data. */
const BASE64_URL = /^data:([^,;]*)(?:;[^,;]*)*;base64,(.*)$/is;

/**
 * The image an image part records (imageData): its data, else a base64 data: URL's, else none (no data
 * and no address: 0 bytes); undefined for an image by its address, which is left to it.
 */
export function recordedImage(p: { mediaType: string; data?: string; url?: string }): ImageData | undefined {
  if (p.data !== undefined) return imageData(p.mediaType, p.data);
  const url = p.url ? BASE64_URL.exec(p.url) : undefined;
  if (p.url && !url) return undefined;
  return url ? imageData(url[1] || p.mediaType, url[2] as string) : imageData(p.mediaType, '');
}
