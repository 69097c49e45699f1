/**
 * A session threadbase wrote into an agent's store records so (each format where its agent leaves an
 * extra field alone), and its reader gives it back as SessionInfo.writtenBy: of a response's copies
 * in sessions that started at the same time, the original's counts (src/model/copies.ts).
 */
export const WRITTEN_BY = 'threadbase' as const;

/** `{ writtenBy: 'threadbase' }` when `mark` is threadbase's mark, else nothing: spread into a session read. */
export function writtenByOf(mark: unknown): { writtenBy?: typeof WRITTEN_BY } {
  return mark === WRITTEN_BY ? { writtenBy: WRITTEN_BY } : {};
}
