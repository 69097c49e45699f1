import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tb-conf-sqlite-'));
  const driver = openSqliteStore(join(dir, 'store.db'));
  return {
    driver,
    cleanup: async () => {
      await driver.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
