/**
 * A pi branch summary's `details` (an extension's data, not sent to the model) and `fromHook` (an
 * extension wrote it) through every other agent and back into pi (temp HOME): pi's
 * SessionManager.branchWithSummary writes both on the record. Carried in each writer's `threadbase`
 * field beside the user turn it sends the summary as, they come back onto pi's record unchanged.
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
  ({ home } = await fixtureHome({ prefix: 'tb-pi-bs-details-', fixtures: ['opencode'] }));
  project = join(home, 'p');
  mkdirSync(project, { recursive: true });
  env = { home, env: {} };
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

/** What an extension's branch summary carries (pi's own summariser records the files it saw). */
const DETAILS = { readFiles: ['src/a.ts'], modifiedFiles: ['src/b.ts'], nested: { n: 1, ok: true, none: null } };

/** The pi file of test/helpers/pi-branch-summary.ts, its branch summary with these extra fields. */
const piFile = (id: string, extra: Record<string, unknown>): string =>
  writePiBranchSummaryFile({ home, project, id, hour: 3 }, extra);

const summariesOf = (s: Session | undefined) =>
  (s?.entries ?? [])
    .filter((e): e is BranchSummaryEntry => e.kind === 'branch_summary')
    .map(({ summary, fromId, details, fromHook }) => ({ summary, fromId, details, fromHook }));

/** pi's branch_summary records of a file, without the ids a new session gives them anew. */
const summaryRecordsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.type === 'branch_summary')
    .map(({ id: _i, parentId: _p, fromId: _f, ...rest }) => rest);

const CASES = [
  {
    name: 'an extension’s, with details',
    id: '0b7e1a2c-0000-4000-8000-0000000000d1',
    extra: { details: DETAILS, fromHook: true },
  },
  { name: 'pi’s own (fromHook false)', id: '0b7e1a2c-0000-4000-8000-0000000000d2', extra: { fromHook: false } },
] as const;
const VIA = ['claude', 'opencode', 'codex', 'gemini', 'qwen', 'cline'] as const;

describe("pi's branch summary details and fromHook through another agent and back into pi", () => {
  for (const c of CASES)
    for (const via of VIA)
      it(`${c.name}, via ${via}: the same branch_summary records`, async () => {
        const file = piFile(c.id, c.extra);
        const original = await withDriver(env, 'pi', (d) => d.getSession(c.id));
        const expected = summariesOf(original);
        expect(expected).toEqual([
          {
            summary: PI_BRANCH_SUMMARY_TEXT,
            fromId: undefined,
            details: 'details' in c.extra ? DETAILS : undefined,
            fromHook: c.extra.fromHook,
          },
        ]);

        const [there] = await convertSessionAll(original as Session, { to: via, env });
        const read = await withDriver(env, via, (d) => d.getSession(there?.id as string));
        expect(summariesOf(read)).toEqual(expected);
        const [back] = await convertSessionAll(read as Session, { to: 'pi', env });
        const again = await withDriver(env, 'pi', (d) => d.getSession(back?.id as string));
        expect(summariesOf(again)).toEqual(expected);
        expect(summaryRecordsOf(back?.path as string)).toEqual(summaryRecordsOf(file));
      });
});
