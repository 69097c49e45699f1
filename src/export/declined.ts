/**
 * A tool result marked refused or cancelled (convert/declined.ts, declinedMarkOf): the call did not
 * run, which the HTML page, the Markdown and the viewer show as that, not as a call that failed.
 * The viewer gets this function as its asset `declined.js` (server/web/index.ts), so the words are
 * kept once.
 */
/** What the mark means, said after it ("refused: …"). */
export function declinedWords(mark: 'refused' | 'cancelled'): string {
  return mark === 'refused'
    ? 'by the user or their permission rules, the call did not run'
    : 'interrupted, or dropped with a refused call, the call did not run';
}
