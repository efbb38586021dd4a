/**
 * The `CURRENCIES` opt-in through Stripe, with the objects Stripe publishes (stripe/openapi
 * fixtures): GBP, JPY (zero-decimal) and KWD (three-decimal) checkouts, partial refunds by
 * `refund.updated` and `charge.refunded`, and the payout of what remains, exact in ISO minor units.
 * Stripe's own minor units differ from ISO's for ISK and MGA: converted, or refused when a
 * fraction of the ISO unit would be lost.
 */
import { describe, expect, test } from 'vitest';
import { published } from '../providers/fixtures/published.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { basilEvent as event, keysOf, newRef } from './scenario-steps.ts';
import { chargeRefunded, refundObject, stripeDeliverySteps } from './stripe-published-events.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(stripeKit, { CURRENCIES: 'all' });
const { deliver, setup } = stripeDeliverySteps(w);

type Keys = ReturnType<typeof keysOf>;
/** A paid one-off Checkout Session in `currency` (lower case, as Stripe writes it). */
const checkout = (ref: string, keys: Keys, currency: string, amount: number) =>
  event(
    'checkout.session.completed',
    published('stripe', 'checkout-session', {
      id: `cs_${ref}`,
      mode: 'payment',
      payment_status: 'paid',
      status: 'complete',
      payment_intent: `pi_${ref}`,
      currency,
      amount_subtotal: amount,
      amount_total: amount,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      discounts: [],
      metadata: {
        tracker_click_id: keys.clickId,
        tracker_customer_key: keys.customerKey,
        program_id: String(keys.programId),
      },
    }),
  );
const refundIn = (currency: string, ref: string, id: string, amount: number) => ({
  ...refundObject(ref, id, amount),
  currency,
});

describe('stripe sales, refunds and payouts in GBP, JPY and KWD', () => {
  // 12.5% commission. The first refund (refund.updated) takes a third; the second arrives in a
  // charge.refunded listing both refunds (the first is skipped by its id). Reversals come from
  // cumulative totals, so the two never drift from round(commission × refunded / amount).
  test.each([
    ['gbp: £49.99 → 625; £16.66 refunded reverses 208, then £8.33 more 104', 'gbp', 4_999, 625, 1_666, 208, 833, 104],
    ['jpy: ¥4,999 → ¥625; ¥1,666 reverses ¥208, then ¥833 more ¥104', 'jpy', 4_999, 625, 1_666, 208, 833, 104],
    ['kwd: 12.345 → 1.543; 4.115 reverses 0.514, then 2.060 more 0.258', 'kwd', 12_345, 1_543, 4_115, 514, 2_060, 258],
  ] as const)('%s', async (_label, currency, amount, commission, first, firstReversal, second, secondReversal) => {
    const { f, keys } = await setup();
    await w.h.admin('PATCH', `/programs/${f.programId}`, { commission_rate_bps: 1250 });
    const ref = newRef(currency);
    await deliver(f.programId, checkout(ref, keys, currency, amount));
    const sale = await w.sale(f.programId, `pi_${ref}`);
    expect(sale).toMatchObject({ amount_cents: amount, currency: currency.toUpperCase() });
    const c = await w.commissionOf(f.programId, sale!.id);
    expect(c).toMatchObject({ amount_cents: commission, currency: currency.toUpperCase() });
    await w.h.admin('POST', `/programs/${f.programId}/commissions/${c!.id}/approve`, {});

    const r1 = refundIn(currency, ref, `re_${ref}_1`, first);
    const one = await deliver(f.programId, event('refund.updated', r1));
    expect(one.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: firstReversal }),
    ]);
    const listed = chargeRefunded(ref, amount, [refundIn(currency, ref, `re_${ref}_2`, second), r1]);
    (listed.data as { object: Record<string, unknown> }).object.currency = currency;
    const two = await deliver(f.programId, listed);
    expect(two.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: secondReversal }),
      expect.objectContaining({ kind: 'skipped' }),
    ]);
    expect((await w.sale(f.programId, `pi_${ref}`))?.refunded_cents).toBe(first + second);

    const rest = commission - firstReversal - secondReversal;
    const code = currency.toUpperCase();
    expect(await w.balanceCents(f, code)).toBe(rest);
    const payout = await w.h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: code,
    });
    expect(payout.payout).toMatchObject({ currency: code, amount_cents: rest });
    await w.h.admin('POST', `/programs/${f.programId}/payouts/${payout.payout.id}/pay`, {});
    expect(await w.balanceCents(f, code)).toBe(0);
  });
});

describe("Stripe's minor units that are not ISO's", () => {
  test('ISK: Stripe writes two decimals of whole krónur; 500000 is 5,000 ISK (ISO: no decimals)', async () => {
    const { f, keys } = await setup();
    const ref = newRef('isk');
    await deliver(f.programId, checkout(ref, keys, 'isk', 500_000));
    expect(await w.sale(f.programId, `pi_${ref}`)).toMatchObject({ amount_cents: 5_000, currency: 'ISK' });
  });

  test('ISK with a fraction of a króna: refused as unsupported_minor_units, nothing recorded', async () => {
    const { f, keys } = await setup();
    const ref = newRef('iskx');
    const res = await w.send(f.programId, checkout(ref, keys, 'isk', 500_050));
    const row = await w.waitForInbox(f.programId, res.body.id, 'ignored');
    expect(row.error).toBe('unsupported_minor_units');
    expect(await w.sale(f.programId, `pi_${ref}`)).toBeUndefined();
  });

  test('MGA: zero-decimal at Stripe, two digits in ISO 4217; 1500 ariary is 150000 minor units', async () => {
    const { f, keys } = await setup();
    const ref = newRef('mga');
    await deliver(f.programId, checkout(ref, keys, 'mga', 1_500));
    expect(await w.sale(f.programId, `pi_${ref}`)).toMatchObject({ amount_cents: 150_000, currency: 'MGA' });
  });
});
