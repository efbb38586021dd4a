/**
 * Real service processes for the benchmark and the fault tests: `node src/main.ts <role>` as a
 * child process, its own PostgreSQL database, and (for tests that kill Redis) a throwaway
 * `redis-server`. Everything here is started by us and stopped by pid, never by name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export type Role = 'serve' | 'http' | 'worker' | 'migrate';

export type ServiceProcess = {
  role: Role;
  pid: number;
  child: ChildProcess;
  /** Base URL without trailing slash (http and serve roles). */
  url: string;
  port: number;
  /** Last lines of stdout+stderr, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends a signal to this process only. */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<number | string>;
};

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `node src/main.ts <role>` and waits until it is usable: `/healthz` answers (http, serve)
 * or the "workers started" log line appears (worker; needs LOG_LEVEL info or lower).
 */
export async function startService(
  role: Role,
  env: Record<string, string>,
  opts: {
    port?: number;
    readyTimeoutMs?: number;
    /** Worker role with LOG_LEVEL above info (no readiness line): consider it ready after this long. */
    workerReadyAfterMs?: number;
    /** Another checkout of this repository to run the service from (a before/after benchmark). */
    dir?: string;
  } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (role === 'worker' || role === 'migrate' ? 0 : await freePort());
  const child = spawn(process.execPath, ['src/main.ts', role], {
    cwd: opts.dir ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let workersStarted = false;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      if (line.includes('"workers started"')) workersStarted = true;
      lines.push(line);
      if (lines.length > 5000) lines.shift();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exitedWith: number | string | null = null;
  // Never leave a service behind if this process ends first (a crash, a hard timeout).
  const reap = () => {
    if (exitedWith === null) child.kill('SIGKILL');
  };
  process.once('exit', reap);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, sig) => {
      exitedWith = code ?? sig ?? 'unknown';
      process.off('exit', reap);
      resolve(exitedWith);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const proc: ServiceProcess = {
    role,
    pid: child.pid as number,
    child,
    url,
    port,
    exited,
    output: () => lines.join('\n'),
    signal(sig) {
      if (exitedWith === null) child.kill(sig);
    },
    async stop(graceMs = 15_000) {
      if (exitedWith !== null) return exitedWith;
      child.kill('SIGTERM');
      const t = setTimeout(() => {
        if (exitedWith === null) child.kill('SIGKILL');
      }, graceMs);
      const r = await exited;
      clearTimeout(t);
      return r;
    },
  };
  if (role === 'migrate') return proc;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (exitedWith !== null) throw new Error(`${role} exited (${exitedWith}) before it was ready:\n${proc.output()}`);
    if (role === 'worker') {
      if (workersStarted) return proc;
      if (
        opts.workerReadyAfterMs !== undefined &&
        Date.now() >= deadline - (opts.readyTimeoutMs ?? 30_000) + opts.workerReadyAfterMs
      )
        return proc;
    } else {
      const ok = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return proc;
    }
    await sleep(50);
  }
  await proc.stop(1_000);
  throw new Error(`${role} not ready within the timeout:\n${proc.output()}`);
}

/** Runs `node src/main.ts migrate` against a database and waits for it. */
export async function migrateDatabase(databaseUrl: string, dir?: string): Promise<void> {
  const p = await startService('migrate', { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, { dir });
  const code = await p.exited;
  if (code !== 0) throw new Error(`migrate failed (${code}):\n${p.output()}`);
}

export type TempDatabase = { name: string; url: string; pool: pg.Pool; drop(): Promise<void> };

/**
 * A fresh, migrated database on the shared PostgreSQL (migrated by the service in `dir`, this
 * checkout by default); `drop()` removes it.
 */
export async function createTempDatabase(prefix: string, dir?: string): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const db = await useExistingDatabase(name, dir);
  return {
    ...db,
    async drop() {
      await db.drop();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * An existing database on the shared PostgreSQL, migrated like a temporary one; `drop()` only
 * closes the pool (the database and its rows stay).
 */
export async function useExistingDatabase(name: string, dir?: string): Promise<TempDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const u = new URL(BASE_DATABASE_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  await migrateDatabase(url, dir);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  return { name, url, pool, drop: () => pool.end().catch(() => {}) };
}

/** Runs one statement on the maintenance database. */
export async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

export type ThrowawayRedis = {
  port: number;
  url: string;
  pid: number | null;
  start(): Promise<void>;
  stop(): Promise<void>;
};

/** A private `redis-server` (no persistence) that a test may stop and start again on the same port. */
export async function createThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let gone: Promise<void> = Promise.resolve();
  const r: ThrowawayRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: null,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      r.pid = child.pid ?? null;
      const c = child;
      const reap = () => {
        if (c.exitCode === null) c.kill('SIGKILL');
      };
      process.once('exit', reap);
      gone = new Promise((resolve) =>
        c.on('exit', () => {
          process.off('exit', reap);
          resolve();
        }),
      );
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (await pingRedis(port)) return;
        await sleep(50);
      }
      throw new Error(`redis-server on port ${port} did not start`);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      child.kill('SIGKILL');
      await gone;
      child = null;
      r.pid = null;
    },
  };
  await r.start();
  return r;
}

async function pingRedis(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.on('error', () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Resident memory of a process in KiB: current (VmRSS) and peak (VmHWM). */
export function readMemoryKiB(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) =>
      Number(/\s(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(`${k}:`)) ?? '')?.[1] ?? NaN);
    return { rss: get('VmRSS'), hwm: get('VmHWM') };
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function readCpuMs(pid: number): number | null {
  const t = readCpuTimes(pid);
  return t ? t.user + t.system : null;
}

/** User and system CPU time of a process so far, in milliseconds (clock ticks of 10 ms). */
export function readCpuTimes(pid: number): { user: number; system: number } | null {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
  } catch {
    return null;
  }
}

/** CPU time (ms) of every process on the host by pid, with its command name (from /proc). */
export function readAllProcessCpu(): Map<number, { comm: string; ms: number }> {
  const out = new Map<number, { comm: string; ms: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), { comm, ms: ((Number(f[11]) + Number(f[12])) * 1000) / 100 });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Host CPU counters (busy and total jiffies over all cores), for a busy share between two reads. */
export function readHostCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3]! + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Deletes every Redis key under a queue prefix (SCAN, never KEYS/FLUSH on the shared server). */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await r.connect();
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}
