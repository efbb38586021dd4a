/**
 * A private PostgreSQL 15 primary and a streaming replica of it, for the read-replica tests: the
 * primary made by `initdb` in a temporary directory (wal_level=replica, a `replicator` role allowed
 * to replicate in pg_hba.conf), the replica by `pg_basebackup -R` into its own directory, each
 * `postgres` started by us on a free port and stopped by pid. Run as the `postgres` system user
 * when we are root (PostgreSQL refuses to run as root).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './service-process.ts';

const BIN = '/usr/lib/postgresql/15/bin';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type PgReplicaPair = {
  primaryPort: number;
  replicaPort: number;
  /** The URL of `database` on the primary / on the replica (user postgres, trust). */
  primaryUrl(database?: string): string;
  replicaUrl(database?: string): string;
  /** Runs one statement on the primary's `postgres` database (create database, …). */
  primaryQuery(sql: string): Promise<pg.QueryResult>;
  /** Fast shutdown of the replica (its clients' connections drop); `startReplica` brings it back. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** `pg_wal_replay_pause()` / `pg_wal_replay_resume()` on the replica: it receives WAL but applies none. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves when the replica has replayed everything the primary has written so far. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

/** Whether PostgreSQL 15's server binaries are installed. */
export function hasPostgresBinaries(): boolean {
  try {
    execFileSync(join(BIN, 'postgres'), ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function createPgReplicaPair(): Promise<PgReplicaPair> {
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
      }
    : {};
  const dir = mkdtempSync(join(tmpdir(), 'pg-replica-'));
  chmodSync(dir, 0o755);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const mine = (path: string) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (owner.uid !== undefined) chownSync(path, owner.uid, owner.gid!);
  };
  mine(primaryDir);
  mine(replicaDir);
  const run = (bin: string, args: string[]) =>
    execFileSync(join(BIN, bin), args, { ...owner, stdio: 'pipe', cwd: dir, env: { ...process.env, LC_ALL: 'C' } });

  run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  appendFileSync(join(primaryDir, 'pg_hba.conf'), '\nhost replication replicator 127.0.0.1/32 trust\n');
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  const url = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;

  const children = new Map<string, { child: ChildProcess; gone: Promise<void> }>();
  const start = async (name: string, dataDir: string, port: number) => {
    const args = ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1'];
    const settings = ['wal_level=replica', 'max_wal_senders=5', 'hot_standby=on', 'fsync=off', 'max_connections=50'];
    const child = spawn(join(BIN, 'postgres'), [...args, ...settings.flatMap((s) => ['-c', s])], {
      ...owner,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-2_000);
    });
    const reap = () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    };
    process.once('exit', reap);
    const gone = new Promise<void>((resolve) =>
      child.on('exit', () => {
        process.off('exit', reap);
        resolve();
      }),
    );
    children.set(name, { child, gone });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgres (${name}) exited (${child.exitCode}): ${stderr}`);
      const ok = await queryOn(url(port), 'select 1').then(
        () => true,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`postgres (${name}) on port ${port} did not start`);
      await sleep(100);
    }
  };
  const stop = async (name: string) => {
    const c = children.get(name);
    if (!c || c.child.exitCode !== null) return;
    c.child.kill('SIGINT');
    await Promise.race([c.gone, sleep(10_000)]);
    if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await c.gone;
    children.delete(name);
  };

  const lsnQuery = 'select pg_current_wal_lsn() as lsn';
  const caughtUp = async () => {
    const [p] = (await queryOn(url(primaryPort), lsnQuery)).rows;
    const r = await queryOn(
      url(replicaPort),
      `select pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '${p.lsn}') >= 0 as ok`,
    );
    return r.rows[0].ok === true;
  };
  const pair: PgReplicaPair = {
    primaryPort,
    replicaPort,
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    primaryQuery: (sql) => queryOn(url(primaryPort), sql),
    stopReplica: () => stop('replica'),
    startReplica: () => start('replica', replicaDir, replicaPort),
    async pauseReplay() {
      await queryOn(url(replicaPort), 'select pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await queryOn(url(replicaPort), 'select pg_wal_replay_resume()');
    },
    async waitForReplay(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await caughtUp())) {
        if (Date.now() > deadline) throw new Error(`the replica did not catch up within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async close() {
      await stop('replica');
      await stop('primary');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await start('primary', primaryDir, primaryPort);
    await pair.primaryQuery('create role replicator with login replication');
    run('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'replicator'],
      ...['-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
    await start('replica', replicaDir, replicaPort);
    await pair.waitForReplay();
  } catch (err) {
    await pair.close();
    throw err;
  }
  return pair;
}

async function queryOn(connectionString: string, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end().catch(() => {});
  }
}
