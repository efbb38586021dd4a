/**
 * Redis for the benchmark and the fault tests: the shared server (cleaned by queue prefix) and a
 * private `redis-server` a test may stop and start, started by us and stopped by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './service-process.ts';

export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
