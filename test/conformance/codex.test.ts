/** The driver conformance suite over Codex CLI rollouts in a temp CODEX_HOME. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance(
  'codex',
  async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-codex-'));
    return {
      driver: new CodexDriver({ home, env: { CODEX_HOME: join(home, 'codex') } }),
      cleanup: () => fs.rm(home, { recursive: true, force: true }),
    };
  },
  // Codex records tokens, not cost.
  { noCost: true },
);
