import { describe, expect, test } from 'vitest';
import { computeCookieDomain } from '../../tracker/src/browser/cookie-domain.ts';

describe('computeCookieDomain', () => {
  test.each([
    ['www.shop.com', 'shop.com', 'subdomains share the click: last two labels'],
    ['app.eu.shop.com', 'shop.com', 'deeper subdomains too'],
    ['shop.com', 'shop.com', 'the apex itself'],
    ['Shop.COM.', 'shop.com', 'case and a trailing FQDN dot are normalised'],
    ['localhost', null, 'no dot: host-only'],
    ['intranet', null, 'no dot: host-only'],
    ['app.localhost', null, 'localhost subdomains are loopback, host-only'],
    ['127.0.0.1', null, 'an IPv4 address cannot take a Domain'],
    ['[::1]', null, 'neither can IPv6'],
    ['www.shop.co.uk', 'co.uk', 'known limitation: a public suffix; the cookie jar falls back to host-only'],
  ] as [string, string | null, string][])('%s → %s (%s)', (host, expected) => {
    expect(computeCookieDomain(host)).toBe(expected);
  });
});
