/**
 * Whether an image's recorded data is one a browser can show, judged from the data as a browser
 * judges it: its bytes (their signature) say what it is, not the media type recorded with it, and data
 * that is not base64, empty, of no image kind, or cut short before its picture starts is none. The
 * Markdown export and the context's Markdown (convert/markdown.ts) write such an image as words saying
 * what it was, not as an image that shows broken; the HTML page (imageHtml) and the web viewer say it
 * in the same words.
 *
 * The viewer is served imageData's and recordedImage's own code as its asset `image-data.js`
 * (functionModule, src/server/web/index.ts), so both must stay self-contained: no imports, nothing
 * from outside their bodies but recordedImage's imageData, and nothing only Node has (no Buffer).
 */

export type ImageData = { ok: true; mediaType: string; data: string } | { ok: false; said: string };

/** The image of `mediaType` whose data is `base64`: as a browser would show it (its kind by its bytes), or what it was in words. */
export function imageData(mediaType: string, base64: string): ImageData {
  const was = (what: string): ImageData => ({
    ok: false,
    said: `[image: ${mediaType || 'no media type'}, ${what}, could not be read]`,
  });
  // forgiving base64 (the WHATWG form a data: URL is decoded by): whitespace dropped, padding optional
  const data = base64.replace(/[\t\n\f\r ]+/g, '');
  const bare = data.length % 4 === 0 ? data.replace(/={1,2}$/, '') : data;
  if (bare.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(bare))
    return was(`${base64.length.toLocaleString('en-US')} characters of data that is not base64`);
  const binary = atob(bare);
  const b = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) b[i] = binary.charCodeAt(i);
  const size = `${b.length.toLocaleString('en-US')} bytes`;
  if (!b.length) return was(size);

  const startsWith = (sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);
  const ascii = (at: number, s: string) => [...s].every((c, i) => b[at + i] === c.charCodeAt(0));
  const u32be = (at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
  const u32le = (at: number) => ((b[at + 3] << 24) | (b[at + 2] << 16) | (b[at + 1] << 8) | b[at]) >>> 0;
  /** A PNG's chunks from the signature on reach its image data (IDAT): a browser shows what it has of it. */
  const pngHasPicture = () => {
    for (let at = 8; at + 8 <= b.length; at += 12 + u32be(at)) if (ascii(at + 4, 'IDAT')) return true;
    return false;
  };
  /** The image kind its bytes are, if it has enough of them to show; undefined: no image, or cut short. */
  const sniff = (): { mediaType: string; whole: boolean } | undefined => {
    if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mediaType: 'image/png', whole: pngHasPicture() };
    // a JPEG's picture starts at its start-of-scan marker
    if (startsWith([0xff, 0xd8, 0xff])) {
      let sos = b.indexOf(0xff);
      while (sos >= 0 && b[sos + 1] !== 0xda) sos = b.indexOf(0xff, sos + 1);
      return { mediaType: 'image/jpeg', whole: sos >= 0 };
    }
    // a GIF's at its first image descriptor, past the 13-byte header
    if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return { mediaType: 'image/gif', whole: b.indexOf(0x2c, 13) > 0 };
    // a WebP is all there when its RIFF size is
    if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return { mediaType: 'image/webp', whole: b.length >= 8 + u32le(4) };
    if (ascii(4, 'ftypavif') || ascii(4, 'ftypavis')) return { mediaType: 'image/avif', whole: true };
    if (ascii(0, 'BM')) return { mediaType: 'image/bmp', whole: b.length > 26 };
    if (startsWith([0, 0, 1, 0])) return { mediaType: 'image/x-icon', whole: b.length > 22 };
    const text = new TextDecoder().decode(b).trim();
    if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(text))
      return { mediaType: 'image/svg+xml', whole: /<\/svg>$|^[^>]*\/>$/i.test(text) };
    return undefined;
  };

  const kind = sniff();
  if (!kind) return was(`${size} of no image kind known`);
  if (!kind.whole) return was(`${size}, cut short`);
  return { ok: true, mediaType: kind.mediaType, data };
}

/**
 * The image an image part records (imageData): its data, else a base64 data: URL's, else none (no data
 * and no address: 0 bytes); undefined for an image by its address, which is left to it.
 */
export function recordedImage(p: { mediaType: string; data?: string; url?: string }): ImageData | undefined {
  if (p.data !== undefined) return imageData(p.mediaType, p.data);
  // a base64 data: URL: its media type and its data
  const url = p.url ? /^data:([^,;]*)(?:;[^,;]*)*;base64,(.*)$/is.exec(p.url) : undefined;
  if (p.url && !url) return undefined;
  return url ? imageData(url[1] || p.mediaType, url[2] as string) : imageData(p.mediaType, '');
}
