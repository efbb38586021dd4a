import { Redis, type RedisOptions } from 'ioredis';

/**
 * Where Redis is: `REDIS_URL` alone, or Redis Sentinel (`REDIS_SENTINELS`, `REDIS_SENTINEL_NAME`),
 * which names the current primary of a replicated group and a new one after a failover. With
 * sentinels, the URL still gives the password, the database number and TLS (`rediss:`); its host
 * and port are not used.
 */
export type RedisTarget = {
  url: string;
  sentinels?: ReadonlyArray<{ host: string; port: number }>;
  sentinelName?: string;
};

/** A new connection to the target with these options. */
export function connectRedis(target: RedisTarget, options: RedisOptions): Redis {
  if (!target.sentinels?.length) return new Redis(target.url, options);
  const u = new URL(target.url);
  const db = Number(u.pathname.slice(1) || 0);
  return new Redis({
    ...options,
    sentinels: [...target.sentinels],
    name: target.sentinelName ?? 'mymaster',
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    // Subscribes to the sentinels' +switch-master: a failover is followed at once, not only when
    // the old primary's connection drops.
    failoverDetector: true,
  });
}
