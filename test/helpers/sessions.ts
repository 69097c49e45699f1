/** Small building blocks the tests' hand-made sessions share. */

/** A 1×1 PNG, base64: a real image every agent and encoder accepts, small enough to inline. */
export const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The ISO time `second` seconds into 2026 (UTC): distinct, ordered timestamps for hand-made entries. */
export function secondInto2026(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
}
