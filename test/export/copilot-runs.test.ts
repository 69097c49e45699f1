/**
 * Copilot CLI keeps a sub-agent run both ways: its events in the session's own file (the reader marks
 * them a side chain naming the run's call) and as a session of its own in the store (the driver lists
 * it under that call). The export shows the run once, under its call; before, the side chain came
 * again after the turns as a sub-agent "no call on this path ran", and the usage table had it twice.
 * On the session real Copilot CLI 1.0.102 wrote (test/fixtures/copilot/real-1.0.102), exported through
 * the CLI from a temp home, from the agent's files and through the index.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

const PARENT = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN_SESSION = 'dbc5e332-8b80-4a98-a522-e470049ee15a';

describe('a Copilot CLI run in the export', () => {
  let fx: FixtureHome;
  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-copilot-runs-', fixtures: ['copilot'] });
  });
  afterAll(async () => {
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  for (const extra of [['--no-index'], []]) {
    const how = extra.length ? 'from the agent’s files' : 'through the local index';
    it(`Markdown and HTML show the run once, under its call (${how})`, async () => {
      const md = await runCliOk(fx.env, ['export', PARENT, '--format', 'md', ...extra]);
      expect(md.match(/<details><summary>Sub-agent session/g)).toHaveLength(1);
      expect(md).toContain(`<details><summary>Sub-agent session: greet (copilot · ${RUN_SESSION} · `);
      expect(md).not.toContain('no call on this path ran it');
      expect(md.match(/^- sub-agent: /gm)).toHaveLength(1);
      const html = await runCliOk(fx.env, ['export', PARENT, '--format', 'html', ...extra]);
      expect(html.match(/<details class="sub-agent/g)).toHaveLength(1);
      expect(html).toContain('</details><details class="sub-agent"><summary>Sub-agent session: <strong>greet</strong>');
      expect(html.match(/<tr class="sub-agent">/g)).toHaveLength(1);
    });
  }
});
