import { Gauge, type Registry } from 'prom-client';
import type { ReadReplica } from '../core/db/read-replica.ts';

const STATUSES = ['serving', 'down', 'lagging', 'unknown'] as const;

/**
 * The read replica's state (DATABASE_READ_URL), read from the router at scrape time: registered only
 * when a replica is configured. `tracker_read_replica_status` is 1 for the current status only.
 */
export function registerReplicaGauges(registry: Registry, replica: ReadReplica): void {
  new Gauge({
    registers: [registry],
    name: 'tracker_read_replica_status',
    help: 'Read replica status as this process last found it (1 = current): serving, down, lagging, unknown',
    labelNames: ['status'] as const,
    collect() {
      const now = replica.state().status;
      for (const s of STATUSES) this.set({ status: s }, s === now ? 1 : 0);
    },
  });
  new Gauge({
    registers: [registry],
    name: 'tracker_read_replica_lag_seconds',
    help: 'How far the read replica is behind the primary as last checked (-1: unknown)',
    collect() {
      const lag = replica.state().lagMs;
      this.set(lag === null ? -1 : lag / 1000);
    },
  });
}
