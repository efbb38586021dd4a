import { defineConfig } from 'vitest/config';
import { SOAK } from './settings.ts';

/**
 * `npm run soak`: one long test (SOAK_MINUTES of load and faults, then the drain and the checks),
 * alone on the machine's CPU with the processes it starts. Not part of `npm test`.
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    // The dashboard bundle is built before any service process starts (a process that builds it
    // at startup on a busy host can miss its readiness deadline).
    globalSetup: ['test/global-setup.ts'],
    include: ['test/soak/**/*.test.ts'],
    testTimeout: (SOAK.minutes + 15) * 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
