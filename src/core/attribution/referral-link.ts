/**
 * A partner's referral link: the program's site with `aff`, or the service's demo page (at `base`,
 * the service's public URL) when the program has no domain.
 */
export function referralLink(program: { id: number; domain: string | null }, code: string, base: string): string {
  if (program.domain) return `https://${program.domain}/?aff=${encodeURIComponent(code)}`;
  return `${base.replace(/\/$/, '')}/demo?program=${program.id}&aff=${encodeURIComponent(code)}`;
}
