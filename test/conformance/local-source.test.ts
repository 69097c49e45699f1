/**
 * The `threadbase` source (threadbase's own sessions in the local store) is a driver like the
 * others; here over a store database that also holds an indexed agent session, which it must
 * neither list nor open.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStoreSource } from '../../src/stores/local-source.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { describeDriverConformance, sampleSession } from './driver-suite.js';

describeDriverConformance('threadbase (local store source)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tb-conf-local-'));
  const path = join(dir, 'index.db');
  // an agent's session as the index keeps it (its own source), beside threadbase's sessions
  const index = openSqliteStore(path);
  index.putSession({ ...sampleSession(), id: 'indexed-pi-session', source: 'pi' }, { keepSource: true });
  await index.close();
  const driver = new LocalStoreSource(path);
  return {
    driver,
    cleanup: async () => {
      await driver.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
