/**
 * A burst of x402 settlements from one resource server (one client address) against the real
 * server, with the per-client click limit at its production default (120 a minute): every settled
 * payment ends as a sale or as a reason handed to the resource server's `onUnreported`. Referrals
 * travel with the keyed sale, so the click limit never drops one; a bogus referral neither fails
 * the sale of a payer already bound nor takes the payer from its partner.
 */
import { expect, test } from 'vitest';
import {
  createTrackerClient,
  reportX402Settlement,
  type X402ReportInput,
  type X402ReportResult,
  type X402Unreported,
} from '../../tracker/src/client.ts';
import { bearer, createProgramFixture, useHarness } from '../helpers/harness.ts';

const h = useHarness({ CLICK_LIMIT_PER_MINUTE: '120' });

const payer = (group: string, i: number) => `0x${group}${i.toString(16).padStart(40 - group.length, '0')}`;

test('129 settlements in a burst: 129 sales or 129 logged reasons, none lost to the click limit', async () => {
  const base = await h.listen();
  const f = await createProgramFixture(h, { domain: '127.0.0.1', commission_rate_bps: 2000 });
  const { partner: other } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `b${Date.now().toString(36)}`,
    name: 'Partner Two',
  });
  // Nine payers the second partner referred earlier (a click and a keyed lead each).
  const bound = Array.from({ length: 9 }, (_, i) => payer('b0', i));
  for (const key of bound) {
    const click = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `http://127.0.0.1/?aff=${other.code}` },
    });
    expect(click.status).toBe(200);
    const lead = await h.request('/api/v1/track/lead', {
      body: { customer_key: key, click_id: click.body.click_id },
      headers: bearer(f.liveKey),
    });
    expect(lead.status).toBe(200);
  }

  const resource = `${base.replace('localhost', '127.0.0.1')}/weather`;
  const settle = (key: string, n: number, referral: string | null): X402ReportInput => ({
    settlement: { success: true, transaction: `0x${n.toString(16).padStart(64, '0')}`, network: 'base', payer: key },
    requirements: { maxAmountRequired: '1000000', resource, network: 'base' },
    referral,
  });
  const burst = [
    // 110 new payers, each referred by the first partner.
    ...Array.from({ length: 110 }, (_, i) => settle(payer('a0', i), i, f.partnerCode)),
    // The bound payers: five with a bogus referral, four without one.
    ...bound.map((key, i) => settle(key, 200 + i, i < 5 ? 'not-a-partner' : null)),
    // Ten new payers with a bogus referral: no partner to give the sale to.
    ...Array.from({ length: 10 }, (_, i) => settle(payer('c0', i), 300 + i, 'bogus-code')),
  ];
  expect(burst).toHaveLength(129);

  // A generous timeout: on a loaded test machine a call that times out is `unavailable` (a reason,
  // retryable) although the server records it later, and the count below would not be exact.
  const client = createTrackerClient({ apiKey: f.liveKey, apiUrl: base, timeoutMs: 150_000 });
  const logged: X402Unreported[] = [];
  const results: X402ReportResult[] = await Promise.all(
    burst.map((s) => reportX402Settlement(client, s, { onUnreported: (u) => logged.push(u) })),
  );

  const recorded = results.filter((r) => r.reported);
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
  expect(recorded.length + logged.length).toBe(129);
  expect(sales).toHaveLength(recorded.length);
  expect(recorded).toHaveLength(119);
  // The ten unbound payers with a bogus code: the reason says so, and nothing was retried in vain.
  expect(logged).toHaveLength(10);
  for (const u of logged) {
    expect(u).toMatchObject({ reason: 'no_attribution', retryable: false, status: 400 });
    expect(u.error).toContain('names no partner of this program');
  }
  // The bound payers stayed with their partner, bogus referral or not; the referred ones are the first partner's.
  const partnerOf = new Map(
    sales.map((s: { transaction_id: string; partner: number }) => [s.transaction_id, s.partner]),
  );
  for (const s of burst.slice(110, 119)) expect(partnerOf.get(s.settlement.transaction)).toBe(other.id);
  for (const s of burst.slice(0, 110)) expect(partnerOf.get(s.settlement.transaction)).toBe(f.partnerId);
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  expect(commissions).toHaveLength(119);

  // Reported again (the resource server's retry of everything): nothing recorded twice.
  const again = await Promise.all(burst.slice(0, 119).map((s) => reportX402Settlement(client, s)));
  expect(again.every((r) => r.reported && r.duplicate)).toBe(true);
  expect((await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales).toHaveLength(119);
  // 260 sales on a shared two-core machine (embedded: one PGlite): minutes under load, not seconds.
}, 180_000);
