/**
 * The npm scripts and ROLE as docs/deployment.md gives them, run as a person would (`npm start`,
 * `npm run start:worker`): the role chosen is the one asked for, and a wrong one is an error.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createTempDatabase, type TempDatabase } from '../helpers/temp-database.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';
import { runProcess, runToExit } from '../helpers/run-process.ts';

// Real processes on a shared two-core machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const prefix = `roles${process.pid}`;
let db: TempDatabase | null = null;
beforeAll(async () => {
  if (production) db = await createTempDatabase('roles');
});
afterAll(async () => {
  await db?.drop();
  if (production) await deleteRedisPrefix(SHARED_REDIS_URL, prefix);
});

const base = { DATA_DIR: 'memory://', HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', DEMO_SEED: 'false' };

test('ROLE=worker npm start starts the worker role, not serve', async () => {
  if (!production) {
    // Embedded mode has no separate worker: the worker role says what it needs and exits.
    const r = await runToExit('npm', ['start'], { ...base, ROLE: 'worker' });
    expect(r.code).toBe(1);
    expect(r.output).toContain('Role "worker" needs DATABASE_URL and REDIS_URL');
    return;
  }
  const p = runProcess('npm', ['start'], {
    ...base,
    ROLE: 'worker',
    DATABASE_URL: db!.url,
    REDIS_URL: SHARED_REDIS_URL,
    QUEUE_PREFIX: prefix,
  });
  try {
    await p.waitForOutput(/"workers started"/, 180_000);
    expect(p.output()).not.toContain('HTTP server listening');
  } finally {
    await p.stop();
  }
});

test.each([
  ['an unknown ROLE', ['start'], { ROLE: 'web' }, 'ROLE must be one of: serve, http, worker, migrate'],
  [
    'an unknown role argument',
    ['start', '--', 'web'],
    {},
    'Unknown role "web"; use one of: serve, http, worker, migrate',
  ],
  [
    'ROLE contradicting the script',
    ['run', 'start:http'],
    { ROLE: 'worker' },
    'The role argument "http" contradicts ROLE=worker',
  ],
])('%s is an error, not a silent default', async (_label, args, env, message) => {
  const r = await runToExit('npm', args, { ...base, ...env });
  expect(r.code).toBe(1);
  expect(r.output).toContain(message);
});
