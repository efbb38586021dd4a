import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { OutboundTargetRefused } from '../core/outbound/outbound-target.ts';
import { type CheckOutboundUrl } from '../core/ports.ts';
import type { Logger } from '../core/deps.ts';
import { classifyAddress } from './classify-address.ts';
import { createAllowList, normaliseHost } from './allow-list.ts';

export type ResolvedAddress = { address: string; family: number };
/** Every address of a host name (injected: tests make `evil.test` resolve where they want). */
export type LookupHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (what a connection would use), every address of the name. */
export const systemLookup: LookupHost = (hostname) => dnsLookup(hostname, { all: true });

/** How long a registration waits for the name to resolve before accepting it unchecked. */
const REGISTRATION_LOOKUP_MS = 5_000;

/**
 * Where outbound requests may go: every address a host has must be public unicast
 * (classify-address.ts) unless `OUTBOUND_ALLOW_HOSTS` lists the host's name or the address, and
 * plain `http://` goes only to a listed host. Used when an endpoint URL is stored (`checkUrl`) and
 * again for every connection a delivery opens (`resolve`, guarded-dispatcher.ts).
 */
export type OutboundGuard = {
  /**
   * The addresses a connection to `hostname` may use, every one of them checked.
   * @throws OutboundTargetRefused; the resolver's error when the name does not resolve.
   */
  resolve(hostname: string, protocol: string): Promise<ResolvedAddress[]>;
  checkUrl: CheckOutboundUrl;
};

export function createOutboundGuard(o: { allow: readonly string[]; lookup?: LookupHost; log: Logger }): OutboundGuard {
  const allow = createAllowList(o.allow);
  const lookup = o.lookup ?? systemLookup;

  const checkScheme = (host: string, protocol: string): void => {
    if (protocol !== 'https:' && !allow.allowsHost(host))
      throw new OutboundTargetRefused(`plain ${protocol}// goes only to hosts on OUTBOUND_ALLOW_HOSTS, not ${host}`);
  };

  const resolve: OutboundGuard['resolve'] = async (hostname, protocol) => {
    const host = normaliseHost(hostname);
    checkScheme(host, protocol);
    const family = isIP(host);
    const addresses = family ? [{ address: host, family }] : await lookup(host);
    if (!addresses.length) throw new Error(`${host} has no address`);
    if (!family && allow.allowsHost(host)) return addresses;
    for (const { address } of addresses) {
      if (allow.allowsAddress(address)) continue;
      const kind = classifyAddress(address);
      if (!kind) continue;
      // The resolved address stays in the log: an internal name's address is not the caller's to learn.
      if (!family)
        o.log.warn({ host, address, kind }, 'outbound request refused: the host resolves to a non-public address');
      throw new OutboundTargetRefused(
        `${host} ${family ? 'is' : 'resolves to'} a ${kind} address; outbound requests go only to public addresses`,
      );
    }
    return addresses;
  };

  return {
    resolve,
    async checkUrl(url) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((done) => {
        timer = setTimeout(() => done(null), REGISTRATION_LOOKUP_MS);
      });
      try {
        await Promise.race([resolve(url.hostname, url.protocol), timeout]);
      } catch (err) {
        if (err instanceof OutboundTargetRefused) throw err;
        // A name that does not resolve (yet) is accepted: every delivery checks again.
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
