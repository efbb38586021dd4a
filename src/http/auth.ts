import { z } from 'zod';
import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/errors.ts';
import { authenticateApiKey, hashApiKey, type AuthenticatedKey } from '../core/api-keys.ts';
import { Program } from '../core/entities/program.ts';

export type RequestAuth = AuthenticatedKey & { rateLimitPerMinute: number };

const BEARER = /^Bearer[ ]+([A-Za-z0-9_\-.~+/=]{8,512})$/;

/** Bearer authentication with a short per-process cache of key lookups. */
export async function authenticate(ctx: RouteContext, event: H3Event): Promise<RequestAuth> {
  const m = BEARER.exec(event.req.headers.get('authorization')?.trim() ?? '');
  if (!m) throw new AppError('unauthorized', 'Missing or malformed Authorization header; expected "Bearer <API_KEY>"');
  const now = ctx.clock();
  const hash = hashApiKey(m[1]!);
  const cached = ctx.keyCache.get(hash, now.getTime()) as RequestAuth | undefined;
  if (cached && (!cached.rotateBy || cached.rotateBy > now)) return remember(event, cached);
  const key = await authenticateApiKey(ctx.deps(), m[1]!, ctx.config.DOCS_URL);
  const program = await ctx.db.em
    .fork()
    .findOneOrFail(Program, { id: key.programId }, { fields: ['rateLimitPerMinute'] });
  const auth: RequestAuth = { ...key, rateLimitPerMinute: program.rateLimitPerMinute };
  ctx.keyCache.set(hash, auth, now.getTime());
  return remember(event, auth);
}

function remember(event: H3Event, auth: RequestAuth): RequestAuth {
  event.context.programId = auth.programId;
  if (auth.rotateBy) {
    // Retired key inside its grace period: still accepted, but every response says so.
    const headers = (event.context.responseHeaders ??= {}) as Record<string, string>;
    headers.deprecation = 'true';
    headers.sunset = auth.rotateBy.toUTCString();
  }
  return auth;
}

/** The `warnings` member added to success bodies while a retired key is still accepted. */
export function keyWarnings(auth: RequestAuth): { warnings?: Array<Record<string, string>> } {
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
export async function enforceRateLimit(ctx: RouteContext, auth: RequestAuth): Promise<void> {
  const d = await ctx.rateLimiter.hit(`key${auth.keyId}`, auth.rateLimitPerMinute);
  if (!d.allowed) {
    ctx.metrics.rateLimited.inc({ limiter: 'api_key' });
    throw new AppError(
      'rate_limited',
      `Rate limit of ${auth.rateLimitPerMinute} requests per minute exceeded`,
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
