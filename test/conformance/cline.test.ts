/**
 * The driver conformance suite over Cline: each sample session is written as a new Cline CLI
 * session (`~/.cline/data/sessions/<id>/`) by the driver's own writer, and read back.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance(
  'cline',
  async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-cline-'));
    return {
      driver: new ClineDriver({ home, env: {} }),
      cleanup: () => fs.rm(home, { recursive: true, force: true }),
    };
  },
  { noAdvisors: false },
);
