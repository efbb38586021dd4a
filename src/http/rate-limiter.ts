import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from '../core/deps.ts';

export type RateDecision = { allowed: boolean; retryAfterSeconds: number; remaining: number };
export type RateLimiter = {
  /** Counts one request against `key` (at most `limitPerMinute` per rolling one-minute window). */
  hit(key: string, limitPerMinute: number): Promise<RateDecision>;
  /** Whether `key` is already over `limitPerMinute`, without counting (admin auth failures). */
  blocked(key: string, limitPerMinute: number): Promise<RateDecision>;
};

const WINDOW_SECONDS = 60;

/**
 * How long a request waits for Redis's count before the in-memory limiter decides instead. Redis
 * answers in about a millisecond; a hung one (a network partition, a stopped server) keeps its
 * connection open and never errors, so without a bound every limited request would wait with it.
 */
export const LIMITER_TIMEOUT_MS = 250;

/**
 * One-minute windows through `rate-limiter-flexible`: Redis-backed (shared by every HTTP process)
 * when Redis is configured, in memory otherwise. If Redis cannot answer, or not within
 * `LIMITER_TIMEOUT_MS` (the library's `RLWrapperTimeouts`), a per-process memory limiter stands in
 * (the wrapper's `insuranceLimiter`), so a Redis blip or hang neither holds requests, loses sales
 * nor lifts the limits; an unexpected failure lets the request through and is logged.
 */
export function createRateLimiter(redis: Redis | null, prefix: string, log: Logger): RateLimiter {
  // One counter per key whatever its limit: the limit is compared here, so a program whose limit
  // changes keeps this minute's count (one limiter per limit value would start a fresh count).
  const points = Number.MAX_SAFE_INTEGER;
  const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: `${prefix}-rl` });
  // The insurance belongs to the wrapper alone: on the inner limiter too, a Redis error arriving
  // after the timeout would count the same request in memory a second time.
  const limiter: RateLimiterAbstract = redis
    ? new RLWrapperTimeouts({
        limiter: new RateLimiterRedis({
          storeClient: redis,
          points,
          duration: WINDOW_SECONDS,
          keyPrefix: `${prefix}:rl`,
        }),
        timeoutMs: LIMITER_TIMEOUT_MS,
        insuranceLimiter: memory,
      })
    : memory;
  const decision = (res: RateLimiterRes, limit: number, allowed: boolean): RateDecision => ({
    allowed,
    remaining: Math.max(0, limit - res.consumedPoints),
    retryAfterSeconds: Math.max(1, Math.ceil((res.msBeforeNext ?? 1000) / 1000)),
  });
  const open = (err: unknown, limit: number): RateDecision => {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate limiter unavailable; allowing request');
    return { allowed: true, retryAfterSeconds: 0, remaining: limit };
  };
  return {
    async hit(key, limit) {
      try {
        const res = await limiter.consume(key);
        return decision(res, limit, res.consumedPoints <= limit);
      } catch (err) {
        return open(err, limit);
      }
    },
    async blocked(key, limit) {
      try {
        const res = await limiter.get(key);
        return res
          ? decision(res, limit, res.consumedPoints < limit)
          : { allowed: true, retryAfterSeconds: 0, remaining: limit };
      } catch (err) {
        return open(err, limit);
      }
    },
  };
}
