/**
 * Text columns read back as they were written. better-sqlite3 writes a JavaScript string with a lone
 * UTF-16 surrogate (an agent may write "\ud800" in a JSON string) as that surrogate's three UTF-8 bytes
 * (ED A0 80, "WTF-8"), but reads such bytes back as U+FFFD. The JSON columns keep a surrogate as a
 * `\ud800` escape and need none of this; a column read as text (a project, a model, a stats key) is
 * selected as a BLOB (`CAST(x AS BLOB)`) and decoded here, surrogates kept.
 */

/** `CAST(<expr> AS BLOB)`: the column's bytes, for textOfColumn. */
export function asBytes(expr: string): string {
  return `CAST(${expr} AS BLOB)`;
}

/** The string a column selected with asBytes held: its UTF-8 bytes decoded, lone surrogates kept. */
export function textOfColumn(bytes: Uint8Array | string): string;
export function textOfColumn(bytes: Uint8Array | string | null): string | null;
export function textOfColumn(bytes: Uint8Array | string | null | undefined): string | null | undefined;
export function textOfColumn(bytes: Uint8Array | string | null | undefined): string | null | undefined {
  if (bytes === null || bytes === undefined || typeof bytes === 'string') return bytes;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // only a surrogate's first byte (ED, then A0-BF) needs the slow path
  if (!hasEncodedSurrogate(buf)) return buf.toString('utf8');
  return decodeKeepingSurrogates(buf);
}

function hasEncodedSurrogate(b: Uint8Array): boolean {
  for (let i = b.indexOf(0xed); i >= 0 && i < b.length - 1; i = b.indexOf(0xed, i + 1)) {
    const next = b[i + 1] as number;
    if (next >= 0xa0 && next <= 0xbf) return true;
  }
  return false;
}

/** UTF-8 decoding that takes an encoded surrogate (ED A0-BF xx) for its code unit; other bad bytes are U+FFFD. */
function decodeKeepingSurrogates(b: Uint8Array): string {
  const units: number[] = [];
  let out = '';
  const cont = (i: number) => {
    const x = b[i];
    return x !== undefined && (x & 0xc0) === 0x80 ? x & 0x3f : -1;
  };
  for (let i = 0; i < b.length; ) {
    const x = b[i] as number;
    let cp = 0xfffd;
    let n = 1;
    if (x < 0x80) cp = x;
    else if (x >= 0xc2 && x < 0xe0 && cont(i + 1) >= 0) {
      cp = ((x & 0x1f) << 6) | cont(i + 1);
      n = 2;
    } else if (x >= 0xe0 && x < 0xf0 && cont(i + 1) >= 0 && cont(i + 2) >= 0) {
      const c = ((x & 0x0f) << 12) | (cont(i + 1) << 6) | cont(i + 2);
      if (c >= 0x800) {
        cp = c;
        n = 3;
      }
    } else if (x >= 0xf0 && x < 0xf5 && cont(i + 1) >= 0 && cont(i + 2) >= 0 && cont(i + 3) >= 0) {
      const c = ((x & 0x07) << 18) | (cont(i + 1) << 12) | (cont(i + 2) << 6) | cont(i + 3);
      if (c >= 0x10000 && c <= 0x10ffff) {
        cp = c;
        n = 4;
      }
    }
    if (cp >= 0x10000) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    else units.push(cp);
    i += n;
    if (units.length >= 4096) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return out + String.fromCharCode(...units);
}
