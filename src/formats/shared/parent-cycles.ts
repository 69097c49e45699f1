/**
 * Parent cycles in an agent's records (a damaged or hand-edited file; pi would loop forever on one,
 * Qwen Code stops its walk at one): each is cut at its member latest in the file, which becomes a
 * root, with a warning naming its line, so every later step sees a tree.
 */
import type { Entry, ParseWarning } from '../../model/types.js';

export interface CycleCutPlace {
  file: string;
  lineOf: ReadonlyMap<string, number>;
  warnings: ParseWarning[];
  /** the record's field of the parent link, as the warning names it (parentId, parentUuid) */
  link: string;
}

/**
 * Cuts every parent cycle of `entries` (mutated: the cut entry's parentId becomes null). An entry whose
 * parent is no entry here ends the walk from it, told to `missingParent` when given.
 */
export function cutParentCycles(entries: Entry[], place: CycleCutPlace, missingParent?: (child: Entry) => void): void {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const order = new Map(entries.map((e, i) => [e.id, i]));
  const done = new Set<string>();
  for (const start of entries) {
    const onPath: Entry[] = [];
    // each id's place on the path: a walk up a long chain stays linear
    const placeOnPath = new Map<string, number>();
    let cur: Entry | undefined = start;
    while (cur && !done.has(cur.id)) {
      const at = placeOnPath.get(cur.id);
      if (at !== undefined) {
        const cycle = onPath.slice(at);
        const cut = cycle.reduce((a, b) => ((order.get(a.id) ?? 0) >= (order.get(b.id) ?? 0) ? a : b));
        place.warnings.push({
          file: place.file,
          line: place.lineOf.get(cut.id),
          id: cut.id,
          message: `${place.link} cycle (${cycle.map((e) => e.id).join(' → ')}); ${cut.id} made a root`,
        });
        cut.parentId = null;
        break;
      }
      placeOnPath.set(cur.id, onPath.length);
      onPath.push(cur);
      if (cur.parentId === null) break;
      const parent = byId.get(cur.parentId);
      if (!parent) {
        missingParent?.(cur);
        break;
      }
      cur = parent;
    }
    for (const e of onPath) done.add(e.id);
  }
}
