/**
 * One fault scenario's world: a fresh database, a queue prefix on the given Redis, real service
 * processes (`node src/main.ts <role>`) and a seeded program. Plus the small HTTP client and the
 * database invariants every scenario ends with.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { startService, type Role, type ServiceProcess } from '../helpers/service-process.ts';
import { createTempDatabase, type TempDatabase } from '../helpers/temp-database.ts';
import { SHARED_REDIS_URL, deleteRedisPrefix } from '../helpers/throwaway-redis.ts';
import { seedLoadFixture, type LoadFixture } from '../helpers/load-fixture.ts';
import { verifyLedgers } from '../helpers/verify-ledgers.ts';

/** Per-client limits out of reach: all the load of a scenario comes from one address. */
export const UNLIMITED_CLIENTS = {
  CLICK_LIMIT_PER_MINUTE: '100000000',
  BROWSER_LEAD_LIMIT_PER_MINUTE: '100000000',
  WEBHOOK_LIMIT_PER_MINUTE: '100000000',
  STATUS_LIMIT_PER_MINUTE: '100000000',
  API_KEY_FAILURES_PER_MINUTE: '100000000',
};

export type FaultEnv = {
  db: TempDatabase;
  redisUrl: string;
  prefix: string;
  adminToken: string;
  fixture: LoadFixture;
  /** The process answering HTTP (the first `http` or `serve` started). */
  http: ServiceProcess;
  procs: ServiceProcess[];
  /** Starts one more process of the scenario (same database, prefix and settings). */
  start(role: Role, extra?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
};

export async function createFaultEnv(o: {
  roles: Role[];
  redisUrl?: string;
  env?: Record<string, string>;
  customers?: number;
  partners?: number;
  /** The URL the service processes use for the scenario's database (a scenario puts a proxy in front). */
  databaseUrl?: (url: string) => string;
}): Promise<FaultEnv> {
  const db = await createTempDatabase('fault');
  const prefix = `fault${randomBytes(4).toString('hex')}`;
  const redisUrl = o.redisUrl ?? SHARED_REDIS_URL;
  const adminToken = `fault-admin-${randomBytes(16).toString('hex')}`;
  const procs: ServiceProcess[] = [];
  const baseEnv = {
    DATABASE_URL: o.databaseUrl ? o.databaseUrl(db.url) : db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    ADMIN_TOKEN: adminToken,
    DEMO_SEED: 'false',
    // info: the worker's readiness is its "workers started" line.
    // One test process is one client: per-client limits are out of reach unless a scenario sets them.
    ...UNLIMITED_CLIENTS,
    // Scenarios stop processes often: no drain period unless one sets it (sigterm.test.ts does).
    SHUTDOWN_DRAIN_MS: '0',
    LOG_LEVEL: 'info',
    WORKER_CONCURRENCY: '8',
    DB_POOL_MAX: '10',
    SWEEP_INTERVAL_MS: '1000',
    WEBHOOK_RETRY_BASE_MS: '200',
    ...o.env,
  };
  const start = async (role: Role, extra: Record<string, string> = {}) => {
    const p = await startService(role, { ...baseEnv, ...extra });
    procs.push(p);
    return p;
  };
  try {
    for (const role of o.roles) await start(role);
    const http = procs.find((p) => p.role === 'http' || p.role === 'serve');
    if (!http) throw new Error('a fault scenario needs an http or serve process');
    const fixture = await seedLoadFixture({
      baseUrl: http.url,
      adminToken,
      pool: db.pool,
      customers: o.customers ?? 500,
      partners: o.partners ?? 10,
      tag: 'f',
    });
    return {
      db,
      redisUrl,
      prefix,
      adminToken,
      fixture,
      http,
      procs,
      start,
      async close() {
        // Whatever the faults did, every program's ledger rebuilds to the stored one (ledger:verify),
        // checked by an http process of its own on the database itself and the shared Redis: the
        // scenario's processes, proxies or Redis may be gone by now.
        let unclean: Error | null;
        try {
          const verifier = await start('http', {
            DATABASE_URL: db.url,
            REDIS_URL: SHARED_REDIS_URL,
            QUEUE_PREFIX: `${prefix}v`,
          });
          unclean = await verifyLedgers(verifier.url, adminToken, db);
        } catch (err) {
          unclean = err as Error;
        }
        await Promise.all(procs.map((p) => p.stop(5_000)));
        await db.drop();
        await deleteRedisPrefix(redisUrl, prefix).catch(() => {});
        await deleteRedisPrefix(SHARED_REDIS_URL, `${prefix}v`).catch(() => {});
        if (unclean) throw unclean;
      },
    };
  } catch (err) {
    await Promise.all(procs.map((p) => p.stop(2_000)));
    await db.drop();
    throw err;
  }
}

export type Reply = { status: number; body: any; ms: number; error?: string };

/** One request; a network failure (refused, reset, timeout) is status 0, never a throw. */
export async function send(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: string | object; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const t = performance.now();
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body,
      signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, ms: performance.now() - t };
  } catch (err) {
    return { status: 0, body: null, ms: performance.now() - t, error: (err as Error).message };
  }
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export type RawReply = { status: number; body: any; error?: string };

