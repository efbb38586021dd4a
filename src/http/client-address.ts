import { getRequestIP, type H3Event } from 'h3';

/**
 * The address per-client limits are keyed by. Without trusted proxies: the socket peer. With
 * `trustedProxies` = N: the X-Forwarded-For entry the outermost trusted proxy appended, i.e. the
 * N-th from the right. Entries left of it were written by the client and are never used; a chain
 * shorter than N did not come through the proxies, so the socket peer is used.
 */
export function clientAddress(event: H3Event, trustedProxies: number): string {
  const peer = getRequestIP(event) ?? 'unknown';
  if (trustedProxies <= 0) return peer;
  const chain = (event.req.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const appended = chain[chain.length - trustedProxies];
  return appended && /^[0-9a-fA-F:.]{2,45}$/.test(appended) ? appended : peer;
}

/**
 * Whether the client reached the service over HTTPS: the request's own scheme, or, behind
 * `trustedProxies` proxies (TRUST_PROXY), the scheme the outermost trusted one reports in
 * `X-Forwarded-Proto` (each proxy may append its own, as with `X-Forwarded-For`). Without trusted
 * proxies the header is ignored: any client could send it.
 */
export function requestIsHttps(event: H3Event, trustedProxies: number): boolean {
  if (event.url.protocol === 'https:') return true;
  if (trustedProxies <= 0) return false;
  const chain = (event.req.headers.get('x-forwarded-proto') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const reported = chain[Math.max(0, chain.length - trustedProxies)];
  return reported === 'https';
}
