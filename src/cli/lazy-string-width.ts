/**
 * string-width, loaded when a text that is not all printable ASCII is first measured: at load it
 * builds a grapheme segmenter and the emoji regular expression (≈ 30 ms of CPU, a tenth of
 * `threadbase sessions`), which a listing of ASCII ids and titles never uses. Node from 20.19 and
 * 22.12 loads the ES module synchronously (require); an older one loads it at start-up, as before.
 */
import { createRequire } from 'node:module';

type StringWidth = (text: string) => number;

let loaded: StringWidth | undefined = process.features.require_module ? undefined : (await import('string-width')).default;

/** string-width's own first answer: printable ASCII takes one column a character. */
const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/;

/** The columns `text` takes in a terminal (string-width). */
export function stringWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  loaded ??= (createRequire(import.meta.url)('string-width') as { default: StringWidth }).default;
  return loaded(text);
}
