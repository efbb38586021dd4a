import { createHash } from 'node:crypto';
import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { clientAddress } from './client-address.ts';

/**
 * Runs `verify` (the partner's password check) under the portal's sign-in limits, both
 * ADMIN_AUTH_FAILURES_PER_MINUTE and both counted before they are compared (consume, then check),
 * so concurrent attempts cannot all pass a check made before any of them is counted:
 *
 * - **per login**: every attempt on a login (code or email, any case) counts, whatever its
 *   address; past the limit its attempts answer 429 without the password being checked. This is
 *   what bounds guessing one partner's password, from one address or many.
 * - **per client address**: each wrong password counts; past the limit the address's further
 *   failures answer 429 instead of 401. The right password is checked first and always passes
 *   (as the operator's token does), so failures of others behind the same address (a shared
 *   office or proxy address, or an attacker there) never lock a partner out.
 *
 * @throws AppError `rate_limited` (with `retry_after_seconds`); `unauthorized` from `verify`.
 */
export async function withPartnerSignInLimits<T>(
  ctx: RouteContext,
  event: H3Event,
  login: string,
  verify: () => Promise<T>,
): Promise<T> {
  const limit = ctx.config.ADMIN_AUTH_FAILURES_PER_MINUTE;
  const perLogin = await ctx.rateLimiter.hit(`portal-login-${loginKey(login)}`, limit);
  if (!perLogin.allowed) refuse(ctx, 'Too many sign-in attempts for this login', perLogin.retryAfterSeconds);
  try {
    return await verify();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err;
    const client = clientAddress(event, ctx.config.TRUST_PROXY);
    const perClient = await ctx.rateLimiter.hit(`portal-fail-${client}`, limit);
    if (!perClient.allowed) refuse(ctx, 'Too many failed sign-ins from this client', perClient.retryAfterSeconds);
    throw err;
  }
}

/** The login as a counter key: one for every spelling the sign-in accepts, no address in Redis. */
const loginKey = (login: string) => createHash('sha256').update(login.trim().toLowerCase()).digest('base64url');

function refuse(ctx: RouteContext, message: string, retryAfterSeconds: number): never {
  ctx.metrics.rateLimited.inc({ limiter: 'portal_auth' });
  throw new AppError('rate_limited', message, {}, { retry_after_seconds: retryAfterSeconds });
}
