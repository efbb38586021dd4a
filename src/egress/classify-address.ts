import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** What each refused range is called in a refusal's reason. */
const NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  private: 'private',
  uniqueLocal: 'private (unique local)',
  reserved: 'reserved',
  benchmarking: 'benchmarking',
  teredo: 'Teredo',
  rfc6052: 'local NAT64',
};

/** Cloud instance metadata services (AWS, GCP, Azure, OpenStack; AWS's IPv6 one is in fd00::/8). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254']);

const NAT64 = ipaddr.IPv6.parse('64:ff9b::');
const v4 = (bytes: number[]): IPv4 => ipaddr.fromByteArray(bytes) as IPv4;

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), the NAT64 well-known prefix (64:ff9b::/96),
 * 6to4 (2002::/16) and the deprecated IPv4-compatible ::/96.
 */
function embeddedIPv4(a: IPv6): IPv4 | null {
  const b = a.toByteArray();
  const range = a.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4(b.slice(12));
  if (range === 'rfc6052' && a.match(NAT64, 96)) return v4(b.slice(12));
  if (range === '6to4') return v4(b.slice(2, 6));
  if (range === 'unicast' && b.slice(0, 12).every((x) => x === 0)) return v4(b.slice(12));
  return null;
}

/** An address in its plain form: an IPv4 address carried in IPv6 becomes that IPv4 address. */
export function unwrapAddress(ip: string): IPv4 | IPv6 {
  const a = ipaddr.parse(ip);
  return a.kind() === 'ipv6' ? (embeddedIPv4(a as IPv6) ?? a) : a;
}

/**
 * Why outbound requests may not reach `ip` (`"loopback"`, `"private"`, `"cloud metadata"`, …), or
 * `null` for a public unicast address. Everything outside the public unicast space is refused:
 * 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15, the
 * documentation nets, 224/4, 240/4, 255.255.255.255; ::, ::1, fc00::/7, fe80::/10, ff00::/8,
 * 2001::/23 and 2001:db8::/32; an IPv4 address inside IPv6 is judged as that IPv4 address.
 */
export function classifyAddress(ip: string): string | null {
  if (!isIP(ip)) return 'not an IP';
  const a = unwrapAddress(ip);
  if (METADATA.has(a.toString())) return 'cloud metadata';
  const range = a.range();
  if (range === 'unicast') return null;
  return NAMES[range] ?? range;
}
