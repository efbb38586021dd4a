/**
 * Stripe end to end on current API versions, with the objects Stripe publishes (stripe/openapi
 * fixtures): `charge.refunded` alone and alongside `refund.*`, and disputes.
 */
import { describe, expect, test } from 'vitest';
import { waitFor } from '../helpers/wait-for.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { basilEvent as event, newRef } from './scenario-steps.ts';
import { chargeRefunded, dispute, refundObject, stripeDeliverySteps } from './stripe-published-events.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(stripeKit);
const { deliver, setup, checkoutSale } = stripeDeliverySteps(w);

describe('stripe charge.refunded', () => {
  test('alone (API versions before 2024-10-28): every refund of the list applies once, by its own id and amount', async () => {
    const { f } = await setup();
    const ref = newRef('c');
    const pi = await checkoutSale(f, ref, 10000);
    const first = await deliver(f.programId, chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}_1`, 2000)]));
    expect(first.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 200 }),
    ]);
    // The second event's list repeats the first refund: skipped by its id, the new one applies.
    const second = await deliver(
      f.programId,
      chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}_2`, 3000), refundObject(ref, `re_${ref}_1`, 2000)]),
    );
    expect(second.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 300 }),
      expect.objectContaining({ kind: 'skipped', reason: `refund_id re_${ref}_1 already applied` }),
    ]);
    expect((await w.sale(f.programId, pi))?.refunded_cents).toBe(5000);
    expect((await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents]).sort()).toEqual([
      [`re_${ref}_1`, 2000],
      [`re_${ref}_2`, 3000],
    ]);
  });

  test.each(['charge.refunded first', 'refund.created first'])(
    'with refund.created also enabled (%s): one effect per Stripe refund',
    async (order) => {
      const { f } = await setup();
      const ref = newRef('c');
      const pi = await checkoutSale(f, ref, 10000);
      const viaCharge = chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}`, 4000)]);
      const viaRefund = event('refund.created', refundObject(ref, `re_${ref}`, 4000));
      const [a, b] = order === 'charge.refunded first' ? [viaCharge, viaRefund] : [viaRefund, viaCharge];
      expect((await deliver(f.programId, a)).outcome).toEqual([
        expect.objectContaining({ kind: 'applied', deductionCents: 400 }),
      ]);
      expect((await deliver(f.programId, b)).outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);
      expect((await w.sale(f.programId, pi))?.refunded_cents).toBe(4000);
      expect(await w.list(f.programId, 'refunds')).toHaveLength(1);
    },
  );
});

describe('stripe disputes', () => {
  test('funds withdrawn reverses the commission with reason chargeback; a won dispute asks the advertiser to review, once', async () => {
    const { f } = await setup();
    const ref = newRef('d');
    const pi = await checkoutSale(f, ref, 10000);
    const sale = await w.sale(f.programId, pi);
    const commission = await w.commissionOf(f.programId, sale!.id);
    await w.h.admin('POST', `/programs/${f.programId}/commissions/${commission!.id}/approve`, {});
    expect(await w.balanceCents(f)).toBe(1000);

    const withdrawn = await deliver(
      f.programId,
      dispute('charge.dispute.funds_withdrawn', ref, 'needs_response', 10000),
    );
    expect(withdrawn.outcome).toEqual([
      expect.objectContaining({
        kind: 'applied',
        status: 'reversed',
        deductionCents: 1000,
        balanceDeductionCents: 1000,
      }),
    ]);
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({
      status: 'reversed',
      reversed_cents: 1000,
      reason: 'chargeback',
    });
    expect(await w.list(f.programId, 'refunds')).toEqual([
      expect.objectContaining({ refund_id: `dp_${ref}`, reason: 'chargeback', source: 'provider' }),
    ]);
    expect(await w.balanceCents(f)).toBe(0);
    // A redelivery of the withdrawal (another event id, same dispute) changes nothing.
    expect(
      (await deliver(f.programId, dispute('charge.dispute.funds_withdrawn', ref, 'needs_response', 10000))).outcome,
    ).toEqual([expect.objectContaining({ kind: 'skipped' })]);

    const reinstated = await deliver(f.programId, dispute('charge.dispute.funds_reinstated', ref, 'won', 10000));
    expect(reinstated.outcome).toEqual([
      expect.objectContaining({ kind: 'review_requested', commissionId: commission!.id }),
    ]);
    const closed = await deliver(f.programId, dispute('charge.dispute.closed', ref, 'won', 10000));
    expect(closed.outcome).toEqual([expect.objectContaining({ kind: 'already_requested' })]);
    // The reversal stands; the advertiser is told, once, and the notification is delivered.
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
    const reviews = (await w.list(f.programId, 'notifications')).filter(
      (n) => n.payload.review_reason === 'chargeback_won',
    );
    expect(reviews).toEqual([
      expect.objectContaining({
        kind: 'advertiser_manual_review',
        commission_id: commission!.id,
        payload: expect.objectContaining({ chargeback_id: `dp_${ref}`, reversed_by_chargeback_cents: 1000 }),
      }),
    ]);
    await waitFor(() => w.h.sent.some((n) => n.id === reviews[0]!.id));
  });

  test('a lost dispute changes nothing more; a won inquiry that withdrew nothing has nothing to review', async () => {
    const { f } = await setup();
    const ref = newRef('d');
    await checkoutSale(f, ref, 10000);
    expect(await deliver(f.programId, dispute('charge.dispute.closed', ref, 'lost', 10000), 'ignored')).toMatchObject({
      error: 'dispute_not_won',
    });
    expect((await deliver(f.programId, dispute('charge.dispute.closed', ref, 'won', 10000))).outcome).toEqual([
      { kind: 'nothing_to_review', reason: 'chargeback_not_applied' },
    ]);
    expect(await w.list(f.programId, 'refunds')).toEqual([]);
  });
});
