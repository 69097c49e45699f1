/**
 * A sync that kills its own process (SIGKILL: no cleanup, no commit) once it has handled `killAfter`
 * units, committing every `batch` units. Used by interrupted-sync.test.ts.
 *   node --import tsx test/index/kill-mid-sync.ts <home> <killAfter> <batch>
 */
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

const [home, killAfter, batch] = process.argv.slice(2) as [string, string, string];
const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
const store = openSqliteStore(indexPath(env));
await new IndexSync(store).sync(new Sources(env), {
  formats: ['claude'],
  batchUnits: Number(batch),
  onProgress: (p) => {
    if (p.done >= Number(killAfter)) process.kill(process.pid, 'SIGKILL');
  },
});
