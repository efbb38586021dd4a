/**
 * The tested topology on one machine, every part started by us on free ports and stopped by pid:
 *
 *   load ─▶ HAProxy ─┬─▶ http1 ─┐            ┌─▶ PgBouncer (transaction) ─▶ PostgreSQL primary (private)
 *                    └─▶ http2 ─┼────────────┤      http only: DATABASE_READ_URL ─▶ its streaming replica
 *             worker1, worker2 ─┘            └─▶ Redis primary + replica, 3 sentinels
 *
 * PostgreSQL is a private primary with a streaming replica (test/helpers/pg-replica.ts), not the
 * shared server: a replica copies a whole cluster. Migrations run against the primary directly; the
 * service processes go through PgBouncer with DB_PREPARED_STATEMENTS=false and find the Redis
 * primary through the sentinels. The http processes read from the replica directly, not through
 * PgBouncer (docs/scaling.md, "Tested topology", says why).
 */
import { randomBytes } from 'node:crypto';
import { freePort, startService, type ServiceProcess } from '../helpers/service-process.ts';
import type { TempDatabase } from '../helpers/temp-database.ts';
import { createPgReplicaPair, type PgReplicaPair } from '../helpers/pg-replica.ts';
import { createPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { createSentinelGroup, SENTINEL_NAME, type SentinelGroup } from '../helpers/redis-sentinel.ts';
import { seedLoadFixture, type LoadFixture } from '../helpers/load-fixture.ts';
import { createHaproxy, type Haproxy } from './haproxy.ts';
import { createReplicatedDatabase } from './replica.ts';
import { UNLIMITED_CLIENTS } from '../faults/fault-env.ts';

export type Topology = {
  /** The private PostgreSQL primary and its streaming replica (`stopReplica`, `startReplica`). */
  pg: PgReplicaPair;
  db: TempDatabase;
  bouncer: PgBouncer;
  redis: SentinelGroup;
  haproxy: Haproxy;
  prefix: string;
  adminToken: string;
  /** Bearer token of each http process's `/metrics` (only the scrape-time gauges are collected). */
  metricsToken: string;
  fixture: LoadFixture;
  http: Array<ServiceProcess | null>;
  workers: Array<ServiceProcess | null>;
  /** SIGKILL http process `i` (0 or 1). */
  killHttp(i: number): Promise<void>;
  /** Starts http process `i` again on its port; resolves once HAProxy has it up. */
  startHttp(i: number): Promise<void>;
  killWorker(i: number): Promise<void>;
  stopWorker(i: number): Promise<void>;
  startWorker(i: number): Promise<void>;
  close(): Promise<void>;
};

export async function createTopology(): Promise<Topology> {
  const closers: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const pair = await createPgReplicaPair();
    closers.push(() => pair.close());
    const db = await createReplicatedDatabase(pair, 'topology');
    closers.push(() => db.drop());
    const bouncer = await createPgBouncer({
      target: { host: '127.0.0.1', port: pair.primaryPort, user: 'postgres' },
      poolMode: 'transaction',
      poolSize: 10,
    });
    closers.push(() => bouncer.close());
    const redis = await createSentinelGroup();
    closers.push(() => redis.close());
    const prefix = `topo${randomBytes(4).toString('hex')}`;
    const adminToken = `topo-admin-${randomBytes(16).toString('hex')}`;
    const metricsToken = `topo-metrics-${randomBytes(16).toString('hex')}`;
    const env: Record<string, string> = {
      DATABASE_URL: bouncer.urlFor(db.name),
      DB_PREPARED_STATEMENTS: 'false',
      // The URL's host is not used with sentinels: only they can lead a process to the primary.
      REDIS_URL: `redis://127.0.0.1:${redis.replicaPort}`,
      REDIS_SENTINELS: redis.sentinels,
      REDIS_SENTINEL_NAME: SENTINEL_NAME,
      QUEUE_PREFIX: prefix,
      ADMIN_TOKEN: adminToken,
      DEMO_SEED: 'false',
      // All load comes from one address (HAProxy's): per-client limits are out of scope here.
      ...UNLIMITED_CLIENTS,
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '8',
      DB_POOL_MAX: '8',
      SWEEP_INTERVAL_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '200',
      JOB_WAIT_TIMEOUT_MS: '4000',
    };
    // Only the http processes serve the reads a replica may take (workers make none).
    const httpEnv = {
      ...env,
      DATABASE_READ_URL: pair.replicaUrl(db.name),
      DATABASE_READ_MAX_LAG_MS: '5000',
      METRICS_TOKEN: metricsToken,
      METRICS_ENABLED: 'false',
    };
    const workers: Array<ServiceProcess | null> = [null, null];
    const http: Array<ServiceProcess | null> = [null, null];
    closers.push(() => Promise.all([...http, ...workers].map((p) => p?.stop(5_000))));
    const startWorker = async (i: number) => {
      workers[i] = await startService('worker', env);
    };
    // Workers first: an http process is ready (/readyz) only once every queue has a consumer.
    await startWorker(0);
    await startWorker(1);
    const ports = [await freePort(), await freePort()];
    const startHttpProc = async (i: number) => {
      http[i] = await startService('http', httpEnv, { port: ports[i] });
    };
    await Promise.all([startHttpProc(0), startHttpProc(1)]);
    const haproxy = await createHaproxy(ports.map((port, i) => ({ name: `http${i + 1}`, port })));
    closers.push(() => haproxy.close());
    await haproxy.waitUntilUp(['http1', 'http2']);
    const fixture = await seedLoadFixture({
      baseUrl: haproxy.url,
      adminToken,
      pool: db.pool,
      customers: 500,
      partners: 10,
      tag: 't',
    });
    return {
      pg: pair,
      db,
      bouncer,
      redis,
      haproxy,
      prefix,
      adminToken,
      metricsToken,
      fixture,
      http,
      workers,
      async killHttp(i) {
        http[i]?.signal('SIGKILL');
        await http[i]?.exited;
        http[i] = null;
      },
      async startHttp(i) {
        await startHttpProc(i);
        await haproxy.waitUntilUp([`http${i + 1}`]);
      },
      async killWorker(i) {
        workers[i]?.signal('SIGKILL');
        await workers[i]?.exited;
        workers[i] = null;
      },
      async stopWorker(i) {
        await workers[i]?.stop(10_000);
        workers[i] = null;
      },
      startWorker,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
