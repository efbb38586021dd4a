/**
 * Steps shared by the end-to-end webhook scenarios (define-*-webhook-tests.ts): fresh provider-side
 * ids, tracker keys, a paid sale, a refund.
 */
import { expect } from 'vitest';
import type { Fixture } from '../helpers/harness.ts';
import type { RefundInput } from './kits/kit.ts';
import type { WebhookHarness } from './webhook-harness.ts';
import { published } from '../providers/fixtures/published.ts';

let refs = 0;
/** A provider-side id fragment unique in this process. */
export const newRef = (label: string) => `${label}${Date.now().toString(36)}${++refs}`;

/** A live Stripe event of API version basil: the published envelope around `object`. */
export const basilEvent = (type: string, object: Record<string, unknown>) =>
  published('stripe', 'event', {
    id: `evt_${newRef('e')}`,
    type,
    livemode: true,
    api_version: '2025-03-31.basil',
    data: { object: { ...object, livemode: true } },
  });

/** Tracker keys of a bound customer, tagged with the fixture's program. */
export const keysOf = (f: Fixture, c: { clickId: string; customerKey: string }) => ({
  clickId: c.clickId,
  customerKey: c.customerKey,
  programId: f.programId,
});

/** One refund of payment `ref`: this refund's own amount and the running total after it. */
export const refundInput = (
  ref: string,
  saleAmountCents: number,
  amountCents: number,
  totalCents: number,
): RefundInput => ({ ref, saleAmountCents, refundId: `${ref}-r${totalCents}`, amountCents, totalCents });

export function createScenarioSteps(w: WebhookHarness) {
  const { kit } = w;
  return {
    /** Delivers a payment for a fresh customer, waits for it and returns the sale and its commission. */
    async paidSale(f: Fixture, amountCents: number) {
      const ref = newRef('s');
      const customer = await w.newCustomer(f);
      const payment = kit.payment({ ref, amountCents, keys: keysOf(f, customer) });
      const res = await w.send(f.programId, payment.event);
      expect(res.status).toBe(200);
      await w.waitForInbox(f.programId, res.body.id, 'processed');
      const sale = await w.sale(f.programId, payment.transactionId);
      expect(sale).toBeDefined();
      const commission = await w.commissionOf(f.programId, sale!.id);
      return { ref, sale: sale!, commission: commission!, transactionId: payment.transactionId };
    },
    /** Delivers one refund and waits until its inbox row is processed; returns the row. */
    async deliverRefund(f: Fixture, input: RefundInput) {
      const res = await w.send(f.programId, kit.refund(input));
      expect(res.status).toBe(200);
      return w.waitForInbox(f.programId, res.body.id, 'processed');
    },
  };
}
