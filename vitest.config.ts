import { defineConfig } from 'vitest/config';

// Two tiers: fast unit/conformance tests, and the slow tests that drive the real agents, real
// PostgreSQL and a real browser. `npm test` runs both; CI runs `npm test`.
export default defineConfig({
  test: {
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
          // Real agent processes are heavy on a 2-core machine.
          fileParallelism: false,
        },
      },
    ],
  },
});