/**
 * One request on its own connection (no agent, no keep-alive) with node:http, for what `fetch`
 * cannot do: pick the local address (`localAddress`, to act as another client), or tell a refused
 * connection from a dropped request. A network failure is status 0 with the error code
 * (ECONNREFUSED, ECONNRESET...), never a throw. A body is sent as JSON.
 */
export function rawRequest(
  url: string,
  path: string,
  init: { method?: string; body?: string | null; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RawReply> {
  const body = init.body ?? null;
  return new Promise((resolve) => {
    const failed = (err: Error) =>
      resolve({ status: 0, body: null, error: (err as NodeJS.ErrnoException).code ?? err.message });
    const req = request(
      `${url}${path}`,
      {
        method: init.method ?? 'POST',
        agent: false,
        localAddress: init.localAddress,
        headers: { ...(body !== null ? { 'content-type': 'application/json' } : {}), ...init.headers },
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', failed);
      },
    );
    req.on('error', failed);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body ?? undefined);
  });
}

/**
 * A client that does what the spec tells merchants to do: retry a sale after a network failure or
 * a 5xx with the same transaction id (bounded), and treat 409 as a prior success.
 */
export async function sendSaleWithRetry(
  baseUrl: string,
  key: string,
  body: object,
  o: { attempts?: number; delayMs?: number } = {},
): Promise<{ final: Reply; statuses: number[] }> {
  const statuses: number[] = [];
  let last: Reply = { status: 0, body: null, ms: 0 };
  for (let a = 0; a < (o.attempts ?? 20); a++) {
    last = await send(baseUrl, '/api/v1/track/sale', { body, headers: bearer(key) });
    statuses.push(last.status);
    if (last.status !== 0 && last.status < 500) break;
    await sleep(o.delayMs ?? 500);
  }
  return { final: last, statuses };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn(i)` on `concurrency` loops until `until` (milliseconds, or a predicate turning true) or `max`
 * calls were made, whichever comes first.
 */
export async function loadFor(
  until: number | (() => boolean),
  concurrency: number,
  max: number,
  fn: (i: number) => Promise<void>,
): Promise<number> {
  const deadline = typeof until === 'number' ? Date.now() + until : 0;
  const goOn = typeof until === 'number' ? () => Date.now() < deadline : () => !until();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (goOn() && next < max) await fn(next++);
    }),
  );
  return next;
}

/** Polls `check` until it returns true, at most `timeoutMs`. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Inbox rows not yet processed (pending), for "wait until drained". */
export async function pendingWebhooks(db: TempDatabase): Promise<number> {
  const {
    rows: [r],
  } = await db.pool.query(`select count(*)::int as n from webhook_event where status = 'pending'`);
  return r.n;
}

/**
 * The money invariants every scenario must end with: no transaction recorded twice, every
 * attributed sale with exactly one commission and one platform fee, commission amounts from the
 * rate, refund totals and reversals derived from the refund rows (no lost or doubled update).
 */
export async function ledgerViolations(db: TempDatabase): Promise<Record<string, number>> {
  const {
    rows: [r],
  } = await db.pool.query(`
    select
      (select count(*) from (select 1 from sale group by program_id, transaction_id having count(*) > 1) d)::int as duplicate_transactions,
      (select count(*) from sale s where s.partner_id is not null and (select count(*) from commission c where c.sale_id = s.id) <> 1)::int as sales_without_exactly_one_commission,
      (select count(*) from sale s where (select count(*) from platform_fee f where f.sale_id = s.id) <> 1)::int as sales_without_exactly_one_fee,
      (select count(*) from commission c join sale s on s.id = c.sale_id where c.amount_cents <> (2 * s.amount_cents * c.rate_bps + 10000) / 20000)::int as wrong_commission_amounts,
      (select count(*) from sale s where s.refunded_cents <> coalesce((select sum(applied_cents) from refund r where r.sale_id = s.id), 0))::int as refunded_total_drift,
      (select count(*) from commission c where c.reversed_cents <> coalesce((select sum(deduction_cents) from refund r where r.commission_id = c.id), 0))::int as reversal_drift,
      (select count(*) from commission c join sale s on s.id = c.sale_id
        where c.reversed_cents <> case when s.refunded_cents >= s.amount_cents then c.amount_cents
                                       else (2 * c.amount_cents * s.refunded_cents + s.amount_cents) / (2 * s.amount_cents) end)::int as reversal_not_proportional,
      (select count(*) from (select 1 from refund where refund_id is not null group by sale_id, refund_id having count(*) > 1) d)::int as duplicate_refund_ids
  `);
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== 0)) as Record<string, number>;
}
