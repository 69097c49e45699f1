import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two tiers: fast unit/conformance tests, and the slow tests that drive the real agents, real
// PostgreSQL and a real browser. `npm test` runs both; CI runs `npm test`.
export default defineConfig({
  test: {
    // Vitest's default (cores − 1) is one worker on the 2-core machines CI runs on: every file in
    // turn, though a file driving an agent waits on its process much of the time. Two files at once
    // took the whole suite from 1149 s to 745 s there, every file passing; each file keeps its own
    // temp homes, loopback ports and PostgreSQL schema, so files never share state.
    // (Vitest 3 runs every project in one pool sized here: a project's own fileParallelism or
    // maxWorkers does not limit its files.)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/agents/**', 'test/e2e/**', '**/node_modules/**'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'agents',
          include: ['test/agents/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
