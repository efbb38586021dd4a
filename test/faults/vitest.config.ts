import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: scenarios that start real service processes and break things under them
 * (kill a worker, stop Redis, drop PostgreSQL connections, SIGTERM under load). They share the
 * machine's CPU with the processes they start, so they run one file at a time, one test at a time.
 * DATABASE_URL / REDIS_URL name the shared servers (defaults: 127.0.0.1); a scenario that stops
 * Redis starts its own throwaway redis-server instead.
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    // The dashboard bundle is built before any service process starts (a process that builds it
    // at startup on a busy host can miss its readiness deadline).
    globalSetup: ['test/global-setup.ts'],
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
