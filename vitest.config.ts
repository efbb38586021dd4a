import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/faults/**', 'test/topology/**', 'test/soak/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more parallel files only queue on the CPU and the shared database.
    maxWorkers: 2,
  },
});
