import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import { startSession, type SessionKind } from '../core/programs/sessions.ts';
import { json } from './route.ts';
import { sessionCookieHeader } from './session-auth.ts';
import type { SessionBody } from './wire/responses.ts';

/**
 * Opens a session of `kind` and answers 201 with its CSRF token and the cookie. `staffUserId`: an
 * operator session of a staff user.
 */
export async function openSession(
  ctx: RouteContext,
  e: H3Event,
  kind: SessionKind,
  who: { partnerId?: number; staffUserId?: number },
): Promise<Response> {
  const ttlMs = ctx.config.SESSION_TTL_HOURS * 3_600_000;
  const s = await startSession(ctx.deps(), { kind, ...who, ttlMs });
  const cookie = sessionCookieHeader(ctx, e, kind, s.token, ttlMs / 1000);
  return json({ csrf_token: s.csrfToken, expires_at: s.expiresAt.toISOString() } satisfies SessionBody, 201, {
    'set-cookie': cookie,
    'cache-control': 'no-store',
  });
}
