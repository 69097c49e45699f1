/**
 * The driver conformance suite over the Continue CLI: sessions are put in by the driver's own writer
 * (a new <home>/.continue/sessions/<id>.json) and read back by its reader.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('continue', async () => {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-continue-'));
  return {
    driver: new ContinueDriver({ home, env: {} }),
    cleanup: () => fs.rm(home, { recursive: true, force: true }),
  };
});
