import type { Redis } from 'ioredis';
import type { Logger } from '../core/deps.ts';

export type RateDecision = { allowed: boolean; retryAfterSeconds: number; remaining: number };
export type RateLimiter = { hit(key: string, limitPerMinute: number, now: Date): Promise<RateDecision> };

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per API key: Redis-backed (shared by every HTTP process) when Redis is
 * configured, in memory otherwise. If Redis cannot answer, the request is allowed (fail open) and
 * the outage is logged: rate limiting must not turn a Redis blip into lost sales.
 */
export function createRateLimiter(redis: Redis | null, prefix: string, log: Logger): RateLimiter {
  const local = new Map<string, { window: number; count: number }>();
  const decide = (count: number, limit: number, window: number, now: number): RateDecision => ({
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)),
  });
  return {
    async hit(key, limit, at) {
      const now = at.getTime();
      const window = Math.floor(now / WINDOW_MS);
      if (!redis) {
        const cur = local.get(key);
        const entry = cur && cur.window === window ? cur : { window, count: 0 };
        entry.count++;
        local.set(key, entry);
        if (local.size > 10_000) for (const [k, v] of local) if (v.window < window) local.delete(k);
        return decide(entry.count, limit, window, now);
      }
      try {
        const rkey = `${prefix}:rl:${key}:${window}`;
        const res = await redis.multi().incr(rkey).pexpire(rkey, WINDOW_MS * 2).exec();
        return decide(Number(res?.[0]?.[1] ?? 0), limit, window, now);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'rate limiter unavailable; allowing request');
        return { allowed: true, retryAfterSeconds: 0, remaining: limit };
      }
    },
  };
}
