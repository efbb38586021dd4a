import { defineConfig } from 'vitest/config';

/**
 * `npm run test:topology`: the whole service as it runs in production on one machine (HAProxy, two
 * `http` and two `worker` processes, PgBouncer, Redis with Sentinel) under a steady mixed load while
 * processes are killed one after another. One long test; not part of `npm test`.
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    // The dashboard bundle is built before any service process starts (a process that builds it
    // at startup on a busy host can miss its readiness deadline).
    globalSetup: ['test/global-setup.ts'],
    include: ['test/topology/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
