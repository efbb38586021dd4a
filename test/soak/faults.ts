/**
 * The faults, injected one after another for the whole run and counted by kind: a service's
 * PostgreSQL connection terminated, a service's Redis connection killed, a webhook delivered twice
 * or out of order, a client request cut mid-flight; rarer, a worker SIGKILLed and started again
 * and Redis paused for a moment. Only what the service itself holds is hit: its database and the
 * soak's own `redis-server`.
 */
import { Redis } from 'ioredis';
import type { FaultEnv } from '../faults/fault-env.ts';
import { sleep } from '../faults/fault-env.ts';
import pg from 'pg';
import { BASE_DATABASE_URL } from '../helpers/temp-database.ts';
import type { Traffic } from './traffic.ts';

export const FAULT_KINDS = [
  'pg_terminate_backend',
  'redis_client_kill',
  'webhook_duplicate',
  'webhook_reordered',
  'request_aborted',
  'worker_sigkill',
  'redis_pause',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

/** The frequent faults, by weight; the rare ones come on their own clock. */
const WEIGHTS: Array<[FaultKind, number]> = [
  ['pg_terminate_backend', 30],
  ['redis_client_kill', 30],
  ['webhook_duplicate', 15],
  ['webhook_reordered', 5],
  ['request_aborted', 20],
];
/** The rare faults' periods in a full run; a short run (`spanMs`) gets at least 4 and 8 of them. */
const WORKER_KILL_EVERY_MS = 90_000;
const REDIS_PAUSE_EVERY_MS = 40_000;
/** Load started by faults (duplicates, reorders, aborted sales) in flight at most. */
const MAX_FAULT_LOAD = 12;

export type Injector = { counts: FaultCounts; missed: Record<string, number>; done: Promise<void> };

/**
 * Injects `target` faults, one every `intervalMs`, until done or `stop()` turns true; the load a
 * fault starts (a redelivery, a retried sale) is awaited before `done` resolves.
 */
export function injectFaults(o: {
  env: FaultEnv;
  traffic: Traffic;
  target: number;
  intervalMs: number;
  /** How long the faults may last (for the rare faults' periods). */
  spanMs: number;
  stop: () => boolean;
}): Injector {
  const killEvery = Math.min(WORKER_KILL_EVERY_MS, o.spanMs / 4);
  const pauseEvery = Math.min(REDIS_PAUSE_EVERY_MS, o.spanMs / 8);
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as FaultCounts;
  const missed: Record<string, number> = {};
  const inFlight = new Set<Promise<unknown>>();
  const total = () => Object.values(counts).reduce((a, b) => a + b, 0);
  const control = new Redis(o.env.redisUrl, { maxRetriesPerRequest: null, connectionName: 'soak-control' });
  control.on('error', () => {});
  // On the maintenance database: never one of the connections it terminates.
  const admin = new pg.Client({ connectionString: BASE_DATABASE_URL });
  admin.on('error', () => {});
  const background = (p: Promise<unknown>) => {
    const q = p
      .catch((err: Error) => miss(`background: ${err.message.slice(0, 60)}`))
      .finally(() => inFlight.delete(q));
    inFlight.add(q);
  };
  const miss = (kind: string) => {
    const k = kind.replace(/\s+/g, ' ');
    missed[k] = (missed[k] ?? 0) + 1;
  };

  async function one(kind: FaultKind): Promise<void> {
    switch (kind) {
      case 'pg_terminate_backend': {
        // A busy connection when there is one (the effect is then on a query), else any of them.
        const r = await admin.query(
          `select pg_terminate_backend(pid) as ok from pg_stat_activity
            where datname = '${o.env.db.name}' and backend_type = 'client backend' and pid <> pg_backend_pid()
            order by (state <> 'idle') desc, random() limit 1`,
        );
        if (r.rows[0]?.ok) counts[kind]++;
        else miss(kind);
        return;
      }
      case 'redis_client_kill': {
        const me = await control.client('ID');
        const ids = String(await control.client('LIST'))
          .split('\n')
          .map((l) => /^id=(\d+) /.exec(l)?.[1])
          .filter((id): id is string => Boolean(id) && Number(id) !== Number(me));
        if (!ids.length) return void miss(kind);
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        if (Number(await control.client('KILL', 'ID', id)) === 1) counts[kind]++;
        else miss(kind);
        return;
      }
      case 'webhook_duplicate':
      case 'webhook_reordered':
      case 'request_aborted': {
        if (inFlight.size >= MAX_FAULT_LOAD) return void miss(`${kind} (load busy)`);
        counts[kind]++;
        if (kind === 'webhook_duplicate') background(o.traffic.duplicate());
        else if (kind === 'webhook_reordered') background(o.traffic.reordered());
        // Cut between 1 and 40 ms: before the answer, often while the job runs.
        else background(o.traffic.apiSale(1 + Math.floor(Math.random() * 40)));
        return;
      }
      case 'worker_sigkill': {
        const workers = o.env.procs.filter((p) => p.role === 'worker' && p.child.exitCode === null);
        const w = workers[Math.floor(Math.random() * workers.length)];
        if (!w) return void miss(kind);
        w.signal('SIGKILL');
        await w.exited;
        o.env.procs.splice(o.env.procs.indexOf(w), 1);
        counts[kind]++;
        // Started again a second later, in the background: the other faults go on meanwhile.
        background(sleep(1_000).then(restartWorker));
        return;
      }
      case 'redis_pause': {
        await control.client('PAUSE', String(500 + Math.floor(Math.random() * 1_500)), 'ALL');
        counts[kind]++;
        return;
      }
    }
  }

  /**
   * As a supervisor does: a worker that exits while starting (its connection terminated by another
   * fault before it was ready) is started again, each such exit noted.
   */
  async function restartWorker(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await o.env.start('worker');
        return;
      } catch (err) {
        miss('worker restart failed, started again');
        if (attempt >= 10) throw err;
        await sleep(1_000);
      }
    }
  }

  const pick = (): FaultKind => {
    let r = Math.random() * WEIGHTS.reduce((a, [, w]) => a + w, 0);
    for (const [k, w] of WEIGHTS) if ((r -= w) < 0) return k;
    return WEIGHTS[0]![0];
  };

  const done = (async () => {
    await admin.connect();
    const start = Date.now();
    let lastKill = start;
    let lastPause = start;
    try {
      for (let n = 0; total() < o.target && !o.stop(); n++) {
        const t0 = Date.now();
        let kind = pick();
        if (t0 - lastKill >= killEvery) [kind, lastKill] = ['worker_sigkill', t0];
        else if (t0 - lastPause >= pauseEvery) [kind, lastPause] = ['redis_pause', t0];
        await one(kind).catch((err: Error) => miss(`${kind}: ${err.message.slice(0, 60)}`));
        // Paced on the clock: a fault that took longer than the interval is caught up on.
        await sleep(Math.max(0, start + (n + 1) * o.intervalMs - Date.now()));
      }
      await Promise.all(inFlight);
      // A restarted worker still starting is awaited too (it is in inFlight until it is up).
    } finally {
      control.disconnect();
      await admin.end().catch(() => {});
    }
  })();
  return { counts, missed, done };
}
