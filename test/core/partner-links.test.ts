/**
 * A partner's links (shared/partner-links.ts, attribution/referral-link.ts): the landing URL's
 * checks, the default link (path, query and fragment kept, the code escaped), links to other pages
 * of the domain, and the demo page only while it is on.
 */
import { describe, expect, test } from 'vitest';
import { landingUrlProblem, pageLink, withPartnerCode } from '../../src/core/shared/partner-links.ts';
import { referralLink } from '../../src/core/attribution/referral-link.ts';

const shop = { domain: 'shop.example.com', landingUrl: 'https://shop.example.com/pricing?plan=pro#faq' };

describe('landing URL checks', () => {
  test.each([
    ['https://shop.example.com/pricing', 'shop.example.com'],
    ['https://www.shop.example.com/a/b?x=1#top', 'shop.example.com'],
    ['http://localhost:8080/landing', null],
    ['http://127.0.0.1:5173/', null],
    ['https://anything.example/page', null],
  ])('%s on %s is fine', (url, domain) => {
    expect(landingUrlProblem(url, domain)).toBeNull();
  });
  test.each([
    ['shop.example.com/pricing', 'shop.example.com', 'Enter a full address that starts with https://'],
    ['/pricing', 'shop.example.com', 'Enter a full address'],
    ['http://shop.example.com/pricing', 'shop.example.com', 'http:// is only for localhost or 127.0.0.1'],
    ['ftp://shop.example.com/file', 'shop.example.com', 'Use an https:// address.'],
    ['javascript://shop.example.com/%0aalert(1)', null, 'Use an https:// address.'],
    ['https://user:pw@shop.example.com/', 'shop.example.com', 'Leave out the user name and password.'],
    [
      'https://evil.example/pricing',
      'shop.example.com',
      "on the program's domain, shop.example.com (this one is on evil.example)",
    ],
    ['https://shop.example.com.evil.example/', 'shop.example.com', "on the program's domain"],
    [`https://shop.example.com/${'a'.repeat(2000)}`, 'shop.example.com', 'at most 2000 characters'],
  ])('%s on %s: refused', (url, domain, words) => {
    expect(landingUrlProblem(url, domain)).toContain(words);
  });
});

describe('the default link', () => {
  test('keeps the path, the query and the fragment; the code is escaped', () => {
    expect(withPartnerCode(shop.landingUrl, 'jane')).toBe('https://shop.example.com/pricing?plan=pro&aff=jane#faq');
    expect(withPartnerCode('https://shop.example.com/a%20b?q=x%20y&z', 'j&a=n e')).toBe(
      'https://shop.example.com/a%20b?q=x%20y&z&aff=j%26a%3Dn%20e',
    );
  });
  test('an earlier aff is replaced, other parameters stay in their order', () => {
    expect(withPartnerCode('https://shop.example.com/?aff=old&b=2&aff=older', 'new')).toBe(
      'https://shop.example.com/?b=2&aff=new',
    );
  });
  test("the landing URL, else the domain's home page, else the demo page only while it is on", () => {
    const on = { enabled: true, origin: 'https://partners.example/' };
    const off = { enabled: false, origin: 'https://partners.example' };
    expect(referralLink({ id: 7, ...shop }, 'jane', off)).toBe(
      'https://shop.example.com/pricing?plan=pro&aff=jane#faq',
    );
    expect(referralLink({ id: 7, domain: 'shop.example.com', landingUrl: null }, 'jane', off)).toBe(
      'https://shop.example.com/?aff=jane',
    );
    expect(referralLink({ id: 7, domain: null, landingUrl: null }, 'j ane', on)).toBe(
      'https://partners.example/demo?program=7&aff=j%20ane',
    );
    expect(referralLink({ id: 7, domain: null, landingUrl: null }, 'jane', off)).toBeNull();
    // A landing URL without a domain: no demo page even when it is on.
    expect(referralLink({ id: 7, domain: null, landingUrl: 'http://localhost:8080/x' }, 'jane', on)).toBe(
      'http://localhost:8080/x?aff=jane',
    );
  });
});

describe('a link to another page', () => {
  test('a path is taken on the landing host; a full address on the domain is kept with its query and fragment', () => {
    expect(pageLink(shop, 'jane', '/blog/launch?utm=x#top')).toEqual({
      link: 'https://shop.example.com/blog/launch?utm=x&aff=jane#top',
      problem: null,
    });
    expect(pageLink(shop, 'jane', ' https://docs.shop.example.com/start ').link).toBe(
      'https://docs.shop.example.com/start?aff=jane',
    );
    expect(pageLink({ domain: 'shop.example.com', landingUrl: null }, 'a/b', '/x').link).toBe(
      'https://shop.example.com/x?aff=a%2Fb',
    );
  });
  test('another site, a protocol-relative path, an empty entry or no site at all: refused in words', () => {
    expect(pageLink(shop, 'jane', 'https://evil.example/')).toEqual({
      link: null,
      problem: "Use an address on the program's domain, shop.example.com (this one is on evil.example).",
    });
    expect(pageLink(shop, 'jane', '//evil.example/x').problem).toContain('Enter a full address');
    expect(pageLink(shop, 'jane', '  ').problem).toBe('Enter a page address or a path such as /pricing.');
    expect(pageLink({ domain: null, landingUrl: null }, 'jane', '/x').problem).toContain('domain or landing URL');
    // Without a domain, the landing URL's host is the site.
    const local = { domain: null, landingUrl: 'http://localhost:8080/' };
    expect(pageLink(local, 'jane', 'http://localhost:8080/cart').link).toBe('http://localhost:8080/cart?aff=jane');
    expect(pageLink(local, 'jane', 'https://evil.example/').problem).toContain('localhost');
  });
});
