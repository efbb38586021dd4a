/**
 * A private replicated Redis watched by Redis Sentinel, for the failover scenario: a primary, one
 * replica and three sentinels (quorum 2), each a `redis-server` started by us on a free port and
 * stopped by pid. Sentinels mark a primary down after 1 s and promote the replica.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './service-process.ts';

export const SENTINEL_NAME = 'mymaster';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type SentinelGroup = {
  primaryPort: number;
  replicaPort: number;
  /** `host:port,…` for REDIS_SENTINELS. */
  sentinels: string;
  /** The port the sentinels name as primary now. */
  currentPrimaryPort(): Promise<number>;
  /** SIGKILL the process that is primary now; resolves when the sentinels name another. */
  killPrimary(timeoutMs?: number): Promise<{ newPrimaryPort: number; failoverMs: number }>;
  close(): Promise<void>;
};

export async function createSentinelGroup(): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-'));
  const children = new Map<number, ChildProcess>();
  const run = (port: number, args: string[]) => {
    const c = spawn('redis-server', args, { stdio: 'ignore' });
    const reap = () => c.exitCode === null && c.kill('SIGKILL');
    process.once('exit', reap);
    c.on('exit', () => process.off('exit', reap));
    children.set(port, c);
  };
  const server = (port: number, extra: string[] = []) =>
    run(port, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra]);
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  server(primaryPort);
  server(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const port of sentinelPorts) {
    // A sentinel rewrites its own file: one each, in our directory.
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
      ].join('\n'),
    );
    run(port, [conf, '--sentinel']);
  }
  const ask = async <T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> => {
    const r = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
    r.on('error', () => {});
    try {
      await r.connect();
      return await fn(r);
    } finally {
      r.disconnect();
    }
  };
  const currentPrimaryPort = () =>
    ask(sentinelPorts[0]!, async (r) => {
      const addr = (await r.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME)) as [string, string];
      return Number(addr[1]);
    });
  // Ready: the replica in sync, every sentinel seeing it and the two others.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await Promise.all(
      sentinelPorts.map((p) =>
        ask(p, async (r) => {
          const replicas = (await r.call('SENTINEL', 'replicas', SENTINEL_NAME)) as string[][];
          const others = (await r.call('SENTINEL', 'sentinels', SENTINEL_NAME)) as unknown[];
          const info = await ask(replicaPort, (x) => x.info('replication'));
          return replicas.length === 1 && others.length === 2 && info.includes('master_link_status:up');
        }).catch(() => false),
      ),
    );
    if (ready.every(Boolean)) break;
    if (Date.now() > deadline) throw new Error('the sentinel group did not come up within 30 s');
    await sleep(200);
  }
  return {
    primaryPort,
    replicaPort,
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    currentPrimaryPort,
    async killPrimary(timeoutMs = 30_000) {
      const was = await currentPrimaryPort();
      const t0 = Date.now();
      children.get(was)?.kill('SIGKILL');
      for (;;) {
        const now = await currentPrimaryPort().catch(() => was);
        if (now !== was) return { newPrimaryPort: now, failoverMs: Date.now() - t0 };
        if (Date.now() - t0 > timeoutMs) throw new Error(`no failover within ${timeoutMs} ms`);
        await sleep(100);
      }
    },
    async close() {
      for (const c of children.values()) if (c.exitCode === null) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
