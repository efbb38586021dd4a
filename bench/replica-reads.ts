/**
 * Dashboard read latency under a sale write load, with and without the read replica
 * (DATABASE_READ_URL): a private PostgreSQL primary and streaming replica on this machine
 * (test/helpers/pg-replica.ts), one `serve` process at a time on the same seeded database. Each
 * phase: API sales from BENCH_WRITERS concurrent clients for BENCH_SECONDS while one client reads
 * the overview series, the sales list and the commission summary in turn; prints p50/p99 of the
 * reads and the sales per second. Run: `npx node bench/replica-reads.ts` (Redis on REDIS_URL or
 * 127.0.0.1:6379). Both servers share the machine's cores: on one host the replica takes CPU from
 * the primary instead of adding its own.
 */
import { randomBytes } from 'node:crypto';
import { createPgReplicaPair } from '../test/helpers/pg-replica.ts';
import { migrateDatabase, startService, type ServiceProcess } from '../test/helpers/service-process.ts';
import { SHARED_REDIS_URL } from '../test/helpers/throwaway-redis.ts';
import { percentile } from './report.ts';
import { ADMIN_TOKEN } from './config.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 8);
const SEED_SALES = Number(process.env.BENCH_SEED_SALES ?? 3000);
const CUSTOMERS = 50;
const METRICS_TOKEN = `bench-${randomBytes(8).toString('hex')}`;

/** The fields of the answers this script reads. */
type Json = { program?: { id: number }; key?: string; partners?: Array<{ code: string }>; click_id?: string };
const call = async (
  base: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> => {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : {} };
};

const pair = await createPgReplicaPair();
const processes: ServiceProcess[] = [];
try {
  await pair.primaryQuery('create database bench_replica');
  const dbUrl = pair.primaryUrl('bench_replica');
  await migrateDatabase(dbUrl);
  const env = (prefix: string): Record<string, string> => ({
    DATABASE_URL: dbUrl,
    REDIS_URL: SHARED_REDIS_URL,
    ADMIN_TOKEN,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'false',
    CLICK_LIMIT_PER_MINUTE: '100000000',
    STATUS_LIMIT_PER_MINUTE: '100000000',
    METRICS_TOKEN,
  });
  const svc = await startService('serve', env(`brs${randomBytes(3).toString('hex')}`));
  processes.push(svc);
  const admin = (path: string, body?: unknown) => call(svc.url, `/api/v1/admin${path}`, ADMIN_TOKEN, body);
  const created = (
    await admin('/programs', {
      name: 'Bench',
      hold_period_days: 30,
      commission_rate_bps: 1000,
      rate_limit_per_minute: 1_000_000,
    })
  ).body.program;
  if (!created) throw new Error('the program was not created');
  const program = created;
  const key = (await admin(`/programs/${program.id}/keys`, { mode: 'live' })).body.key as string;
  await admin(`/programs/${program.id}/partners`, { code: `bench${randomBytes(3).toString('hex')}`, name: 'P' });
  const code = (await admin(`/programs/${program.id}/partners?limit=1`)).body.partners?.[0]?.code;
  for (let c = 0; c < CUSTOMERS; c++) {
    const click = await call(svc.url, '/api/v1/track/click', '', {
      affiliate_url: `https://shop.example/?aff=${code}`,
    });
    await call(svc.url, '/api/v1/track/lead', key, { customer_key: `c${c}`, click_id: click.body.click_id });
  }
  let n = 0;
  const sale = () =>
    call(svc.url, '/api/v1/track/sale', key, {
      transaction_id: `tx${n}-${randomBytes(4).toString('hex')}`,
      amount_cents: 1_000 + (n++ % 5_000),
      customer_key: `c${n % CUSTOMERS}`,
    });
  const seedStart = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (n < SEED_SALES) await sale();
    }),
  );
  console.log(`seeded ${n} sales in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  await svc.stop();
  processes.length = 0;

  const reads = ['/stats?days=30', '/sales?limit=50', '/stats/commissions?days=30'];
  const rows: string[] = [];
  for (const withReplica of [false, true]) {
    const e = env(`brs${randomBytes(3).toString('hex')}`);
    if (withReplica) e.DATABASE_READ_URL = pair.replicaUrl('bench_replica');
    const s = await startService('serve', e);
    processes.push(s);
    const until = performance.now() + SECONDS * 1000;
    let sales = 0;
    let saleErrors = 0;
    const writers = Array.from({ length: WRITERS }, async () => {
      while (performance.now() < until) {
        const r = await call(s.url, '/api/v1/track/sale', key, {
          transaction_id: `w${withReplica}-${randomBytes(6).toString('hex')}`,
          amount_cents: 2_500,
          customer_key: `c${sales % CUSTOMERS}`,
        });
        if (r.status === 200) sales++;
        else if (saleErrors++ === 0) console.log(`first failed sale: ${r.status} ${JSON.stringify(r.body)}`);
      }
    });
    const times: number[] = [];
    let readErrors = 0;
    for (let i = 0; performance.now() < until; i++) {
      const t0 = performance.now();
      const r = await call(s.url, `/api/v1/admin/programs/${program.id}${reads[i % reads.length]}`, ADMIN_TOKEN);
      times.push(performance.now() - t0);
      if (r.status !== 200) readErrors++;
    }
    await Promise.all(writers);
    times.sort((a, b) => a - b);
    // What the process found the replica to be at the end (the gauge exists only with a replica).
    const metrics = await (
      await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const state = /tracker_read_replica_status\{status="(\w+)"\} 1\b/.exec(metrics)?.[1] ?? 'none';
    const line = [
      withReplica ? 'replica' : 'primary only',
      `reads ${times.length}`,
      `p50 ${percentile(times, 50).toFixed(1)} ms`,
      `p99 ${percentile(times, 99).toFixed(1)} ms`,
      `read errors ${readErrors}`,
      `sales ${(sales / SECONDS).toFixed(0)}/s`,
      `sale errors ${saleErrors}`,
      `replica state ${state}`,
    ].join(' | ');
    console.log(line);
    rows.push(line);
    await s.stop();
    processes.length = 0;
  }
  console.log(`\n${SECONDS} s per phase, ${WRITERS} sale writers, ${SEED_SALES} seeded sales:\n${rows.join('\n')}`);
} finally {
  for (const p of processes) await p.stop(2_000);
  await pair.close();
}
