/** Worker thread of `threadbase sync`: reads and prepares whole units (see read.ts) while the main thread writes. */
import { parentPort, workerData } from 'node:worker_threads';
import '../../formats/all.js';
import { Sources } from '../../formats/registry.js';
import type { DriverEnv } from '../../model/driver.js';
import { type ReadJob, type ReadResult, readWhole } from './read.js';

const sources = new Sources(workerData as DriverEnv);
const port = parentPort;
port?.on('message', (job: ReadJob) => {
  readWhole(job.format, sources.driver(job.format), job.unit).then(
    (read) => port.postMessage({ seq: job.seq, ...(read ? { read } : {}) } satisfies ReadResult),
    (error: unknown) => port.postMessage({ seq: job.seq, error: (error as Error).message ?? String(error) } satisfies ReadResult),
  );
});
