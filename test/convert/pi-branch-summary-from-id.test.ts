/**
 * A pi branch summary's fromId through another agent and back into pi (temp HOME). pi writes the entry
 * it branched from there (SessionManager.branchWithSummary: `fromId: branchFromId ?? "root"`, the
 * summary's parent); the model's fromId is the abandoned branch's leaf, which a file may name in pi's
 * field (threadbase before, pi's session-format doc) or threadbase keeps beside it. Either way the
 * session read back from pi has the same branch_summary entries, and the record pi reads is pi's own
 * shape (fromId = its parent).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { BranchSummaryEntry, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { withDriver } from '../helpers/conversions.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { PI_BRANCH_SUMMARY_TEXT, writePiBranchSummaryFile } from '../helpers/pi-branch-summary.js';

let home: string;
let env: DriverEnv;
let project: string;

beforeAll(async () => {
  // OpenCode creates its schema on first run; its fixture database (one it made) stands in for that run.
  ({ home } = await fixtureHome({ prefix: 'tb-pi-from-id-', fixtures: ['opencode'] }));
  project = join(home, 'p');
  mkdirSync(project, { recursive: true });
  env = { home, env: {} };
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The pi file of test/helpers/pi-branch-summary.ts, its branch summary naming `summaryFromId` in pi's field. */
const piFile = (id: string, summaryFromId: string): string =>
  writePiBranchSummaryFile({ home, project, id, hour: 2 }, { fromId: summaryFromId });

const summariesOf = (s: Session | undefined) =>
  (s?.entries ?? [])
    .filter((e): e is BranchSummaryEntry => e.kind === 'branch_summary')
    .map(({ summary, fromId }) => ({ summary, ...(fromId !== undefined ? { fromId } : {}) }));

/** The branch_summary records of the pi file a written session is in. */
const summaryRecordsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.type === 'branch_summary');

const CASES = [
  // pi's own: fromId is the entry branched from; the model has no abandoned leaf for it
  { name: 'as pi writes it (fromId: the parent)', id: '0b7e1a2c-0000-4000-8000-000000000001', fromId: 'a1000001' },
  // the abandoned leaf in pi's field (threadbase before; pi's session-format doc shows one)
  { name: 'naming the abandoned leaf', id: '0b7e1a2c-0000-4000-8000-000000000002', fromId: 'al000001' },
] as const;

describe("pi's branch summary through another agent and back into pi", () => {
  for (const c of CASES)
    for (const via of ['claude', 'opencode', 'codex'] as const)
      it(`${c.name}, via ${via}: the same branch_summary entries, pi's fromId its parent`, async () => {
        piFile(c.id, c.fromId);
        const original = await withDriver(env, 'pi', (d) => d.getSession(c.id));
        const expected = summariesOf(original);
        expect(expected).toEqual([
          {
            summary: PI_BRANCH_SUMMARY_TEXT,
            ...(c.fromId === 'al000001' ? { fromId: 'al000001' } : {}),
          },
        ]);

        const [there] = await convertSessionAll(original as Session, { to: via, env });
        const read = await withDriver(env, via, (d) => d.getSession(there?.id as string));
        const [back] = await convertSessionAll(read as Session, { to: 'pi', env });
        const again = await withDriver(env, 'pi', (d) => d.getSession(back?.id as string));
        expect(summariesOf(again)).toEqual(expected);

        // the record is pi's own shape: fromId the entry branched from (its parent)
        const [record] = summaryRecordsOf(back?.path as string);
        expect(record?.fromId).toBe(record?.parentId);
      });
});
