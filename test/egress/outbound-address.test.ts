import { describe, expect, test } from 'vitest';
import { classifyAddress } from '../../src/egress/classify-address.ts';
import { createAllowList, parseAllowEntries } from '../../src/egress/allow-list.ts';
import { excerptOf } from '../../src/core/outbound/deliver-event.ts';
import { loadConfig } from '../../src/config.ts';

/** The host an outbound request to `url` would name, as the WHATWG URL parser normalises it. */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');

describe('classifyAddress: everything outside public unicast is refused', () => {
  test.each([
    ['0.0.0.0/8 "this network" (0.0.0.0 reaches the local host)', '0.0.0.1', 'unspecified'],
    ['10/8 private', '10.1.2.3', 'private'],
    ['100.64/10 shared, carrier-grade NAT', '100.64.0.1', 'shared (carrier-grade NAT)'],
    ['127/8 loopback, not only 127.0.0.1', '127.255.0.9', 'loopback'],
    ['169.254/16 link-local', '169.254.10.10', 'link-local'],
    ['169.254.169.254, the cloud metadata service', '169.254.169.254', 'cloud metadata'],
    ['172.16/12 private (first block)', '172.16.0.1', 'private'],
    ['172.16/12 private (last block)', '172.31.255.254', 'private'],
    ['192.0.0/24 IETF protocol assignments', '192.0.0.8', 'reserved'],
    ['192.168/16 private', '192.168.1.1', 'private'],
    ['198.18/15 benchmarking', '198.19.0.1', 'reserved'],
    ['224/4 multicast', '239.255.255.250', 'multicast'],
    ['240/4 reserved', '240.0.0.1', 'reserved'],
    ['255.255.255.255 broadcast', '255.255.255.255', 'broadcast'],
    [':: unspecified', '::', 'unspecified'],
    ['::1 loopback', '::1', 'loopback'],
    ['fc00::/7 unique local', 'fc00::1', 'private (unique local)'],
    ['fd00::/8 unique local', 'fd12:3456::1', 'private (unique local)'],
    ["fd00:ec2::254, AWS's IPv6 metadata service", 'fd00:ec2::254', 'cloud metadata'],
    ['fe80::/10 link-local', 'fe80::1', 'link-local'],
    ['ff00::/8 multicast', 'ff02::1', 'multicast'],
    ['IPv4-mapped ::ffff:127.0.0.1 is loopback', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped in hex ::ffff:a00:1 is 10.0.0.1', '::ffff:a00:1', 'private'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254', 'cloud metadata'],
    ['IPv4-translated ::ffff:0:10.0.0.1', '::ffff:0:a00:1', 'private'],
    ['IPv4-compatible ::127.0.0.1', '::7f00:1', 'loopback'],
    ['IPv4-compatible ::10.0.0.1', '::a00:1', 'private'],
    ['NAT64 64:ff9b::10.0.0.1 reaches 10.0.0.1', '64:ff9b::a00:1', 'private'],
    ['NAT64 64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['local-use NAT64 64:ff9b:1::/48, whatever it embeds', '64:ff9b:1::5db8:d70e', 'local NAT64'],
    ['6to4 2002:7f00:1:: wraps 127.0.0.1', '2002:7f00:1::', 'loopback'],
    ['6to4 2002:c0a8:101:: wraps 192.168.1.1', '2002:c0a8:101::1', 'private'],
    ['Teredo 2001::/32 (its client address is obfuscated)', '2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::/32 documentation', '2001:db8::1', 'reserved'],
  ])('%s', (_label, ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  test.each([
    ['a public IPv4 address', '93.184.215.14'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['just outside 100.64/10', '100.128.0.1'],
    ['a public IPv6 address', '2606:4700:4700::1111'],
    ['IPv4-mapped public address', '::ffff:93.184.215.14'],
    ['NAT64 of a public address', '64:ff9b::5db8:d70e'],
    ['6to4 of a public address', '2002:5db8:d70e::1'],
  ])('%s passes', (_label, ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });

  test.each([
    ['decimal', 'http://2130706433:6379/'],
    ['hex dotted', 'http://0x7f.1/'],
    ['octal', 'http://017700000001/'],
    ['octal dotted', 'http://0177.0.0.1/'],
    ['short dotted', 'http://127.1/'],
    ['IPv6 with dotted IPv4-mapped tail', 'http://[::ffff:127.0.0.1]/'],
    ['IPv6 written long', 'http://[0:0:0:0:0:ffff:7f00:1]/'],
  ])('numeric host form (%s) of 127.0.0.1 is loopback once parsed', (_label, url) => {
    expect(classifyAddress(hostOf(url))).toBe('loopback');
  });
});

describe('OUTBOUND_ALLOW_HOSTS', () => {
  test('names, addresses and ranges, normalised; a bad entry stops the configuration naming it', () => {
    expect(parseAllowEntries(' Localhost. , 127.0.0.1,[::1], 10.0.0.0/8,fd00::/8,')).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    expect(loadConfig({}).OUTBOUND_ALLOW_HOSTS).toEqual([]);
    expect(() => loadConfig({ OUTBOUND_ALLOW_HOSTS: '10.0.0.0/33' })).toThrow(/OUTBOUND_ALLOW_HOSTS.*10\.0\.0\.0\/33/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_HOSTS: 'receiver:8080' })).toThrow(/"receiver:8080" is not a host name/);
  });

  test('a listed name allows that host as written; addresses match exactly or by range, mapped forms too', () => {
    const allow = createAllowList(parseAllowEntries('receiver.test,127.0.0.2,10.1.0.0/16,fd00::/8'));
    expect(allow.allowsHost('RECEIVER.test.')).toBe(true);
    expect(allow.allowsHost('other.test')).toBe(false);
    expect(allow.allowsHost('127.0.0.2')).toBe(true);
    expect(allow.allowsHost('[fd00::5]')).toBe(true);
    expect(allow.allowsAddress('127.0.0.1')).toBe(false);
    expect(allow.allowsAddress('10.1.255.255')).toBe(true);
    expect(allow.allowsAddress('10.2.0.1')).toBe(false);
    expect(allow.allowsAddress('::ffff:10.1.0.9')).toBe(true);
    expect(allow.allowsAddress('receiver.test')).toBe(false);
  });
});

describe('the stored excerpt of an answer', () => {
  test.each([
    ['a short answer is kept whole', 'ok', 'ok'],
    ['at most 256 bytes', 'x'.repeat(900), 'x'.repeat(256)],
    ['a character cut by the limit is left out, not garbled', 'x'.repeat(255) + 'é', 'x'.repeat(255)],
    ['NUL, which a text column cannot hold, becomes U+FFFD', 'a\0b', 'a\uFFFDb'],
  ])('%s', (_label, text, stored) => {
    expect(excerptOf(text)).toBe(stored);
  });
});
