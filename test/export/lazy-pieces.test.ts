/**
 * The HTML page and the Markdown are made a piece at a time as `export` asks for them (generators),
 * so the CLI writes while rendering and never holds the whole document of a large session: the
 * head (usage with sub-agents, the branch tree) comes from the session, each turn is rendered when
 * its piece is asked for. Joined, the pieces are the text exportSession gives, on real sessions with
 * sub-agents, side chains, images and branches.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childSessionsFrom } from '../../src/convert/session.js';
import { type ExportOptions, exportSession, exportSessionPieces, subAgentsOf } from '../../src/export/index.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Entry, Session } from '../../src/model/types.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { messageEntry, secondInto2026, textMessage } from '../helpers/sessions.js';

/** Sessions the real agents wrote, and what each shows that the export must keep. */
const RICH = [
  {
    name: 'claude (older): a Task sub-agent and an in-file side chain no call ran',
    agent: 'claude',
    id: '11111111-1111-4111-8111-111111111111',
    html: ['Sub-agent session', 'side chain, no call on this path ran it', 'count the cats'],
    md: ['<details><summary>Sub-agent session (side chain, no call on this path ran it): sc1', '### user\n\ncount the cats'],
  },
  {
    name: 'codex: a spawn_agent sub-agent',
    agent: 'codex',
    id: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    html: ['Sub-agent session', '01a21356-267a-73e0-9768-3144907e69c8', 'child done', '1 sub-agent included'],
    md: ['- total with sub-agents:', '### user\n\nCHILDTASK'],
  },
  {
    name: 'kilo: an image read, synthetic text',
    agent: 'kilo',
    id: 'ses_de960d959ffeUnT4kXIY6RPwqO',
    html: ['data:image/', 'added by the agent'],
    md: ['](data:image/', 'added by the agent'],
  },
] as const;

/** A session of the conformance suite with a second branch (the branch tree on top) and an image. */
function branched(): Session {
  const s = sampleSession();
  s.entries.push(messageEntry('branch-1', (s.entries[1] as Entry).id, secondInto2026(9), textMessage('user', 'the other road')));
  s.leafId = 'branch-1';
  return s;
}

function checkPieces(s: Session, opts: ExportOptions, expected: { html: readonly string[]; md: readonly string[] }) {
  for (const format of ['html', 'md'] as const) {
    const pieces = [...exportSessionPieces(s, format, opts)];
    const whole = exportSession(s, format, opts);
    expect(pieces.join('')).toBe(whole);
    for (const text of expected[format]) expect(whole).toContain(text);
    // a piece a turn, not the page in one
    expect(pieces.length).toBeGreaterThan(4);
    if (format === 'html') {
      expect(pieces[0]).toMatch(
        /^<!doctype html>[\s\S]*<details class="usage">[\s\S]*<\/details>\n(<details class="branches">[\s\S]*<\/details>)?\n$/,
      );
      expect(pieces.at(-1)).toBe('\n</main></body></html>\n');
      // the head alone holds the usage table
      expect(pieces.slice(1).join('')).not.toContain('<details class="usage">');
    } else {
      expect(pieces[0]).toMatch(/^# [\s\S]*\n- tokens: /);
      expect(pieces.at(-1)).toBe('\n');
    }
  }
}

describe('export pieces, joined, are the whole export', () => {
  let fx: FixtureHome;
  let sources: Sources;

  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-lazy-', fixtures: ['claudeOlder', 'codex', 'kilo'] });
    sources = new Sources({ home: fx.home, env: fx.env.env });
  });

  afterAll(async () => {
    await sources?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  for (const run of RICH) {
    it(run.name, async () => {
      const driver = sources.driver(run.agent);
      const s = (await driver.getSession(run.id)) as Session;
      expect(s).toBeDefined();
      checkPieces(s, { subAgents: await subAgentsOf(s, childSessionsFrom(driver)) }, run);
    });
  }

  it('a branched session: the branch tree in the head (HTML), after the turns (Markdown); the image inline', () => {
    checkPieces(
      branched(),
      {},
      {
        html: ['Branch tree: 2 branches', 'src="data:image/png;base64,iVBOR', 'the other road'],
        md: ['## Branches', 'the other road'],
      },
    );
    const md = [...exportSessionPieces(branched(), 'md')];
    expect(md.at(-2)).toMatch(/^\n## Branches\n/);
  });
});

describe('export renders a turn only when its piece is asked for', () => {
  const TURNS = 200;
  const LAST = 'the very last answer';

  /** TURNS exchanges; reading the last answer's text is counted (rendering it reads it). */
  function longSession(): { session: Session; reads: () => number } {
    const entries: Entry[] = [];
    let parent: string | null = null;
    for (let i = 0; i < TURNS; i++) {
      const id = `e${i}`;
      const role = i % 2 ? 'assistant' : 'user';
      entries.push(messageEntry(id, parent, secondInto2026(i), textMessage(role, `turn ${i}`)));
      parent = id;
    }
    let reads = 0;
    const last = (entries.at(-1) as Extract<Entry, { kind: 'message' }>).message.parts[0] as { text: string };
    Object.defineProperty(last, 'text', {
      enumerable: true,
      get: () => {
        reads++;
        return LAST;
      },
    });
    const session: Session = {
      id: 'lazy-1',
      source: 'threadbase',
      createdAt: secondInto2026(0),
      updatedAt: secondInto2026(TURNS),
      messageCount: TURNS,
      entries,
      leafId: parent as string,
    };
    return { session, reads: () => reads };
  }

  for (const format of ['html', 'md'] as const) {
    it(`${format}: the head and the first turn come before the last turn is rendered`, () => {
      const { session, reads } = longSession();
      const pieces = exportSessionPieces(session, format, { subAgents: new Map() })[Symbol.iterator]();
      // up to the piece of the first turn
      let sofar = '';
      for (let p = pieces.next(); !p.done && !sofar.includes('turn 0'); p = pieces.next()) sofar += p.value;
      expect(sofar).toContain('turn 0');
      expect(reads()).toBe(0);
      expect(sofar).not.toContain(LAST);
      let rest = '';
      for (let p = pieces.next(); !p.done; p = pieces.next()) rest += p.value;
      expect(rest).toContain(LAST);
      expect(reads()).toBeGreaterThan(0);
    });
  }
});
