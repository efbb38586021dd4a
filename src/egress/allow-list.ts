import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { unwrapAddress } from './classify-address.ts';

/**
 * `OUTBOUND_ALLOW_HOSTS`: host names, IP addresses and CIDR ranges outbound requests may reach
 * although they are not public (a receiver on the same machine or network, for development and
 * tests), and the only hosts plain `http://` may name.
 */
export type AllowList = {
  /** Whether the URL's host as written is listed: its name, or an IP literal inside a listed range. */
  allowsHost(hostname: string): boolean;
  /** Whether a resolved address lies in a listed address or range. */
  allowsAddress(ip: string): boolean;
};

/** A host as the guard compares it: lower case, no brackets around IPv6, no trailing dot. */
export function normaliseHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Checks and normalises the setting's comma-separated entries (the config's form of it).
 * @throws Error naming the first entry that is neither a host name, an IP address nor a CIDR range.
 */
export function parseAllowEntries(value: string): string[] {
  const out: string[] = [];
  for (const raw of value.split(',').map((s) => s.trim())) {
    if (!raw) continue;
    const entry = normaliseHost(raw);
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${raw}" is not a CIDR range such as 10.0.0.0/8`);
    } else if (!isIP(entry) && !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(entry)) {
      throw new Error(`"${raw}" is not a host name, an IP address or a CIDR range`);
    }
    out.push(entry);
  }
  return out;
}

export function createAllowList(entries: readonly string[]): AllowList {
  const names = new Set(entries.filter((e) => !e.includes('/') && !isIP(e)));
  const ranges = entries
    .filter((e) => e.includes('/') || isIP(e))
    .map((e) => (e.includes('/') ? ipaddr.parseCIDR(e) : ipaddr.parseCIDR(`${e}/${isIP(e) === 4 ? 32 : 128}`)));
  const allowsAddress = (ip: string): boolean => {
    if (!isIP(ip)) return false;
    const a = unwrapAddress(ip);
    return ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
  };
  return {
    allowsAddress,
    allowsHost: (hostname) => {
      const host = normaliseHost(hostname);
      return names.has(host) || allowsAddress(host);
    },
  };
}
