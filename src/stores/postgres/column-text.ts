/** Strings as PostgreSQL's text columns hold them. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A string as a text column can hold it: PostgreSQL text has no NUL, and UTF-8 no unpaired surrogate
 * (the driver would send U+FFFD for it). The exact value stays in the JSON text of the body or info.
 */
export function columnText(s: string): string {
  return s.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}
