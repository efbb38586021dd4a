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
