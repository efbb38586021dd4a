/**
 * Per-client limits of the unauthenticated routes on a real server process, real sockets and no
 * proxy: the client is the socket's peer address. One client (127.0.0.1) floods each route past
 * its limit and is answered 429; another client (127.0.0.2, a second loopback address) keeps being
 * served normally meanwhile. Production mode: the counts live in Redis.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminCall, signedStripeCheckout } from '../helpers/load-fixture.ts';
import { createFaultEnv, rawRequest, type FaultEnv, type RawReply } from './fault-env.ts';

const LIMIT = 6;
let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({
    roles: ['serve'],
    customers: 60,
    partners: 2,
    env: {
      CLICK_LIMIT_PER_MINUTE: String(LIMIT),
      BROWSER_LEAD_LIMIT_PER_MINUTE: String(LIMIT),
      WEBHOOK_LIMIT_PER_MINUTE: String(LIMIT),
      ADMIN_AUTH_FAILURES_PER_MINUTE: '3',
    },
  });
  await adminCall(env.http.url, env.adminToken, 'PATCH', `/programs/${env.fixture.programId}`, {
    domain: 'shop.example',
  });
});
afterAll(async () => {
  await env?.close();
});

/** One request on its own connection from the given local address. */
function from(
  localAddress: string,
  method: string,
  path: string,
  body: string | null,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  return rawRequest(env.http.url, path, { method, body, headers, localAddress });
}

const FLOODER = '127.0.0.1';
const OTHER = '127.0.0.2';

async function flood(n: number, send: (i: number) => Promise<RawReply>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
}

test('click: the flooding client gets 429 past the limit, another address is still served', async () => {
  const f = env.fixture;
  const click = (addr: string) =>
    from(
      addr,
      'POST',
      '/api/v1/track/click',
      JSON.stringify({ affiliate_url: `https://shop.example/?aff=${f.partnerCodes[0]}&via=${addr}` }),
    );
  const statuses = await flood(LIMIT * 3, () => click(FLOODER));
  expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
  expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT * 2).fill(429));
  const limited = await click(FLOODER);
  expect(limited.body.error).toMatchObject({ code: 'rate_limited' });
  for (let i = 0; i < LIMIT; i++) expect((await click(OTHER)).status, `other client, request ${i}`).toBe(200);
  const { rows } = await env.db.pool.query(
    `select count(*)::int as n from click where affiliate_url like '%&via=127.0.0.%'`,
  );
  expect(rows[0].n).toBe(LIMIT * 2); // the refused ones wrote nothing
});

test('browser lead: the flooding client gets 429 past the limit, another address is still served', async () => {
  const f = env.fixture;
  const lead = (addr: string, i: number) =>
    from(
      addr,
      'POST',
      '/api/v1/track/browser-lead',
      JSON.stringify({
        program_id: f.programId,
        customer_key: `flood-${addr}-${i}`,
        click_id: f.clickId(addr === FLOODER ? i : 30 + i),
      }),
      { origin: 'https://shop.example' },
    );
  const statuses = await flood(LIMIT * 3, (i) => lead(FLOODER, i));
  expect(statuses.slice(0, LIMIT).filter((s) => s === 429)).toEqual([]);
  expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT * 2).fill(429));
  const other = await flood(LIMIT, (i) => lead(OTHER, i));
  expect(other.filter((s) => s === 429)).toEqual([]);
});

test('webhook: unsigned floods are refused with 429 before the body is read; a provider at another address still delivers', async () => {
  const f = env.fixture;
  const junk = JSON.stringify({ id: 'evt_junk', pad: 'x'.repeat(50_000) });
  const statuses = await flood(LIMIT * 3, () =>
    from(FLOODER, 'POST', `/api/v1/webhooks/stripe/${f.programId}`, junk, { 'stripe-signature': 't=1,v1=00' }),
  );
  expect(statuses.slice(0, LIMIT).filter((s) => s === 429 || s >= 500)).toEqual([]);
  expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT * 2).fill(429));
  for (let i = 0; i < LIMIT; i++) {
    const d = signedStripeCheckout(f, {
      eventId: `evt_other${i}`,
      paymentIntent: `pi_other${i}`,
      amountCents: 2_000,
      customerKey: f.customerKey(40 + i),
    });
    expect(
      (await from(OTHER, 'POST', `/api/v1/webhooks/stripe/${f.programId}`, d.body, d.headers)).status,
      `delivery ${i}`,
    ).toBe(200);
  }
});

test('admin: past the allowed failed authentications further failures are refused, while the right token from the same address, even mid-flood, always passes', async () => {
  const wrong = { authorization: `Bearer ${'w'.repeat(40)}` };
  const right = { authorization: `Bearer ${env.adminToken}` };
  const statuses = await flood(6, () => from(FLOODER, 'GET', '/api/v1/admin/programs', null, wrong));
  expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
  expect(statuses.slice(3)).toEqual([429, 429, 429]);
  // The operator behind the same address signs in while the flood goes on.
  const [flooded, operator] = await Promise.all([
    flood(6, () => from(FLOODER, 'GET', '/api/v1/admin/programs', null, wrong)),
    flood(3, () => from(FLOODER, 'GET', '/api/v1/admin/programs', null, right)),
  ]);
  expect(flooded.every((s) => s === 429)).toBe(true);
  expect(operator).toEqual([200, 200, 200]);
  expect((await from(OTHER, 'GET', '/api/v1/admin/programs', null, right)).status).toBe(200);
  expect((await from(OTHER, 'GET', '/api/v1/admin/programs', null, wrong)).status).toBe(401);
});
