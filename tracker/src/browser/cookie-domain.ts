const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The `Domain` attribute for the tracker cookies, so a click recorded on `www.shop.com` is also
 * seen on `app.shop.com`; null means a host-only cookie (no dot, `localhost`, an IP address).
 *
 * The root is simply the last two labels. Known limitation: under a multi-label public suffix
 * (`shop.co.uk`, `shop.com.au`) this yields the suffix itself (`co.uk`), which browsers refuse;
 * the tracker notices the cookie did not stick and falls back to a host-only cookie, so
 * attribution works but is not shared across subdomains there.
 */
export function computeCookieDomain(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (!host.includes('.') || host.includes(':') || IPV4.test(host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return null;
  return host.split('.').slice(-2).join('.');
}
