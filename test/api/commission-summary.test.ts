import { expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness } from '../helpers/harness.ts';
import { rewardSales } from '../helpers/reward-sales.ts';

/**
 * The overview's commission split through the API, in both modes: a period's commissions per
 * currency as earned (after refunds), held for review and reversed, of this program only.
 */
const h = useHarness();
const { saleOf } = rewardSales(h);

test('earned after refunds, held for review and reversed, per currency, of the program only', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1_000 });
  const other = await createProgramFixture(h, { commission_rate_bps: 5_000 });
  await clickAndLead(h, other, 'elsewhere');
  await saleOf(other, 'elsewhere', { amount_cents: 90_000 });

  await clickAndLead(h, f, 'cs-a');
  const refunded = await saleOf(f, 'cs-a', { amount_cents: 10_000 }); // 1 000
  await saleOf(f, 'cs-a', { amount_cents: 5_000, currency: 'EUR' }); // EUR 500
  const r = await h.request('/api/v1/track/refund', {
    body: { transaction_id: refunded.transactionId, refund_amount_cents: 2_500 },
    headers: bearer(f.liveKey),
  });
  expect(r.body).toMatchObject({ status: 'refunded', deductionAmount: 250 });
  // A sale seconds after its click is held under this rule.
  await h.admin('PATCH', `/programs/${f.programId}`, { fraud_rules: { fast_conversion_seconds: 3_600 } });
  await clickAndLead(h, f, 'cs-b');
  await saleOf(f, 'cs-b', { amount_cents: 20_000 }); // 2 000, held

  const body = await h.admin('GET', `/programs/${f.programId}/stats/commissions?days=7`);
  expect(body).toEqual({
    commissions: [
      { currency: 'EUR', earned_cents: 500, held_cents: 0, reversed_cents: 0 },
      { currency: 'USD', earned_cents: 750, held_cents: 2_000, reversed_cents: 250 },
    ],
  });
  // A period before any of them: nothing.
  const before = new Date(h.clock.now.getTime() - 40 * 86_400_000).toISOString().slice(0, 10);
  const early = new Date(h.clock.now.getTime() - 35 * 86_400_000).toISOString().slice(0, 10);
  expect(await h.admin('GET', `/programs/${f.programId}/stats/commissions?from=${before}&to=${early}`)).toEqual({
    commissions: [],
  });
});
