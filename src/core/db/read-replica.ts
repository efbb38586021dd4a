import type { EntityManager } from '@mikro-orm/sql';
import { withDatabaseBound } from './db-bound.ts';

/**
 * Where a read that may be served by the read replica (DATABASE_READ_URL) goes: the replica while
 * it answers and is at most `maxLagMs` behind, the primary otherwise; and the primary for the keys
 * (a program, a partner) written to since the replica was last known to be current.
 *
 * How far behind is measured with WAL positions only, never clocks: each check (at most one per
 * `checkEveryMs`, started by the read that finds the last one stale) reads the primary's
 * `pg_current_wal_lsn()` then the replica's `pg_last_wal_replay_lsn()`. The replica is current as of
 * the start of the latest check whose primary position it has replayed (`freshAsOf`); the lag is
 * the time since. A write answered at time `w` pins its keys to the primary until `freshAsOf >= w`:
 * a position read after the write's commit has been replayed, so the replica shows the write
 * (read-your-writes). A pin outlives its write by at most the lag limit: past it the replica
 * serves no one anyway.
 *
 * The pins are per process: a write answered by one process pins reads on that process only.
 */
export type ReadReplica = {
  /** `replica` when a read for these keys may go to the replica now. */
  choose(keys: readonly string[]): Promise<'replica' | 'primary'>;
  /** A write for these keys was answered: their reads go to the primary until the replica replayed it. */
  noteWrite(keys: readonly string[]): void;
  /** A read on the replica failed (connection refused, dropped): the replica is down until the next check. */
  markDown(reason: string): void;
  state(): ReplicaState;
};

export type ReplicaState = {
  /** `serving`: reads go to the replica; `down`: it does not answer; `lagging`: over the limit. */
  status: 'serving' | 'down' | 'lagging' | 'unknown';
  /** Milliseconds the replica is behind the primary (null: unknown, never caught up since start). */
  lagMs: number | null;
  /** Keys pinned to the primary by a recent write. */
  pinned: number;
};

export type ReplicaLog = {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
};

type Sample = { at: number; lsn: bigint };

/** `X/Y` (hex halves) as one number; null for a null position. */
export function parseLsn(text: string | null | undefined): bigint | null {
  if (!text) return null;
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

const PRIMARY_POSITION = 'select pg_current_wal_lsn()::text as lsn';
// A server that is not a standby (a replica promoted, or the primary itself) is current by definition.
const REPLICA_POSITION =
  'select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn';

async function position(em: EntityManager, sql: string, boundMs: number): Promise<bigint> {
  const rows = await withDatabaseBound(boundMs, () =>
    em.fork().getConnection().execute<{ lsn: string | null }[]>(sql, [], 'all'),
  );
  const lsn = parseLsn(rows[0]?.lsn);
  if (lsn === null) throw new Error('no WAL position (the replica has replayed nothing yet)');
  return lsn;
}

export function createReadReplica(o: {
  primary: EntityManager;
  replica: EntityManager;
  maxLagMs: number;
  log: ReplicaLog;
  checkEveryMs?: number;
  /** Bound of each check's statement (and of waiting for its connection). */
  checkTimeoutMs?: number;
  now?: () => number;
}): ReadReplica {
  const now = o.now ?? (() => performance.now());
  const every = o.checkEveryMs ?? 1_000;
  const bound = o.checkTimeoutMs ?? 1_000;
  const pins = new Map<string, number>();
  let samples: Sample[] = [];
  let freshAsOf = Number.NEGATIVE_INFINITY;
  let up = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | null = null;
  let reported: ReplicaState['status'] = 'unknown';
  let lastError = '';

  const lagMs = () => (Number.isFinite(freshAsOf) ? Math.max(0, now() - freshAsOf) : null);
  const status = (): ReplicaState['status'] => {
    if (checkedAt === Number.NEGATIVE_INFINITY) return 'unknown';
    if (!up) return 'down';
    const lag = lagMs();
    return lag !== null && lag <= o.maxLagMs ? 'serving' : 'lagging';
  };
  const report = () => {
    const s = status();
    if (s === reported) return;
    reported = s;
    const lag = lagMs();
    const fields = { status: s, lagMs: lag === null ? null : Math.round(lag), maxLagMs: o.maxLagMs };
    if (s === 'serving') o.log.info(fields, 'read replica: serving reads');
    else if (s === 'down')
      o.log.warn({ ...fields, err: lastError }, 'read replica: not answering, reads go to the primary');
    else o.log.warn(fields, 'read replica: lagging over DATABASE_READ_MAX_LAG_MS, reads go to the primary');
  };

  const check = async () => {
    const at = now();
    try {
      // The primary first: a position the replica has replayed was read at or after `at`.
      const primaryLsn = await position(o.primary, PRIMARY_POSITION, bound);
      samples.push({ at, lsn: primaryLsn });
    } catch {
      // The primary does not answer: nothing to compare with; the reads that go there will say so.
    }
    try {
      const replayed = await position(o.replica, REPLICA_POSITION, bound);
      up = true;
      for (let i = samples.length - 1; i >= 0; i--) {
        if (samples[i]!.lsn <= replayed) {
          freshAsOf = Math.max(freshAsOf, samples[i]!.at);
          samples = samples.slice(i + 1);
          break;
        }
      }
    } catch (err) {
      up = false;
      lastError = (err as Error).message;
    }
    // Older samples than twice the limit would only say the replica is over it: not kept.
    samples = samples.filter((s) => s.at >= at - 2 * o.maxLagMs - every);
    for (const [key, writtenAt] of pins) if (writtenAt <= freshAsOf) pins.delete(key);
    checkedAt = now();
    report();
  };

  return {
    async choose(keys) {
      if (now() - checkedAt >= every && !running) {
        running = check().finally(() => {
          running = null;
        });
        // Only the first check is waited for: later ones run beside the reads, which take the state
        // as it was (a hung replica costs no read the check's bound).
        if (checkedAt === Number.NEGATIVE_INFINITY) await running;
      }
      // The lag grows between checks too: a read may be the first to find it over the limit.
      report();
      if (status() !== 'serving') return 'primary';
      for (const key of keys) {
        const writtenAt = pins.get(key);
        if (writtenAt !== undefined && writtenAt > freshAsOf) return 'primary';
      }
      return 'replica';
    },
    noteWrite(keys) {
      const at = now();
      for (const key of keys) pins.set(key, at);
    },
    markDown(reason) {
      up = false;
      lastError = reason;
      checkedAt = now();
      report();
    },
    state: () => ({ status: status(), lagMs: lagMs(), pinned: pins.size }),
  };
}
