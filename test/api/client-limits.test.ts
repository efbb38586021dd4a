/**
 * Per-client limits of the unauthenticated routes, keyed by the client address: here behind one
 * trusted proxy (TRUST_PROXY=1), so the client is the X-Forwarded-For entry that proxy appended
 * (the rightmost); whatever the client writes to the left of it changes nothing.
 * The process-level twin (real sockets, no proxy) is test/faults/client-limits.test.ts.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  useHarness,
  createProgramFixture,
  type Fixture,
} from '../helpers/harness.ts';

const LIMIT = 5;
const h = useHarness({
  TRUST_PROXY: '1',
  CLICK_LIMIT_PER_MINUTE: String(LIMIT),
  BROWSER_LEAD_LIMIT_PER_MINUTE: String(LIMIT),
  WEBHOOK_LIMIT_PER_MINUTE: String(LIMIT),
  ADMIN_AUTH_FAILURES_PER_MINUTE: '3',
  API_KEY_FAILURES_PER_MINUTE: '3',
  STATUS_LIMIT_PER_MINUTE: '3',
});
let f: Fixture;
let clickId: string;
beforeAll(async () => {
  f = await createProgramFixture(h, { domain: 'shop.example' });
  // Set up through another address: the budgets under test stay untouched.
  const click = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
    headers: { 'x-forwarded-for': '10.9.9.9' },
  });
  clickId = click.body.click_id;
  await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, { signing_secret: 'whsec_limits_0123456789' });
});

const from = (client: string, spoofed = 'x') => ({ 'x-forwarded-for': `${spoofed}, ${client}` });
const statuses = async (n: number, send: (i: number) => Promise<{ status: number }>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
};

describe('one client flooding is limited; another client is not', () => {
  test('click: rotating the leftmost X-Forwarded-For does not escape the limit', async () => {
    const click = (client: string, spoof: string) =>
      h.request('/api/v1/track/click', {
        body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
        headers: from(client, spoof),
      });
    const flood = await statuses(LIMIT + 3, (i) => click('10.0.0.1', `198.51.100.${i}`));
    expect(flood.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expect(flood.slice(LIMIT)).toEqual([429, 429, 429]);
    const limited = await click('10.0.0.1', 'y');
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.body.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect((await click('10.0.0.2', 'y')).status).toBe(200);
  });

  test('browser lead: the budget is per client, not one per program (another client still signs up)', async () => {
    const lead = (client: string, i: number) =>
      h.request('/api/v1/track/browser-lead', {
        body: { program_id: f.programId, customer_key: `flood-${client}-${i}`, click_id: clickId },
        headers: { origin: 'https://shop.example', ...from(client) },
      });
    const flood = await statuses(LIMIT + 2, (i) => lead('10.0.1.1', i));
    expect(flood.filter((s) => s === 429)).toHaveLength(2);
    expect(flood.slice(0, LIMIT).every((s) => s !== 429)).toBe(true);
    expect((await lead('10.0.1.2', 0)).status).not.toBe(429);
  });

  test('webhook: limited before the body is read or its signature computed', async () => {
    const big = 'x'.repeat(1_000_000);
    const hook = (client: string) =>
      h.request(`/api/v1/webhooks/stripe/${f.programId}`, {
        raw: big,
        headers: { 'stripe-signature': 't=1,v1=00', ...from(client) },
      });
    const flood = await statuses(LIMIT + 2, () => hook('10.0.2.1'));
    expect(flood).toEqual([...Array(LIMIT).fill(400), 429, 429]);
    expect((await hook('10.0.2.2')).status).toBe(400);
  });

  test('admin: failed authentications are throttled per client and logged; the right token always passes', async () => {
    const admin = (client: string, token: string) =>
      h.request('/api/v1/admin/programs', { headers: { authorization: `Bearer ${token}`, ...from(client) } });
    expect(await statuses(3, () => admin('10.0.3.1', 'wrong-token-wrong-token-wrong-token'))).toEqual([401, 401, 401]);
    expect((await admin('10.0.3.1', 'wrong-token-wrong-token-wrong-token')).status).toBe(429);
    expect((await admin('10.0.3.1', ADMIN_TOKEN)).status).toBe(200);
    expect((await admin('10.0.3.1', 'wrong-token-wrong-token-wrong-token')).status).toBe(429);
    expect((await admin('10.0.3.2', ADMIN_TOKEN)).status).toBe(200);
  });

  test('API keys: unknown keys are throttled per client; a valid key from the same client always passes', async () => {
    const refund = (client: string, key: string) =>
      h.request('/api/v1/track/refund', {
        body: { transaction_id: 'none' },
        headers: { ...bearer(key), ...from(client) },
      });
    const guess = () => refund('10.0.4.1', `trk_live_${'x'.repeat(32)}`);
    expect(await statuses(3, guess)).toEqual([401, 401, 401]);
    const limited = await guess();
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited' });
    // The valid key: looked up first, answered as always (404: no such sale).
    expect((await refund('10.0.4.1', f.liveKey)).status).toBe(404);
    expect((await guess()).status).toBe(429);
    // Another client is not affected.
    expect((await refund('10.0.4.2', `trk_live_${'y'.repeat(32)}`)).status).toBe(401);
  });

  test('a proxy chain shorter than the trusted hops falls back to the socket address', async () => {
    const r = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
    });
    expect(r.status).toBe(200);
  });
});

test('cli/status has its own per-key limit', async () => {
  const other = await createProgramFixture(h);
  const s = await statuses(4, () => h.request('/api/v1/cli/status', { headers: bearer(other.liveKey) }));
  expect(s).toEqual([200, 200, 200, 429]);
  // The tracking calls of the same key keep their own budget.
  const lead = await clickAndLead(h, other, 'status-limit-user').then(
    () => 200,
    () => 0,
  );
  expect(lead).toBe(200);
});

test('the admin token must be at least 32 characters', () => {
  expect(() => loadConfig({ ADMIN_TOKEN: 'a'.repeat(31) })).toThrow(/ADMIN_TOKEN/);
  expect(loadConfig({ ADMIN_TOKEN: 'a'.repeat(32) }).ADMIN_TOKEN).toHaveLength(32);
});

test('TRUST_PROXY takes false, true or a number of proxies', () => {
  expect(loadConfig({}).TRUST_PROXY).toBe(0);
  expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(1);
  expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
});
