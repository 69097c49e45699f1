/**
 * The remote store (a threadbase server over HTTP, here over a real SQLite store on loopback)
 * passes the same driver conformance suite as the store it fronts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryTokenStore, startServer } from '../../src/server/index.js';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('remote (threadbase serve over sqlite)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tb-conf-remote-'));
  const backing = openSqliteStore(join(dir, 'store.db'));
  const tokens = new MemoryTokenStore();
  const { key } = await tokens.createToken('conformance');
  const server = await startServer({ store: backing, tokens, port: 0, log: () => {} });
  return {
    driver: new RemoteStore(server.url, { key }),
    cleanup: async () => {
      await server.close();
      await backing.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
