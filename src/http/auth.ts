import { z } from 'zod';
import type { H3Event, Middleware } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { authenticateApiKey, hashApiKey, type AuthenticatedKey } from '../core/programs/api-keys.ts';
import { stageHeader } from './route.ts';
import { clientAddress } from './client-address.ts';
import { publicOrigin } from '../public-origin.ts';

const BEARER = /^Bearer[ ]+([A-Za-z0-9_\-.~+/=]{8,512})$/;

/**
 * Per-key budgets: `requests` is the program's rate limit of the tracking calls; `status` the
 * status call's own (four counts per call), apart from the tracking calls'.
 */
type KeyBudget = 'requests' | 'status';

/**
 * Route middleware of the keyed endpoints: authenticates the bearer key, spends one unit of its
 * `budget` and puts the key on `event.context.apiKey`. With `optional`, a request without an
 * Authorization header passes through unauthenticated (keyless browser calls, checked by the route).
 */
export function requireApiKey(ctx: RouteContext, opts: { optional?: boolean; budget?: KeyBudget } = {}): Middleware {
  return async (event) => {
    if (opts.optional && !event.req.headers.has('authorization')) return;
    await enforceRateLimit(ctx, await authenticate(ctx, event), opts.budget ?? 'requests');
  };
}

/** Bearer authentication with a short per-process cache of key lookups. */
async function authenticate(ctx: RouteContext, event: H3Event): Promise<AuthenticatedKey> {
  const m = BEARER.exec(event.req.headers.get('authorization')?.trim() ?? '');
  if (!m) throw new AppError('unauthorized', 'Missing or malformed Authorization header; expected "Bearer <API_KEY>"');
  const now = ctx.clock();
  const hash = hashApiKey(m[1]!);
  let key = ctx.keyCache.get(hash, now.getTime());
  if (!key || (key.rotateBy && key.rotateBy <= now)) {
    const docsUrl = ctx.config.DOCS_URL ?? `${publicOrigin(ctx.config)}/docs`;
    key = await authenticateApiKey(ctx.deps(), m[1]!, docsUrl).catch((err: unknown) => keyRefused(ctx, event, err));
    ctx.keyCache.set(hash, key, now.getTime());
  }
  event.context.apiKey = key;
  if (key.rotateBy) {
    // Retired key inside its grace period: still accepted, but every response says so.
    stageHeader(event, 'deprecation', 'true');
    stageHeader(event, 'sunset', key.rotateBy.toUTCString());
  }
  return key;
}

/**
 * A key that is unknown or revoked counts against its client (API_KEY_FAILURES_PER_MINUTE): past
 * the budget its further failures answer 429, so keys cannot be guessed at speed. Only failures
 * are counted, after the lookup: a valid key always passes, whoever else shares the address. MCP
 * tokens (routes/mcp.ts) count in the same budget.
 */
export async function keyRefused(ctx: RouteContext, event: H3Event, err: unknown): Promise<never> {
  if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err;
  const client = clientAddress(event, ctx.config.TRUST_PROXY);
  const d = await ctx.rateLimiter.hit(`key-fail-${client}`, ctx.config.API_KEY_FAILURES_PER_MINUTE);
  if (!d.allowed) {
    ctx.metrics.rateLimited.inc({ limiter: 'api_key_failures' });
    throw new AppError(
      'rate_limited',
      'Too many unknown API keys from this client',
      {},
      { retry_after_seconds: d.retryAfterSeconds },
    );
  }
  throw err;
}

/** The `warnings` member added to success bodies while a retired key is still accepted. */
export function keyWarnings(auth: AuthenticatedKey): { warnings?: Array<Record<string, string>> } {
  if (!auth.rotateBy) return {};
  return {
    warnings: [
      {
        code: 'api_key_rotation_required',
        message: 'This API key is retired; rotate it before rotate_by.',
        rotate_by: auth.rotateBy.toISOString(),
      },
    ],
  };
}

/** Per-key fixed-window rate limit (spec: 429 `rate_limited` with `retry_after_seconds`). */
async function enforceRateLimit(ctx: RouteContext, auth: AuthenticatedKey, budget: KeyBudget): Promise<void> {
  const [bucket, perMinute, limiter] =
    budget === 'status'
      ? [`status-key${auth.keyId}`, ctx.config.STATUS_LIMIT_PER_MINUTE, 'status']
      : [`key${auth.keyId}`, auth.rateLimitPerMinute, 'api_key'];
  const d = await ctx.rateLimiter.hit(bucket, perMinute);
  if (!d.allowed) {
    ctx.metrics.rateLimited.inc({ limiter });
    throw new AppError(
      'rate_limited',
      `Rate limit of ${perMinute} ${budget === 'status' ? 'status calls' : 'requests'} per minute exceeded`,
      {},
      { retry_after_seconds: d.retryAfterSeconds },
    );
  }
}

/** The `warnings` member of a success body answered with a retired key still in its grace period. */
export const keyWarningsSchema = z
  .array(
    z.strictObject({ code: z.literal('api_key_rotation_required'), message: z.string(), rotate_by: z.iso.datetime() }),
  )
  .optional();
