/**
 * A tool call that did not run because the user (or their permission rules) refused it, or that was
 * cancelled (interrupted, or dropped with a refused one): its result part carries `meta.refused: true`
 * or `meta.cancelled: true`. Each format reads its agent's own record of it into the mark and writes
 * the mark back in its agent's own form (CONVERT.md, "Refused and cancelled calls").
 */
import { resultText } from '../model/tree.js';
import type { Entry, ToolResultPart } from '../model/types.js';
import type { LossReport } from './losses.js';

export type DeclinedMark = 'refused' | 'cancelled';

/** The mark of a result, if it has one (refused wins: a refusal is also a cancellation). */
export function declinedMarkOf(p: Pick<ToolResultPart, 'meta'>): DeclinedMark | undefined {
  if (p.meta?.refused === true) return 'refused';
  if (p.meta?.cancelled === true) return 'cancelled';
  return undefined;
}

/**
 * What the mark means, said after it ("refused: …"): the context's Markdown, the export's HTML and
 * Markdown, and the viewer (served as its asset `declined.js`, server/web/index.ts) say it in these
 * words, kept once.
 */
export function declinedWords(mark: DeclinedMark): string {
  return mark === 'refused'
    ? 'by the user or their permission rules, the call did not run'
    : 'interrupted, or dropped with a refused call, the call did not run';
}

/** The result marked (an error: the call did not run), the other mark dropped. */
export function markDeclined(p: ToolResultPart, mark: DeclinedMark): ToolResultPart {
  const { refused: _r, cancelled: _c, ...meta } = p.meta ?? {};
  return { ...p, isError: true, meta: { ...meta, [mark]: true } };
}

/**
 * How many marked results among `entries` a target writes in its own words for them, their own
 * words dropped: those whose words do not already say their mark in the target's terms (`ownMark`).
 */
export function rewordedResults(entries: readonly Entry[], ownMark: (text: string) => DeclinedMark | undefined): number {
  let n = 0;
  for (const e of entries)
    if (e.kind === 'message')
      for (const p of e.message.parts)
        if (p.type === 'tool_result') {
          const mark = declinedMarkOf(p);
          if (mark && ownMark(resultText(p.content)) !== mark) n++;
        }
  return n;
}

/**
 * Says in a conversion's losses how many refused or cancelled results `agent` gets in its own words
 * (rewordedResults); `as` who records (or sends) those words.
 */
export function sayRewordedResults(
  { foreign, say }: Pick<LossReport, 'foreign' | 'say'>,
  agent: string,
  ownMark: (text: string) => DeclinedMark | undefined,
  as = 'it records',
): void {
  say(
    rewordedResults(foreign, ownMark),
    `refused or cancelled calls' results written in ${agent}'s words for them (as ${as} its own); their own words not kept`,
  );
}
