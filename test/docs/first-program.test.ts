/**
 * docs/first-program.md, run as a reader would: every ```sh block of the guide, in order, in one
 * bash session (`set -euo pipefail`: a failing command or HTTP error fails the test), against a
 * freshly started service, embedded or production mode. Then what the guide promised is read back
 * through the admin API: the partner paid exactly the commission its rules gave.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { docPage, shellBlocks } from '../helpers/doc-pages.ts';
import { runToExit } from '../helpers/run-process.ts';
import { startService, type ServiceProcess } from '../helpers/service-process.ts';
import { createTempDatabase, type TempDatabase } from '../helpers/temp-database.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';

// A real service and about fifteen CLI processes on a shared two-core machine.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 200_000 });

const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const prefix = `firstprogram${process.pid}`;
const dataDir = mkdtempSync(join(tmpdir(), 'first-program-'));
const adminToken = randomBytes(24).toString('hex');
let db: TempDatabase | null = null;
let service: ServiceProcess;

beforeAll(async () => {
  if (production) db = await createTempDatabase('firstprogram');
  const env: Record<string, string> = production
    ? { DATABASE_URL: db!.url, REDIS_URL: SHARED_REDIS_URL, QUEUE_PREFIX: prefix, ADMIN_TOKEN: adminToken }
    : { DATA_DIR: dataDir, DEMO_SEED: 'true' };
  service = await startService('serve', { ...env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }, { readyTimeoutMs: 180_000 });
});
afterAll(async () => {
  await service?.stop();
  await db?.drop();
  if (production) await deleteRedisPrefix(SHARED_REDIS_URL, prefix);
  rmSync(dataDir, { recursive: true, force: true });
});

test('every command of docs/first-program.md runs, and the partner is paid their commission', async () => {
  const blocks = shellBlocks(docPage('first-program'));
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  const script = ['set -euo pipefail', ...blocks].join('\n');
  // The embedded server's token is found by the CLI in DATA_DIR; production mode's is given.
  const auth: Record<string, string> = production ? { ADMIN_TOKEN: adminToken } : { DATA_DIR: dataDir };
  const r = await runToExit('bash', ['-c', script], { BASE: service.url, ADMIN_URL: service.url, ...auth }, 280_000);
  expect(r.code, r.output).toBe(0);
  // The guide's own expected lines, printed by its commands.
  expect(r.output).toContain('https://acme.example/?aff=jane');
  expect(r.output).toMatch(/"key_mode":"test","activity":\{[^]*?"sales":\{"count":1,/);
  expect(r.output).toMatch(/^2500$/m);
  expect(r.output).toMatch(/^paid$/m);

  // Read back: program "Acme", its partner jane paid 25.00 USD by one payout, balance zero.
  const token = production ? adminToken : readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const admin = (path: string) =>
    fetch(`${service.url}/api/v1/admin${path}`, { headers: { authorization: `Bearer ${token}` } }).then(
      (res) => res.json() as Promise<Record<string, unknown>>,
    );
  const { programs } = (await admin('/programs')) as { programs: Array<{ id: number; name: string }> };
  const acme = programs.find((p) => p.name === 'Acme')!;
  const { payouts } = (await admin(`/programs/${acme.id}/payouts`)) as {
    payouts: Array<{ status: string; amount_cents: number; currency: string }>;
  };
  expect(payouts).toEqual([expect.objectContaining({ status: 'paid', amount_cents: 2500, currency: 'USD' })]);
});
