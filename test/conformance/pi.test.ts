/** The driver conformance suite over pi sessions in a temp home. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('pi', async () => {
  const home = await mkdtemp(join(tmpdir(), 'tb-conf-pi-'));
  const sources = new Sources({ home, env: { HOME: home } });
  return {
    driver: sources.driver('pi'),
    cleanup: async () => {
      await sources.close();
      await rm(home, { recursive: true, force: true });
    },
  };
});
