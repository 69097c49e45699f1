/** The driver conformance suite over claude sessions in a temp home. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance(
  'claude',
  async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-conf-claude-'));
    const sources = new Sources({ home, env: { HOME: home } });
    return {
      driver: sources.driver('claude'),
      cleanup: async () => {
        await sources.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  // Claude Code records tokens, not cost.
  {
    noCost: true,
    deviations: { 'orphan append': 'the claude driver appends an entry under a missing parent as given' },
  },
);
