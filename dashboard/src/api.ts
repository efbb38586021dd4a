// Fetch wrapper of the dashboard and the portal. The session cookie is HttpOnly: the app never
// sees it. Writes repeat the session's CSRF token in a header, which a cross-site page cannot know.

export type SessionKind = 'operator' | 'partner';
export class ApiError extends Error {
  status: number;
  code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const SESSION_PATH: Record<SessionKind, string> = {
  operator: '/api/v1/dashboard/session',
  partner: '/api/v1/partner/session',
};
const csrf: Record<SessionKind, string | null> = { operator: null, partner: null };
const onUnauthorized: Record<SessionKind, (() => void) | null> = { operator: null, partner: null };

export function whenSignedOut(kind: SessionKind, fn: () => void): void {
  onUnauthorized[kind] = fn;
}

async function request<T>(kind: SessionKind, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf[kind]) headers['x-csrf-token'] = csrf[kind] as string;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new ApiError(
      res.status,
      data?.error?.code ?? 'error',
      data?.error?.message ?? `Request failed (${res.status})`,
    );
    if (res.status === 401 && path !== SESSION_PATH[kind]) {
      csrf[kind] = null;
      onUnauthorized[kind]?.();
    }
    throw err;
  }
  return data as T;
}

export function createApi(kind: SessionKind) {
  return {
    get: <T = any>(path: string) => request<T>(kind, 'GET', path),
    post: <T = any>(path: string, body: unknown = {}) => request<T>(kind, 'POST', path, body),
    patch: <T = any>(path: string, body: unknown) => request<T>(kind, 'PATCH', path, body),
    put: <T = any>(path: string, body: unknown) => request<T>(kind, 'PUT', path, body),
    del: <T = any>(path: string) => request<T>(kind, 'DELETE', path),
    /** Restores the session after a reload (the cookie survives; the CSRF token is asked again). */
    async resume(): Promise<boolean> {
      try {
        csrf[kind] = (await request<{ csrf_token: string }>(kind, 'GET', SESSION_PATH[kind])).csrf_token;
        return true;
      } catch {
        return false;
      }
    },
    async signIn(body: unknown, path = SESSION_PATH[kind]): Promise<void> {
      csrf[kind] = (await request<{ csrf_token: string }>(kind, 'POST', path, body)).csrf_token;
    },
    async signOut(): Promise<void> {
      await request(kind, 'DELETE', SESSION_PATH[kind]).catch(() => undefined);
      csrf[kind] = null;
    },
    signedIn: () => csrf[kind] !== null,
  };
}

export const admin = createApi('operator');
export const portal = createApi('partner');

/** Minor units → "49.00 USD" (VND has no minor unit in practice but is stored in the same unit). */
export function money(cents: number | null | undefined, currency: string): string {
  if (cents === null || cents === undefined) return '—';
  return `${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
}

export function when(iso: string | null | undefined): string {
  return iso
    ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC'
    : '—';
}
