/**
 * `referral_code` on the sale (the x402 helper's referral): binds a customer no click attributes
 * to the code's partner in the sale's own call; never takes a bound customer from its partner;
 * an unknown code binds nothing and leaves the sale to attribute as without it.
 */
import { describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const h = useHarness();

const sale = (f: Fixture, body: Record<string, unknown>) =>
  h.request('/api/v1/track/sale', { body: { amount_cents: 10_000, ...body }, headers: bearer(f.liveKey) });

async function saleRow(f: Fixture, saleId: number) {
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
  return sales.find((s: { id: number }) => s.id === saleId);
}

async function secondPartner(f: Fixture): Promise<{ id: number; code: string }> {
  const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `r${Math.random().toString(36).slice(2, 10)}`,
    name: 'Newsletter',
  });
  return { id: partner.id, code: partner.code };
}

describe('a referral code with the sale', () => {
  test('binds a new customer to the code’s partner, and the customer’s later sales follow it', async () => {
    const f = await createProgramFixture(h);
    const first = await sale(f, {
      transaction_id: 'ref-1',
      customer_key: '0xpayer1',
      referral_code: f.partnerCode,
      referral_url: `https://api.example/weather?aff=${f.partnerCode}`,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, commission_id: expect.any(Number) });
    expect(await saleRow(f, first.body.sale_id)).toMatchObject({
      partner: f.partnerId,
      attributed_via: 'customer_key',
    });
    const { clicks } = await h.admin('GET', `/programs/${f.programId}/clicks?limit=10`);
    expect(clicks[0]).toMatchObject({ affiliate_url: `https://api.example/weather?aff=${f.partnerCode}` });
    const again = await sale(f, { transaction_id: 'ref-2', customer_key: '0xpayer1' });
    expect(await saleRow(f, again.body.sale_id)).toMatchObject({ partner: f.partnerId });
  });

  test('a customer already bound keeps its partner: another partner’s code, or a bogus one, changes nothing', async () => {
    const f = await createProgramFixture(h);
    const other = await secondPartner(f);
    await clickAndLead(h, f, 'bound-payer');
    for (const [i, code] of [other.code, 'no-such-partner', 'x'.repeat(200), '%00<script>'].entries()) {
      const r = await sale(f, { transaction_id: `bound-${i}`, customer_key: 'bound-payer', referral_code: code });
      expect(r.status).toBe(200);
      expect(await saleRow(f, r.body.sale_id)).toMatchObject({ partner: f.partnerId, attributed_via: 'customer_key' });
    }
    const plain = await sale(f, { transaction_id: 'bound-plain', customer_key: 'bound-payer' });
    expect(await saleRow(f, plain.body.sale_id)).toMatchObject({ partner: f.partnerId });
  });

  test('an unknown code for a customer nobody referred: the contract’s no_attribution, saying why', async () => {
    const f = await createProgramFixture(h);
    const g = await createProgramFixture(h);
    for (const code of ['bogus', g.partnerCode]) {
      const r = await sale(f, { transaction_id: `unknown-${code}`, customer_key: '0xnew', referral_code: code });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'no_attribution',
        details: { referral_code: code, referral: expect.stringContaining('names no partner of this program') },
      });
    }
    const { customers } = await h.admin('GET', `/programs/${f.programId}/customers`);
    expect(customers).toEqual([]);
  });

  test('a binding past the attribution window gives way to the referral', async () => {
    const f = await createProgramFixture(h, { attribution_window_days: 7, cookie_duration_days: 7 });
    const other = await secondPartner(f);
    await clickAndLead(h, f, 'lapsed-payer');
    const start = h.clock.now;
    h.clock.advanceDays(10);
    try {
      const bogus = await sale(f, { transaction_id: 'lapsed-0', customer_key: 'lapsed-payer', referral_code: 'nope' });
      expect(bogus.body).toMatchObject({ attributed: false, reason: 'attribution_window_expired' });
      const r = await sale(f, { transaction_id: 'lapsed-1', customer_key: 'lapsed-payer', referral_code: other.code });
      expect(await saleRow(f, r.body.sale_id)).toMatchObject({ partner: other.id });
    } finally {
      h.clock.now = start;
    }
  });

  test('concurrent first payments of one new payer with the code: every sale recorded, one customer', async () => {
    const f = await createProgramFixture(h);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sale(f, { transaction_id: `burst-${i}`, customer_key: '0xagent', referral_code: f.partnerCode }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    const { customers } = await h.admin('GET', `/programs/${f.programId}/customers`);
    expect(customers.map((c: { customer_key: string }) => c.customer_key)).toEqual(['0xagent']);
    const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
    expect(sales.filter((s: { partner: number }) => s.partner === f.partnerId)).toHaveLength(6);
  });
});
