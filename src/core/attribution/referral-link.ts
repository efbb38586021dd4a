import { linkBase, withPartnerCode } from '../shared/partner-links.ts';

/** What a partner's default link is built from. */
export type LinkProgram = { id: number; domain: string | null; landingUrl: string | null };

/**
 * A partner's default referral link: the program's landing URL (else `https://<domain>/`) with
 * `aff=<code>`. A program with neither gets the service's demo page (at `demo.origin`, the service's
 * public origin) only when the demo page is on; otherwise null: the merchant must set one.
 */
export function referralLink(
  program: LinkProgram,
  code: string,
  demo: { enabled: boolean; origin: string },
): string | null {
  const base = linkBase(program);
  if (base) return withPartnerCode(base, code);
  if (!demo.enabled) return null;
  return `${demo.origin.replace(/\/+$/, '')}/demo?program=${program.id}&aff=${encodeURIComponent(code)}`;
}
