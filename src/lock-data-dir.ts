import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';

/** PGlite is a single-process database: two processes writing one data directory lose writes. */
export class DataDirLockedError extends Error {
  constructor(dir: string, holder: LockHolder | null) {
    const who = holder
      ? `process ${holder.pid} on ${holder.host} (role ${holder.role}, since ${holder.since})`
      : 'another process (its PID file is missing)';
    super(
      `The embedded data directory ${dir} is in use by ${who}. Only one process may use it: ` +
        'stop that process, or give this one its own DATA_DIR, or use PostgreSQL and Redis (DATABASE_URL, REDIS_URL) to run several.',
    );
    this.name = 'DataDirLockedError';
  }
}

type LockHolder = { pid: number; host: string; role: string; since: string };

/** How old the lock's mtime must be before a crashed holder's lock is taken over. */
const STALE_MS = 10_000;

/**
 * Holds `DATA_DIR/server.lock` (proper-lockfile: an atomic `mkdir`, its mtime refreshed while we
 * live) for the life of the process and writes `DATA_DIR/server.pid` naming the holder.
 *
 * A second process exits at once while the holder is alive. When the recorded holder is gone (a
 * `kill -9` leaves the lock directory behind), we wait until the lock is stale by its mtime and let
 * proper-lockfile take it over: the holder is known dead on this host, and waiting for the stale
 * mark rather than deleting the directory ourselves keeps two newcomers from both "winning".
 */
export async function lockDataDir(
  dataDir: string,
  role: string,
  o: { onCompromised: (err: Error) => void },
): Promise<() => Promise<void>> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'server.lock');
  const pidFile = join(dir, 'server.pid');
  const opts = {
    lockfilePath: lockPath,
    stale: STALE_MS,
    update: STALE_MS / 5,
    realpath: false,
    onCompromised: o.onCompromised,
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    const holder = readHolder(pidFile);
    if (holder && isAlive(holder)) throw new DataDirLockedError(dir, holder);
    // The holder is gone (or unknown): the lock turns stale within STALE_MS unless someone refreshes it.
    try {
      release = await lockfile.lock(dir, {
        ...opts,
        retries: { retries: Math.ceil((STALE_MS * 1.5) / 1000), factor: 1, minTimeout: 1000, maxTimeout: 1000 },
      });
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dir, readHolder(pidFile));
      throw again;
    }
  }
  const me: LockHolder = { pid: process.pid, host: hostname(), role, since: new Date().toISOString() };
  writeFileSync(pidFile, `${JSON.stringify(me)}\n`);
  return async () => {
    rmSync(pidFile, { force: true });
    await release().catch(() => {});
  };
}

function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return typeof h.pid === 'number'
      ? { pid: h.pid, host: h.host ?? '?', role: h.role ?? '?', since: h.since ?? '?' }
      : null;
  } catch {
    return null;
  }
}

/** Alive as far as this host can tell: another host's process is assumed alive (the mtime decides). */
function isAlive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  // In a container every first process is PID 1: a recorded PID equal to ours is a previous life.
  if (h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
