/** True when `host` is `domain` itself or one of its subdomains (case-insensitive, port ignored). */
export function hostMatchesDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const d = domain.toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
  return h === d || h.endsWith(`.${d}`);
}
