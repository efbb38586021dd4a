/**
 * A private PgBouncer (Debian's `pgbouncer` package) in front of the shared PostgreSQL, for the
 * tests of the service behind a transaction-mode pooler: started by us on a free port, stopped by
 * pid, restartable on the same port. Run as the `postgres` system user when we are root (PgBouncer
 * refuses to run as root).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type PgBouncer = {
  port: number;
  /** The URL of `database` through the pooler (same user as the target URL). */
  urlFor(database: string): string;
  start(): Promise<void>;
  /** SIGKILL: every client connection drops at once. */
  stop(): Promise<void>;
  close(): Promise<void>;
};

/** Whether the `pgbouncer` binary is installed (`.ci/run` installs it). */
export function hasPgBouncer(): boolean {
  try {
    execFileSync('pgbouncer', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function createPgBouncer(o: {
  target: { host: string; port: number; user: string };
  poolMode: 'transaction' | 'session';
  poolSize?: number;
}): Promise<PgBouncer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o777);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${o.target.host} port=${o.target.port} user=${o.target.user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = any',
      `pool_mode = ${o.poolMode}`,
      `default_pool_size = ${o.poolSize ?? 20}`,
      'max_client_conn = 500',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    ].join('\n'),
  );
  chmodSync(ini, 0o644);
  let child: ChildProcess | null = null;
  let gone: Promise<void> = Promise.resolve();
  const asRoot = process.getuid?.() === 0;
  const b: PgBouncer = {
    port,
    urlFor: (database) => `postgres://${o.target.user}@127.0.0.1:${port}/${database}`,
    async start() {
      rmSync(join(dir, 'pgbouncer.pid'), { force: true });
      child = spawn('pgbouncer', [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: 'ignore' });
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
        if (c.exitCode !== null) throw new Error(`pgbouncer exited (${c.exitCode}); config ${ini}`);
        if (await listening(port)) return;
        await sleep(50);
      }
      throw new Error(`pgbouncer on port ${port} did not start`);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      child.kill('SIGKILL');
      await gone;
      child = null;
    },
    async close() {
      await b.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await b.start();
  return b;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.setTimeout(500, () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(false));
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
  });
}
