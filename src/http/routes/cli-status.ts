import type { RouteContext } from '../http-context.ts';
import { getProgramStatus } from '../../core/get-program-status.ts';
import { authenticate, keyWarnings } from '../auth.ts';
import { route } from '../route.ts';
import { AppError } from '../../core/errors.ts';

/** GET /api/v1/cli/status: program health for the merchant CLI. */
export function cliStatusRoute(ctx: RouteContext) {
  return route(ctx, async (event) => {
    const auth = await authenticate(ctx, event);
    // Four counts per call: a budget of its own per key, apart from the tracking calls'.
    const d = await ctx.rateLimiter.hit(`status-key${auth.keyId}`, ctx.config.STATUS_LIMIT_PER_MINUTE);
    if (!d.allowed) ctx.metrics.rateLimited.inc({ limiter: 'status' });
    if (!d.allowed) throw new AppError('rate_limited', `Rate limit of ${ctx.config.STATUS_LIMIT_PER_MINUTE} status calls per minute exceeded`, {}, { retry_after_seconds: d.retryAfterSeconds });
    const status = await getProgramStatus(ctx.deps(), auth.programId, auth.mode);
    return { success: true, ...status, ...keyWarnings(auth) };
  });
}
