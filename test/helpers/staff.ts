import type { Harness } from './harness.ts';

/** A signed-in dashboard session: the cookie to send and the CSRF token writes repeat. */
export type StaffSession = { cookie: string; csrf: string };

export const STAFF_PASSWORD = 'correct horse battery';

/** The session cookie of a sign-in or invite response. */
function sessionOf(r: { status: number; body: any; headers: Headers }): StaffSession {
  if (r.status !== 201) throw new Error(`sign-in → ${r.status} ${JSON.stringify(r.body)}`);
  const cookie = /dashboard_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('no session cookie');
  return { cookie: `dashboard_session=${cookie}`, csrf: r.body.csrf_token };
}

/**
 * Adds `email` to the program with `role` through the admin API (as the operator) and, for a new
 * user, accepts the invite link with STAFF_PASSWORD: the session it opens.
 */
export async function addStaff(
  h: Harness,
  programId: number,
  email: string,
  role: string,
): Promise<{ userId: number; session: StaffSession | null }> {
  const added = await h.admin('POST', `/programs/${programId}/staff`, { email, role });
  if (!added.invite_url) return { userId: added.member.user_id, session: null };
  const token = new URL(added.invite_url).pathname.split('/').pop()!;
  const r = await h.request(`/api/v1/dashboard/invites/${token}`, { body: { password: STAFF_PASSWORD } });
  return { userId: added.member.user_id, session: sessionOf(r) };
}

/** Signs in with email and password (and a TOTP code). */
export async function signIn(h: Harness, email: string, totpCode?: string): Promise<StaffSession> {
  const body = { email, password: STAFF_PASSWORD, ...(totpCode ? { totp_code: totpCode } : {}) };
  return sessionOf(await h.request('/api/v1/dashboard/session', { body }));
}

/** An admin API call made with a staff session (cookie, and the CSRF header on writes). */
export function asStaff(h: Harness, s: StaffSession, method: string, path: string, body?: unknown) {
  const write = method !== 'GET';
  return h.request(`/api/v1/admin${path}`, {
    method,
    body: write ? (body ?? {}) : undefined,
    headers: { cookie: s.cookie, ...(write ? { 'x-csrf-token': s.csrf } : {}) },
  });
}

/** An admin API call made with a bearer token (a staff token or ADMIN_TOKEN). */
export function withToken(h: Harness, token: string, method: string, path: string, body?: unknown) {
  return h.request(`/api/v1/admin${path}`, {
    method,
    body: method !== 'GET' ? (body ?? {}) : undefined,
    headers: { authorization: `Bearer ${token}` },
  });
}
