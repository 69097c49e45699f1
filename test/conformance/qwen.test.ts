/**
 * The driver conformance suite over Qwen Code: sessions are put in by the driver's own writer
 * (a new chat under <home>/.qwen/projects/<project>/chats) and read back by its reader.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('qwen', async () => {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-conf-qwen-'));
  return {
    driver: new QwenDriver({ home, env: {} }),
    cleanup: () => fs.rm(home, { recursive: true, force: true }),
  };
});
