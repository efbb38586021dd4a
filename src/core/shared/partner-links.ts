import { hostMatchesDomain } from './host-matches-domain.ts';

/*
 * A partner's links to the merchant's site: the program's landing URL (else its domain's home page)
 * or any other page of the domain, with `aff=<code>` (the query parameter the browser tracker
 * reads). Pure and dependency-free: the dashboard's link builder runs the same checks.
 */

/** The query parameter that carries the partner's code (tracker/src/browser/tracker.ts). */
export const AFF_PARAM = 'aff';
/** Longest landing URL or built link accepted. */
export const MAX_LINK_LENGTH = 2000;

const LOCAL_HOST = /^(localhost|127\.0\.0\.1)$/;

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * What is wrong with a landing URL for a program with this domain, in plain words; null when it is
 * fine. A full https:// address (http:// only on localhost or 127.0.0.1), on the domain when one is set.
 */
export function landingUrlProblem(landingUrl: string, domain: string | null): string | null {
  const u = /^[a-z][a-z0-9+.-]*:\/\//i.test(landingUrl) ? parse(landingUrl) : null;
  if (!u || !u.hostname)
    return 'Enter a full address that starts with https://, such as https://shop.example.com/pricing.';
  if (landingUrl.length > MAX_LINK_LENGTH) return `Use an address of at most ${MAX_LINK_LENGTH} characters.`;
  if (u.protocol === 'http:' && !LOCAL_HOST.test(u.hostname))
    return 'Use https:// (http:// is only for localhost or 127.0.0.1).';
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'Use an https:// address.';
  if (u.username || u.password) return 'Leave out the user name and password.';
  if (domain && !hostMatchesDomain(u.hostname, domain))
    return `Use an address on the program's domain, ${domain} (this one is on ${u.hostname}).`;
  return null;
}

/** Where a partner's default link lands: the landing URL, else the domain's home page; null: neither is set. */
export function linkBase(program: { domain: string | null; landingUrl: string | null }): string | null {
  if (program.landingUrl) return program.landingUrl;
  return program.domain ? `https://${program.domain}/` : null;
}

/**
 * `url` with `aff=<code>`: the existing query (any earlier `aff` replaced) and fragment kept as
 * they are, the code percent-encoded.
 */
export function withPartnerCode(url: string, code: string): string {
  const u = new URL(url);
  const kept = u.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && pair.split('=')[0] !== AFF_PARAM);
  kept.push(`${AFF_PARAM}=${encodeURIComponent(code)}`);
  u.search = `?${kept.join('&')}`;
  return u.toString();
}

/** A link built from what a partner typed, or why it cannot be one (plain words). */
export type PageLink = { link: string; problem: null } | { link: null; problem: string };

/**
 * A partner's link to another page of the merchant's site: `page` is a path (`/blog/post`) taken on
 * the default link's host, or a full address on the program's domain (on the landing URL's host
 * when the program has no domain). Anything else is refused with the reason.
 */
export function pageLink(
  program: { domain: string | null; landingUrl: string | null },
  code: string,
  page: string,
): PageLink {
  const base = linkBase(program);
  const input = page.trim();
  if (!base)
    return { link: null, problem: 'The program has no website yet: the merchant must set its domain or landing URL.' };
  if (!input) return { link: null, problem: 'Enter a page address or a path such as /pricing.' };
  if (input.startsWith('/') && !input.startsWith('//')) {
    const u = new URL(input, base);
    return { link: withPartnerCode(u.toString(), code), problem: null };
  }
  const domain = program.domain ?? new URL(base).hostname;
  const problem = landingUrlProblem(input, domain);
  if (problem) return { link: null, problem };
  return { link: withPartnerCode(input, code), problem: null };
}
