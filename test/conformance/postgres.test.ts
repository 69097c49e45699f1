import { freshSchema } from '../server/pg-helpers.js';
import { describeDriverConformance } from './driver-suite.js';

// The real PostgreSQL, a schema of its own per run (dropped at cleanup).
describeDriverConformance('postgres', async () => {
  const db = await freshSchema('tb_conf');
  return { driver: db.store, cleanup: () => db.drop() };
});
