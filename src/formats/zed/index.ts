/** Zed (zed-industries/zed): agent threads in threads.db (SQLite, zstd-compressed JSON); read-only. */
import { registerFormat } from '../registry.js';
import { ZedDriver } from './driver.js';

export { decodeThread, ZedDriver, zedThreadsDbCandidates } from './driver.js';

export function register(): void {
  registerFormat('zed', (env) => new ZedDriver(env));
}

register();
