/**
 * Real service processes for the benchmark and the fault tests: `node src/main.ts <role>` as a
 * child process. Their databases: temp-database.ts; a Redis a test may stop: throwaway-redis.ts;
 * what they cost: proc-stats.ts. Everything here is started by us and stopped by pid, never by name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
    /** A command the service runs under, e.g. valgrind and its options (the benchmark's instruction count). */
    wrapper?: string[];
    /** Options for node itself, before the script (V8 flags NODE_OPTIONS does not accept). */
    nodeArgs?: string[];
  } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (role === 'worker' || role === 'migrate' ? 0 : await freePort());
  const argv = [...(opts.wrapper ?? []), process.execPath, ...(opts.nodeArgs ?? []), 'src/main.ts', role];
  const child = spawn(argv[0]!, argv.slice(1), {
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
