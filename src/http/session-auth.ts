import { getCookie, type H3Event, type Middleware } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { constantTimeEqual } from '../core/shared/crypto.ts';
import { findSession, type SessionKind } from '../core/programs/sessions.ts';
import { clientAddress, requestIsHttps } from './client-address.ts';
import { authenticateStaffToken, STAFF_TOKEN_PREFIX } from '../core/staff/staff-tokens.ts';
import { getStaffAccount } from '../core/staff/staff-access.ts';

/** Cookie of each kind of browser session; scoped to the API paths that read it. */
export const SESSION_COOKIES = {
  operator: { name: 'dashboard_session', path: '/api/v1' },
  partner: { name: 'portal_session', path: '/api/v1/partner' },
} as const satisfies Record<SessionKind, { name: string; path: string }>;

/** Header that must repeat the session's CSRF token on every write made with a session cookie. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `Set-Cookie` for a session: HttpOnly (no script reads it), SameSite=Strict (never sent on a
 * cross-site request), Secure when the service is reached over HTTPS (directly, through trusted
 * proxies that say so in `X-Forwarded-Proto`, or per PUBLIC_BASE_URL). Max-Age 0 deletes it.
 */
export function sessionCookieHeader(
  ctx: RouteContext,
  event: H3Event,
  kind: SessionKind,
  value: string,
  maxAgeSeconds: number,
): string {
  const { name, path } = SESSION_COOKIES[kind];
  const https = requestIsHttps(event, ctx.config.TRUST_PROXY) || ctx.config.PUBLIC_BASE_URL?.startsWith('https:');
  const secure = https ? '; Secure' : '';
  return `${name}=${value}; Path=${path}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Strict${secure}`;
}

/** The cookie value of a session kind, if the request carries one. */
export function sessionToken(event: H3Event, kind: SessionKind): string | undefined {
  const v = getCookie(event, SESSION_COOKIES[kind].name);
  return v && /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : undefined;
}

/**
 * Route middleware: a live session of `kind` from the request's cookie (and, for writes, its CSRF
 * header), put on `event.context.session`.
 * @throws AppError `unauthorized` (no live session), `forbidden` (write without the CSRF token).
 */
export function requireSession(ctx: RouteContext, kind: SessionKind): Middleware {
  return async (event) => {
    await authenticateSession(ctx, event, kind);
  };
}

/**
 * Route middleware of the admin API: the operator's admin token as a bearer (CLI, scripts), a
 * staff user's token (`stf_…`), or the dashboard's operator session cookie (with the CSRF header
 * on writes), of the operator or of a staff user. Puts the caller on `event.context.admin`.
 */
export function requireOperator(ctx: RouteContext): Middleware {
  return async (event) => {
    const header = event.req.headers.get('authorization');
    if (header) {
      const given = /^Bearer (.+)$/.exec(header)?.[1];
      if (given?.startsWith(STAFF_TOKEN_PREFIX)) {
        // An unknown or revoked staff token counts as a failed admin authentication (rate limited).
        const t = await authenticateStaffToken(ctx.deps(), given).catch((err: unknown) =>
          err instanceof AppError && err.code === 'unauthorized'
            ? requireAdminToken(ctx, event, undefined)
            : Promise.reject(err),
        );
        if (!t) return;
        event.context.admin = {
          kind: 'staff',
          staffUserId: t.staffUserId,
          email: t.email,
          token: { id: t.tokenId, programId: t.programId, role: t.role },
        };
        return;
      }
      await requireAdminToken(ctx, event, given);
      event.context.admin = { kind: 'operator' };
      return;
    }
    await authenticateSession(ctx, event, 'operator');
    const staffUserId = event.context.session!.staffUserId;
    if (staffUserId === null) {
      if (!ctx.config.ADMIN_TOKEN) throw new AppError('unauthorized', 'The admin API is disabled; set ADMIN_TOKEN');
      event.context.admin = { kind: 'operator' };
      return;
    }
    const account = await getStaffAccount(ctx.deps(), staffUserId);
    if (!account) throw new AppError('unauthorized', 'Sign in first (no session, or it expired)');
    event.context.admin = { kind: 'staff', staffUserId, email: account.email, token: null };
  };
}

async function authenticateSession(ctx: RouteContext, event: H3Event, kind: SessionKind): Promise<void> {
  const token = sessionToken(event, kind);
  const session = token ? await findSession(ctx.deps(), token) : null;
  if (!session || session.kind !== kind)
    throw new AppError('unauthorized', 'Sign in first (no session, or it expired)');
  // Writes made with a cookie must carry the session's CSRF token, which a cross-site form cannot know.
  const csrf = event.req.headers.get(CSRF_HEADER);
  if (!SAFE_METHODS.has(event.req.method) && (!csrf || !constantTimeEqual(csrf, session.csrfToken)))
    throw new AppError('forbidden', `Missing or wrong ${CSRF_HEADER} header`);
  event.context.session = session;
}

/**
 * The right token always passes, checked first: failures from the same address (a flood behind a
 * shared proxy address, or an attacker) can never lock the operator out. Failed attempts are
 * counted per client address and logged; past the limit a client's further failures are answered
 * 429 until its window ends. The token is at least 32 characters (config.ts), so the limit guards
 * against noise and log floods rather than against guessing, which is out of reach either way.
 * @throws AppError `unauthorized` unless `given` is the configured admin token; `rate_limited`.
 */
export async function requireAdminToken(ctx: RouteContext, event: H3Event, given: string | undefined): Promise<void> {
  const token = ctx.config.ADMIN_TOKEN;
  if (token && given && constantTimeEqual(token, given)) return;
  const failures = ctx.config.ADMIN_AUTH_FAILURES_PER_MINUTE;
  const client = clientAddress(event, ctx.config.TRUST_PROXY);
  const blocked = await ctx.rateLimiter.blocked(`admin-fail-${client}`, failures);
  if (!blocked.allowed) {
    ctx.metrics.rateLimited.inc({ limiter: 'admin_auth' });
    throw new AppError(
      'rate_limited',
      'Too many failed admin authentications from this client',
      {},
      { retry_after_seconds: blocked.retryAfterSeconds },
    );
  }
  await ctx.rateLimiter.hit(`admin-fail-${client}`, failures);
  ctx.log.warn({ client, path: event.url.pathname, reqId: event.context.requestId }, 'admin authentication failed');
  throw new AppError('unauthorized', token ? 'Invalid admin token' : 'The admin API is disabled; set ADMIN_TOKEN');
}
