// Fetch wrapper of the dashboard and the portal. The session cookie is HttpOnly: the app never
// sees it. Writes repeat the session's CSRF token in a header, which a cross-site page cannot know.
// Each method takes only the paths of its routes and the body the route takes, and answers with
// the server's type of that route's body (api-types.ts).

import { formatMoney, minorUnitDigits } from '../../src/core/shared/money.ts';
import type {
  ApiLinks,
  ApiRoutes,
  BodyOf,
  InputOf,
  Method,
  OperatorSession,
  PartnerSession,
  PathOf,
  SessionBody,
} from './api-types.ts';

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

/** Each kind's session route: read (resume), sign in, sign out. */
const SESSION_PATH: { operator: OperatorSession; partner: PartnerSession } = {
  operator: '/api/v1/dashboard/session',
  partner: '/api/v1/partner/session',
};
/** Where each kind signs in: its session route, or by accepting an invite. */
type SignInPath = {
  operator: OperatorSession | `/api/v1/dashboard/invites/${string}`;
  partner: PartnerSession | `/api/v1/partner/invites/${string}`;
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
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    // The error envelope `{ error: { code, message } }`; a proxy's page or an empty body has none.
    const error = jsonField(data, 'error');
    const err = new ApiError(
      res.status,
      textIn(jsonField(error, 'code')) ?? 'error',
      textIn(jsonField(error, 'message')) ?? `Request failed (${res.status})`,
    );
    if (res.status === 401 && path !== SESSION_PATH[kind]) {
      csrf[kind] = null;
      onUnauthorized[kind]?.();
    }
    throw err;
  }
  // Trusted, not parsed: the server's handlers are type-checked against these types, and its
  // contract test checks every response against the OpenAPI document.
  return data as T;
}

/** The routes of session kind `K` for `method`, the body a path of them answers with and the one it takes. */
type Routes<K extends SessionKind, M extends Method> = ApiRoutes[K][M];
type Body<K extends SessionKind, M extends Method, P extends string> = BodyOf<Routes<K, M>, P>;
type Input<K extends SessionKind, M extends Method, P extends string> = InputOf<Routes<K, M>, P>;
/** A POST's body may be left out (`{}` is sent) when the route takes nothing or only optional fields. */
type PostBody<I> = Record<string, never> extends I ? [body?: I] : [body: I];

export function createApi<K extends SessionKind>(kind: K) {
  return {
    get: <P extends PathOf<Routes<K, 'GET'>>>(path: P) => request<Body<K, 'GET', P>>(kind, 'GET', path),
    post: <P extends PathOf<Routes<K, 'POST'>>>(path: P, ...[body]: PostBody<Input<K, 'POST', P>>) =>
      request<Body<K, 'POST', P>>(kind, 'POST', path, body ?? {}),
    patch: <P extends PathOf<Routes<K, 'PATCH'>>>(path: P, body: Input<K, 'PATCH', P>) =>
      request<Body<K, 'PATCH', P>>(kind, 'PATCH', path, body),
    put: <P extends PathOf<Routes<K, 'PUT'>>>(path: P, body: Input<K, 'PUT', P>) =>
      request<Body<K, 'PUT', P>>(kind, 'PUT', path, body),
    del: <P extends PathOf<Routes<K, 'DELETE'>>>(path: P) => request<Body<K, 'DELETE', P>>(kind, 'DELETE', path),
    /** Restores the session after a reload (the cookie survives; the CSRF token is asked again). */
    async resume(): Promise<boolean> {
      try {
        csrf[kind] = (await request<SessionBody>(kind, 'GET', SESSION_PATH[kind])).csrf_token;
        return true;
      } catch {
        return false;
      }
    },
    async signIn<P extends SignInPath[K]>(body: Input<K, 'POST', P>, path?: P): Promise<void> {
      csrf[kind] = (await request<SessionBody>(kind, 'POST', path ?? SESSION_PATH[kind], body)).csrf_token;
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

/** A link's path (a download, the webhook URL a provider calls), checked against the routes like a call. */
export const link = <P extends { [K in SessionKind]: ApiLinks[K][keyof ApiLinks[K]] }[SessionKind]>(path: P): P => path;

/**
 * A JSON textarea's value: empty is null; anything else must parse. Typed as the field it is sent
 * as (`T`, from where it goes), unchecked: the server validates it and a 400 names the field.
 */
export function parseJsonText<T>(text: string, what: string): T | null {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new Error(`The ${what} are not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

/** Minor units for people in the currency's own precision, as the service writes them: "49.00 USD", "250,000 VND". */
export function money(cents: number | null | undefined, currency: string): string {
  return cents === null || cents === undefined ? '—' : formatMoney(cents, currency);
}
/** Minor units as a number of the currency's major unit, for a chart's scale: 4900 USD is 49, 250000 VND is 250000. */
export const majorUnits = (cents: number, currency: string): number => cents / 10 ** minorUnitDigits(currency);

export function when(iso: string | null | undefined): string {
  return iso
    ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC'
    : '—';
}

/** A member of free-form JSON (a notification's `payload`, an error body); `undefined` when absent. */
export function jsonField(json: unknown, key: string): unknown {
  return typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[key] : undefined;
}
/** A JSON value that should be a number (minor units, an id), else `null`. */
export const numberIn = (v: unknown): number | null => (typeof v === 'number' ? v : null);
/** A JSON value that should be a string, else `null`. */
export const textIn = (v: unknown): string | null => (typeof v === 'string' ? v : null);
