import { describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const h = useHarness();

const sale = (f: Fixture, body: Record<string, unknown>) =>
  h.request('/api/v1/track/sale', { body: { amount_cents: 10_000, ...body }, headers: bearer(f.liveKey) });

/** A second partner of the fixture's program, who owns `code`. */
async function codeOwner(f: Fixture, code: string, providerIds?: string[]) {
  const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `c${Math.random().toString(36).slice(2, 10)}`,
    name: 'Podcast host',
  });
  const created = await h.admin('POST', `/programs/${f.programId}/partners/${partner.id}/codes`, {
    code,
    ...(providerIds ? { provider_ids: providerIds } : {}),
  });
  return { partnerId: partner.id as number, codeId: created.code.id as number };
}

async function saleRow(f: Fixture, saleId: number) {
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=100`);
  return sales.find((s: { id: number }) => s.id === saleId);
}

async function commissionOf(f: Fixture, commissionId: number) {
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=100`);
  return commissions.find((c: { id: number }) => c.id === commissionId);
}

describe('coupon codes attribute sales without a click', () => {
  test('a sale with only a coupon code is the code owner’s, in any case, with the reason stored', async () => {
    const f = await createProgramFixture(h);
    const owner = await codeOwner(f, 'Podcast10');
    const r = await sale(f, { transaction_id: 'coupon-only', coupon_code: 'podcast10' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, commission_id: expect.any(Number) });
    expect(await commissionOf(f, r.body.commission_id)).toMatchObject({ partner: owner.partnerId, amount_cents: 1000 });
    expect(await saleRow(f, r.body.sale_id)).toMatchObject({
      partner: owner.partnerId,
      attributed_via: 'coupon',
      partner_code: owner.codeId,
      customer: null,
      click_id: null,
    });
  });

  test('an unknown code leaves the sale unattributed, as without a code', async () => {
    const f = await createProgramFixture(h);
    await codeOwner(f, 'KNOWN');
    const r = await sale(f, { transaction_id: 'unknown-code', coupon_code: 'UNKNOWN' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('no_attribution');
  });

  test('precedence click (default): the click’s partner keeps the sale; the code covers only sales no click attributes', async () => {
    const f = await createProgramFixture(h);
    await codeOwner(f, 'SPONSOR');
    await clickAndLead(h, f, 'clicked-buyer');
    const r = await sale(f, {
      transaction_id: 'click-and-code',
      customer_key: 'clicked-buyer',
      coupon_code: 'SPONSOR',
    });
    expect(await saleRow(f, r.body.sale_id)).toMatchObject({ partner: f.partnerId, attributed_via: 'customer_key' });
  });

  test('precedence coupon: the code’s partner gets the sale although a click names another partner', async () => {
    const f = await createProgramFixture(h, { coupon_precedence: 'coupon' });
    const owner = await codeOwner(f, 'SPONSOR');
    await clickAndLead(h, f, 'clicked-buyer');
    const r = await sale(f, { transaction_id: 'code-wins', customer_key: 'clicked-buyer', coupon_code: 'sponsor' });
    expect(await saleRow(f, r.body.sale_id)).toMatchObject({ partner: owner.partnerId, attributed_via: 'coupon' });
    // Without the code the same customer's next sale is the click's.
    const next = await sale(f, { transaction_id: 'code-wins-2', customer_key: 'clicked-buyer' });
    expect(await saleRow(f, next.body.sale_id)).toMatchObject({ partner: f.partnerId, attributed_via: 'customer_key' });
  });

  test('a click past the attribution window gives way to a code; without the code the answer is the contract’s', async () => {
    const f = await createProgramFixture(h, { attribution_window_days: 7, cookie_duration_days: 7 });
    const owner = await codeOwner(f, 'LATE');
    await clickAndLead(h, f, 'slow-buyer');
    const start = h.clock.now;
    h.clock.advanceDays(10);
    try {
      const expired = await sale(f, { transaction_id: 'late-no-code', customer_key: 'slow-buyer' });
      expect(expired.body).toMatchObject({ attributed: false, reason: 'attribution_window_expired' });
      const coded = await sale(f, { transaction_id: 'late-code', customer_key: 'slow-buyer', coupon_code: 'LATE' });
      expect(await saleRow(f, coded.body.sale_id)).toMatchObject({
        partner: owner.partnerId,
        attributed_via: 'coupon',
      });
    } finally {
      h.clock.now = start;
    }
  });

  test('renewals of a subscription first bought with a code follow it', async () => {
    const f = await createProgramFixture(h);
    const owner = await codeOwner(f, 'SUBCODE');
    const first = await sale(f, { transaction_id: 'sub-1', subscription_id: 'sub-c', coupon_code: 'SUBCODE' });
    const renewal = await sale(f, { transaction_id: 'sub-2', subscription_id: 'sub-c', is_recurring: true });
    expect(renewal.status).toBe(200);
    expect(await saleRow(f, first.body.sale_id)).toMatchObject({ attributed_via: 'coupon' });
    expect(await saleRow(f, renewal.body.sale_id)).toMatchObject({
      partner: owner.partnerId,
      attributed_via: 'subscription',
    });
  });

  test('a provider id of the discount matches exactly; a retired code attributes nothing more', async () => {
    const f = await createProgramFixture(h);
    const owner = await codeOwner(f, 'SPRING', ['promo_1SpringAbc']);
    const byId = await sale(f, { transaction_id: 'by-id', coupon_code: 'promo_1SpringAbc' });
    expect(await saleRow(f, byId.body.sale_id)).toMatchObject({ partner: owner.partnerId, partner_code: owner.codeId });
    const wrongCase = await sale(f, { transaction_id: 'by-id-case', coupon_code: 'PROMO_1SPRINGABC' });
    expect(wrongCase.body.error?.code).toBe('no_attribution');

    const retired = await h.admin('POST', `/programs/${f.programId}/partner-codes/${owner.codeId}/disable`);
    expect(retired.code.disabled_at).toEqual(expect.any(String));
    const after = await sale(f, { transaction_id: 'after-retire', coupon_code: 'spring' });
    expect(after.body.error?.code).toBe('no_attribution');
    // The sale it attributed keeps its partner.
    expect(await saleRow(f, byId.body.sale_id)).toMatchObject({ partner: owner.partnerId });
  });
});

describe('managing codes', () => {
  test('a code is unique per program in any case; a provider id belongs to one active code; other programs are apart', async () => {
    const f = await createProgramFixture(h);
    await codeOwner(f, 'ONLYONE', ['dsc_01unique']);
    const dupe = await h
      .admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, { code: 'onlyone' })
      .catch((e: Error) => e);
    expect(String(dupe)).toMatch(/taken/);
    const dupeId = await h
      .admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, {
        code: 'OTHER',
        provider_ids: ['dsc_01unique'],
      })
      .catch((e: Error) => e);
    expect(String(dupeId)).toMatch(/provider id/);

    const g = await createProgramFixture(h);
    await h.admin('POST', `/programs/${g.programId}/partners/${g.partnerId}/codes`, { code: 'ONLYONE' });
    // Program g's code never attributes program f's sales, nor the reverse.
    const fSale = await sale(f, { transaction_id: 'f-sale', coupon_code: 'ONLYONE' });
    expect((await saleRow(f, fSale.body.sale_id)).partner).not.toBe(g.partnerId);
  });

  test('a partner of another program cannot be given a code; bad codes are refused naming the field', async () => {
    const f = await createProgramFixture(h);
    const g = await createProgramFixture(h);
    const cross = await h
      .admin('POST', `/programs/${f.programId}/partners/${g.partnerId}/codes`, { code: 'CROSS' })
      .catch((e: Error) => e);
    expect(String(cross)).toMatch(/404|not_found|No such partner/);
    const bad = await h
      .admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, { code: 'has space' })
      .catch((e: Error) => e);
    expect(String(bad)).toMatch(/code/);
  });

  test('the list filters by partner', async () => {
    const f = await createProgramFixture(h);
    const owner = await codeOwner(f, 'LISTED');
    await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, { code: 'MINE' });
    const { 'partner-codes': codes } = await h.admin(
      'GET',
      `/programs/${f.programId}/partner-codes?partner_id=${owner.partnerId}`,
    );
    expect(codes.map((c: { code: string }) => c.code)).toEqual(['LISTED']);
  });
});
