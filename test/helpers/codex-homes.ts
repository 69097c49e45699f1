/** Temp HOMEs holding a copy of a Codex fixture home as `.codex`, removed after each test. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';

/** A function making such a HOME (call at a test file's top level: it registers the clean-up); `made` lists them. */
export function codexTempHomes(fixtureHome: string, prefix: string): { tempHome: () => Promise<DriverEnv>; made: string[] } {
  const made: string[] = [];
  afterEach(async () => {
    for (const d of made.splice(0)) await fs.rm(d, { recursive: true, force: true });
  });
  return {
    made,
    tempHome: async () => {
      const dir = await fs.mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      await fs.cp(fixtureHome, join(dir, '.codex'), { recursive: true });
      return { home: dir, env: {} };
    },
  };
}
