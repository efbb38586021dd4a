/**
 * The PostgreSQL side of the topology: the throwaway database made on a private primary that has a
 * streaming replica (test/helpers/pg-replica.ts), and the replica's stop/restart fault with its
 * figures. Which server answered a dashboard read is told by two things the service and PostgreSQL
 * expose: each `http` process's `tracker_read_replica_status` gauge (scraped on its own port, not
 * through HAProxy) and the replica's own count of scans of the service's tables
 * (`pg_stat_user_tables`; the router's lag check reads no table, so only served reads add to it).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PgReplicaPair } from '../helpers/pg-replica.ts';
import { migrateDatabase, type ServiceProcess } from '../helpers/service-process.ts';
import type { TempDatabase } from '../helpers/temp-database.ts';
import { sleep } from '../faults/fault-env.ts';

/** A fresh database on the pair's primary, migrated by the service; the replica follows it. */
export async function createReplicatedDatabase(pair: PgReplicaPair, prefix: string): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await pair.primaryQuery(`create database ${name}`);
  const url = pair.primaryUrl(name);
  await migrateDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      await pair.primaryQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/** Index and sequential scans of the service's tables on the replica so far (its own statistics). */
export async function replicaTableScans(pair: PgReplicaPair, database: string): Promise<number> {
  const c = new pg.Client({ connectionString: pair.replicaUrl(database), connectionTimeoutMillis: 2_000 });
  c.on('error', () => {});
  await c.connect();
  try {
    const { rows } = await c.query(
      `select coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::text as n from pg_stat_user_tables`,
    );
    return Number(rows[0].n);
  } finally {
    await c.end().catch(() => {});
  }
}

/** What one `http` process's `/metrics` says of the replica now: serving, down, lagging, unknown. */
export async function replicaStatusOf(p: ServiceProcess | null, metricsToken: string): Promise<string> {
  if (!p) return 'no process';
  try {
    const r = await fetch(`${p.url}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
      signal: AbortSignal.timeout(2_000),
    });
    const text = await r.text();
    return /tracker_read_replica_status\{status="(\w+)"\} 1\b/.exec(text)?.[1] ?? `no gauge (${r.status})`;
  } catch (e) {
    return `no answer (${(e as Error).message})`;
  }
}

export type ReplicaFigures = {
  downSeconds: number;
  /** Replica table scans a second in the seconds before it stopped / after both processes read from it again. */
  scansPerSecondBefore: number;
  scansPerSecondAfter: number;
  /** Each process's statuses as scraped every 500 ms while the replica was down, in order (repeats dropped). */
  statusWhileDown: string[];
  statusAfter: string[];
  /** Seconds from the restart until every `http` process reported `serving`. */
  servingAgainSeconds: number;
  /** When the replica was stopped and started again (for the answers in between). */
  stoppedAt: number;
  startedAt: number;
};

type ReplicaTopology = {
  pg: PgReplicaPair;
  db: TempDatabase;
  http: Array<ServiceProcess | null>;
  metricsToken: string;
};

/**
 * The fault, in three steps the test runs around its load: `baseline()` some seconds before,
 * `inject()` (stop, `downMs` down, start, until every process serves reads from it again),
 * `settle()` some seconds after (the scans since the processes went back to the replica).
 */
export function replicaFault(t: ReplicaTopology, downMs: number) {
  const scans = () => replicaTableScans(t.pg, t.db.name);
  const statuses = () => Promise.all(t.http.map((p) => replicaStatusOf(p, t.metricsToken)));
  let base = { at: 0, n: 0 };
  let back = { at: 0, n: 0 };
  const f: ReplicaFigures = {
    downSeconds: downMs / 1000,
    scansPerSecondBefore: 0,
    scansPerSecondAfter: 0,
    statusWhileDown: [],
    statusAfter: [],
    servingAgainSeconds: 0,
    stoppedAt: 0,
    startedAt: 0,
  };
  return {
    figures: f,
    async baseline() {
      base = { at: Date.now(), n: await scans() };
    },
    async inject() {
      const n = await scans();
      f.scansPerSecondBefore = (n - base.n) / ((Date.now() - base.at) / 1000);
      f.stoppedAt = Date.now();
      await t.pg.stopReplica();
      // The gauges while it is down: each process finds out from a failed read or its next check.
      const seen: string[][] = t.http.map(() => []);
      while (Date.now() - f.stoppedAt < downMs) {
        (await statuses()).forEach((s, i) => {
          if (seen[i]!.at(-1) !== s) seen[i]!.push(s);
        });
        await sleep(500);
      }
      f.statusWhileDown = seen.map((s) => s.join(' → '));
      await t.pg.startReplica();
      f.startedAt = Date.now();
      await t.pg.waitForReplay(60_000);
      for (;;) {
        f.statusAfter = await statuses();
        if (f.statusAfter.every((s) => s === 'serving') || Date.now() - f.startedAt > 60_000) break;
        await sleep(200);
      }
      f.servingAgainSeconds = (Date.now() - f.startedAt) / 1000;
      back = { at: Date.now(), n: await scans() };
    },
    async settle() {
      const n = await scans();
      f.scansPerSecondAfter = (n - back.n) / ((Date.now() - back.at) / 1000);
    },
  };
}
