import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import type { ResolvedAddress } from '../../src/egress/outbound-guard.ts';

/**
 * The outbound URL guard, both modes: registration refuses every non-public destination form
 * (400 url_not_allowed naming the field), including names a test resolver makes resolve to
 * private addresses; a delivery whose host has since been rebound to such an address, or whose
 * stored URL predates the guard, fails at once with the reason and opens no connection; an
 * allowed delivery connects to the address the guard checked; redirects are not followed.
 */

/** The test resolver: what each name resolves to now (a test may change it between two calls). */
const dns = new Map<string, string[]>();
const lookups: string[] = [];
async function lookup(hostname: string): Promise<ResolvedAddress[]> {
  lookups.push(hostname);
  const addresses = dns.get(hostname);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

const h = useHarness(
  {
    DATA_ENCRYPTION_KEYS: generateSealingKey('k1'),
    EVENT_RETRY_BASE_MS: '50',
    EVENT_ATTEMPTS: '5',
    // Only this name may be private (and plain http): the receiver below, reached through the resolver.
    OUTBOUND_ALLOW_HOSTS: 'receiver.test',
  },
  { lookup },
);

/** The receiver listens on 127.0.0.2: a loopback address no name but receiver.test may reach. */
type Seen = { path: string; host: string | undefined };
const seen: Seen[] = [];
let connections = 0;
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '/', host: req.headers.host });
    req.resume();
    req.on('end', () => {
      if (req.url === '/redirect') res.writeHead(302, { location: '/redirected' }).end('see /redirected');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok\0${'y'.repeat(600)}`);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  port = (server.address() as AddressInfo).port;
  dns.set('receiver.test', ['127.0.0.2']);
  dns.set('public.test', ['93.184.215.14']);
  dns.set('evil.test', ['10.0.0.1']);
  dns.set('metadata.test', ['169.254.169.254']);
  dns.set('v6private.test', ['fd00::1']);
  dns.set('mapped.test', ['::ffff:127.0.0.1']);
  dns.set('mixed.test', ['93.184.215.14', '192.168.0.10']);
  dns.set('localhost', ['127.0.0.1', '::1']);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const create = (f: Fixture, url: string) =>
  h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints`, {
    body: { url, event_types: ['sale.created'] },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
let seq = 0;
async function sale(f: Fixture) {
  const customer = `guard-${++seq}`;
  await clickAndLead(h, f, customer);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-guard-${seq}`, amount_cents: 5000, currency: 'USD', customer_key: customer },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
}
const deliveries = async (f: Fixture, endpointId: number) =>
  (await h.admin('GET', `/programs/${f.programId}/event-endpoints/${endpointId}/deliveries`)).deliveries;

describe('registration', () => {
  test.each([
    ['https to 10/8', 'https://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
    ['https to 172.16/12', 'https://172.20.1.2/hook', /private/],
    ['https to 192.168/16', 'https://192.168.1.1/hook', /private/],
    ['https to fd00::/8', 'https://[fd00::1]/hook', /unique local/],
    ['https to the metadata service', 'https://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['https to CGNAT space', 'https://100.64.0.1/', /shared/],
    ['https to 0.0.0.0', 'https://0.0.0.0/', /unspecified/],
    ['https to multicast', 'https://224.0.0.1/', /multicast/],
    ['https to ::1', 'https://[::1]/', /loopback/],
    ['https to IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/', /loopback/],
    ['https to IPv4-mapped private', 'https://[::ffff:10.0.0.1]/', /private/],
    ['https to NAT64-embedded private', 'https://[64:ff9b::a00:1]/', /private/],
    ['https to 6to4-embedded loopback', 'https://[2002:7f00:1::]/', /loopback/],
    ['https to decimal 127.0.0.1', 'https://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['https to hex 127.0.0.1', 'https://0x7f.1/', /loopback/],
    ['https to octal 127.0.0.1', 'https://017700000001/', /loopback/],
    ['https to 127.1', 'https://127.1:6379/', /loopback/],
    ['a name resolving to 10/8', 'https://evil.test/hook', /evil\.test resolves to a private address/],
    ['a name resolving to the metadata address', 'https://metadata.test/', /cloud metadata/],
    ['a name resolving to fd00::/8', 'https://v6private.test/', /unique local/],
    ['a name resolving to IPv4-mapped loopback', 'https://mapped.test/', /loopback/],
    ['a name with one private address among public ones', 'https://mixed.test/', /private/],
    ['localhost', 'https://localhost:5432/', /loopback/],
    ['http to loopback Redis', 'http://127.0.0.1:6379/', /plain http:\/\/ goes only to hosts on OUTBOUND_ALLOW_HOSTS/],
    ['http to loopback PostgreSQL over IPv6', 'http://[::1]:5432/', /plain http/],
    ['http to decimal loopback', 'http://2130706433:6379/', /plain http/],
    ['http to a public host', 'http://public.test/hook', /plain http/],
  ])('%s: 400 url_not_allowed naming the field and the reason', async (_label, url, reason) => {
    const f = await createProgramFixture(h);
    const r = await create(f, url);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'url_not_allowed', details: { field: 'url' } });
    expect(r.body.error.details.reason).toMatch(reason);
    expect(r.body.error.message).toMatch(reason);
    // What an internal name resolved to stays in the server's log, not in the answer.
    if (!/^https?:\/\/[\d[]/.test(url)) expect(JSON.stringify(r.body)).not.toMatch(/10\.0\.0\.1|169\.254|192\.168/);
    expect(await h.admin('GET', `/programs/${f.programId}/event-endpoints`)).toEqual({ endpoints: [] });
  });

  test('accepted: a public address or a name resolving to public addresses only; a name that does not resolve yet', async () => {
    const f = await createProgramFixture(h);
    for (const url of [
      'https://public.test/hook',
      'https://93.184.215.14/hook',
      'https://[2606:4700:4700::1111]/hook',
      'https://not-yet.test/hook',
      `http://receiver.test:${port}/hook`,
    ])
      expect((await create(f, url)).status, url).toBe(201);
  });

  test('a change of url is checked too, and a refused one leaves the endpoint as it was', async () => {
    const f = await createProgramFixture(h);
    const { endpoint } = (await create(f, 'https://public.test/hook')).body;
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints/${endpoint.id}`, {
      method: 'PATCH',
      body: { url: 'https://evil.test/hook' },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'url_not_allowed', details: { field: 'url' } });
    const { endpoints } = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
    expect(endpoints[0].url).toBe('https://public.test/hook');
  });
});

describe('delivery', () => {
  test('an allowed delivery connects to the address the guard checked (one lookup), Host stays the URL’s', async () => {
    const f = await createProgramFixture(h);
    const { endpoint } = (await create(f, `http://receiver.test:${port}/pinned`)).body;
    lookups.length = 0;
    await sale(f);
    const [d] = await waitFor(async () => {
      const list = await deliveries(f, endpoint.id);
      return list[0]?.status === 'delivered' && list;
    });
    // receiver.test is unknown to the system's resolver: the connection went where the test resolver said.
    expect(seen.filter((s) => s.path === '/pinned')).toEqual([{ path: '/pinned', host: `receiver.test:${port}` }]);
    expect(lookups.filter((n) => n === 'receiver.test')).toHaveLength(1);
    // Only the start of the answer is kept: 256 bytes of UTF-8, its NUL stored as U+FFFD (3 bytes).
    expect(d.last_response_excerpt).toBe(`ok\uFFFD${'y'.repeat(251)}`);
  });

  test('rebinding: a name that resolved publicly at registration and privately now is refused, no connection made', async () => {
    const f = await createProgramFixture(h);
    dns.set('rebind.test', ['93.184.215.14']);
    const { endpoint } = (await create(f, `https://rebind.test:${port}/rebound`)).body;
    dns.set('rebind.test', ['127.0.0.2']);
    const before = connections;
    await sale(f);
    const [d] = await waitFor(async () => {
      const list = await deliveries(f, endpoint.id);
      return list[0]?.status === 'failed' && list;
    });
    expect(d).toMatchObject({ attempts: 1, last_status_code: null });
    expect(d.last_response_excerpt).toBe(
      'refused: rebind.test resolves to a loopback address; outbound requests go only to public addresses',
    );
    // Not retried: the delivery stays at one attempt; the endpoint counts the failure.
    await new Promise((r) => setTimeout(r, 400));
    expect((await deliveries(f, endpoint.id))[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(connections).toBe(before);
    const { endpoints } = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
    expect(endpoints[0].consecutive_failures).toBe(1);
  });

  test('an endpoint stored before the guard (http to a loopback port) is refused at delivery, no connection made', async () => {
    const f = await createProgramFixture(h);
    const { endpoint } = (await create(f, 'https://public.test/legacy')).body;
    await h.ctx
      .deps()
      .em.execute(`update event_endpoint set url = ? where id = ?`, [`http://127.0.0.2:${port}/legacy`, endpoint.id]);
    h.ctx.deps().caches.eventEndpoints.delete(f.programId);
    const before = connections;
    await sale(f);
    const [d] = await waitFor(async () => {
      const list = await deliveries(f, endpoint.id);
      return list[0]?.status === 'failed' && list;
    });
    expect(d.last_response_excerpt).toMatch(/^refused: plain http:\/\/ goes only to hosts on OUTBOUND_ALLOW_HOSTS/);
    expect(connections).toBe(before);
    expect(seen.some((s) => s.path === '/legacy')).toBe(false);
  });

  test('a redirect is not followed: the 3xx is a failed attempt and its location is never requested', async () => {
    const f = await createProgramFixture(h);
    const { endpoint } = (await create(f, `http://receiver.test:${port}/redirect`)).body;
    await sale(f);
    const [d] = await waitFor(async () => {
      const list = await deliveries(f, endpoint.id);
      return list[0]?.attempts >= 1 && list;
    });
    expect(d).toMatchObject({ last_status_code: 302, last_response_excerpt: 'see /redirected' });
    expect(seen.some((s) => s.path === '/redirected')).toBe(false);
  });
});
