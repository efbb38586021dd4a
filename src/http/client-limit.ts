import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { clientAddress } from './client-address.ts';

/** The unauthenticated routes, each with its own per-client budget. */
export type ClientLimitedRoute = 'click' | 'browser-lead' | 'browser-test' | 'webhook' | 'application' | 'unsubscribe';

/**
 * Per-client-address limit of an unauthenticated route (429 `rate_limited` past it), checked
 * before the body is read so a flood costs neither parsing nor signature work. One client's flood
 * never uses another client's budget.
 */
export async function enforceClientLimit(ctx: RouteContext, event: H3Event, name: ClientLimitedRoute): Promise<void> {
  const c = ctx.config;
  const perMinute =
    name === 'click' || name === 'unsubscribe'
      ? c.CLICK_LIMIT_PER_MINUTE
      : name === 'application'
        ? c.APPLICATION_LIMIT_PER_MINUTE
        : name === 'webhook'
          ? c.WEBHOOK_LIMIT_PER_MINUTE
          : c.BROWSER_LEAD_LIMIT_PER_MINUTE;
  const d = await ctx.rateLimiter.hit(`${name}-${clientAddress(event, c.TRUST_PROXY)}`, perMinute);
  if (!d.allowed) {
    ctx.metrics.rateLimited.inc({ limiter: name });
    throw new AppError(
      'rate_limited',
      `Too many requests from this client (${perMinute} per minute)`,
      {},
      { retry_after_seconds: d.retryAfterSeconds },
    );
  }
}
