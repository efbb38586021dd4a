/**
 * Property: whatever a verified payload contains, `normalise` returns a value (never throws),
 * its dedupe key has no ":", and every emitted job carries a positive integer amount.
 * Fixtures are mutated field by field with arbitrary JSON so the readers see wrong types.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ProviderAdapter } from '../../src/providers/adapter.ts';
import { createProviderAdapters } from '../../src/providers/registry.ts';
import { CTX } from './fixtures/clock.ts';
import { lemonSqueezyEvent, lemonSqueezyInvoice, lemonSqueezyOrder } from './fixtures/lemonsqueezy.ts';
import { paddleAdjustment, paddleEvent, paddleTransaction } from './fixtures/paddle.ts';
import { creemCheckout, creemEvent, creemRefund, creemSubscription } from './fixtures/creem.ts';
import { dodoEvent, dodoPayment, dodoRefund } from './fixtures/dodo.ts';
import { polarEvent, polarOrder, polarRefund, polarSubscriptionOrder } from './fixtures/polar.ts';
import { basilInvoice, checkoutSession, legacyInvoice, stripeEvent, stripeRefund } from './fixtures/stripe.ts';
import { payosWebhook, sepayTransfer } from './fixtures/vietqr.ts';

type Json = Record<string, unknown>;
const adapters = createProviderAdapters();

/** Each top-level field keeps its fixture value or becomes arbitrary JSON (or disappears). */
function mutate(object: Json): fc.Arbitrary<Json> {
  const fields = Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key,
      fc.oneof(fc.constant(value), fc.jsonValue(), fc.constant(undefined)),
    ]),
  );
  return fc.record(fields) as fc.Arbitrary<Json>;
}

const lemonResource = (resource: Json) =>
  mutate(resource.attributes as Json).map((attributes) => ({ ...resource, attributes }));

const cases: Array<{ label: string; adapter: ProviderAdapter; events: fc.Arbitrary<unknown> }> = [
  {
    label: 'stripe checkout',
    adapter: adapters.stripe,
    events: mutate(checkoutSession()).map((o) => stripeEvent('checkout.session.completed', o)),
  },
  {
    label: 'stripe basil invoice',
    adapter: adapters.stripe,
    events: mutate(basilInvoice()).map((o) => stripeEvent('invoice.paid', o)),
  },
  {
    label: 'stripe legacy invoice',
    adapter: adapters.stripe,
    events: mutate(legacyInvoice()).map((o) => stripeEvent('invoice.paid', o)),
  },
  {
    label: 'stripe refund',
    adapter: adapters.stripe,
    events: mutate(stripeRefund()).map((o) => stripeEvent('refund.created', o)),
  },
  { label: 'stripe envelope', adapter: adapters.stripe, events: mutate(stripeEvent('invoice.paid', basilInvoice())) },
  {
    label: 'paddle transaction',
    adapter: adapters.paddle,
    events: mutate(paddleTransaction()).map((o) => paddleEvent('transaction.completed', o)),
  },
  {
    label: 'paddle adjustment',
    adapter: adapters.paddle,
    events: mutate(paddleAdjustment()).map((o) => paddleEvent('adjustment.updated', o)),
  },
  {
    label: 'paddle envelope',
    adapter: adapters.paddle,
    events: mutate(paddleEvent('transaction.completed', paddleTransaction())),
  },
  {
    label: 'lemon squeezy order',
    adapter: adapters.lemonsqueezy,
    events: lemonResource(lemonSqueezyOrder()).map((d) => lemonSqueezyEvent('order_created', d)),
  },
  {
    label: 'lemon squeezy refund',
    adapter: adapters.lemonsqueezy,
    events: lemonResource(lemonSqueezyOrder()).map((d) => lemonSqueezyEvent('order_refunded', d)),
  },
  {
    label: 'lemon squeezy invoice',
    adapter: adapters.lemonsqueezy,
    events: lemonResource(lemonSqueezyInvoice()).map((d) => lemonSqueezyEvent('subscription_payment_success', d)),
  },
  {
    label: 'lemon squeezy envelope',
    adapter: adapters.lemonsqueezy,
    events: mutate(lemonSqueezyEvent('order_created', lemonSqueezyOrder())),
  },
  {
    label: 'polar order',
    adapter: adapters.polar,
    events: mutate(polarOrder()).map((o) => polarEvent('order.paid', o)),
  },
  {
    label: 'polar subscription order',
    adapter: adapters.polar,
    events: mutate(polarSubscriptionOrder('subscription_cycle')).map((o) => polarEvent('order.paid', o)),
  },
  {
    label: 'polar refund',
    adapter: adapters.polar,
    events: mutate(polarRefund()).map((o) => polarEvent('refund.updated', o)),
  },
  { label: 'polar envelope', adapter: adapters.polar, events: mutate(polarEvent('order.paid', polarOrder())) },
  {
    label: 'dodo payment',
    adapter: adapters.dodo,
    events: mutate(dodoPayment()).map((o) => dodoEvent('payment.succeeded', o)),
  },
  {
    label: 'dodo refund',
    adapter: adapters.dodo,
    events: mutate(dodoRefund()).map((o) => dodoEvent('refund.succeeded', o)),
  },
  { label: 'dodo envelope', adapter: adapters.dodo, events: mutate(dodoEvent('payment.succeeded', dodoPayment())) },
  {
    label: 'creem checkout',
    adapter: adapters.creem,
    events: mutate(creemCheckout()).map((o) => creemEvent('checkout.completed', o)),
  },
  {
    label: 'creem subscription',
    adapter: adapters.creem,
    events: mutate(creemSubscription()).map((o) => creemEvent('subscription.paid', o)),
  },
  {
    label: 'creem refund',
    adapter: adapters.creem,
    events: mutate(creemRefund()).map((o) => creemEvent('refund.created', o)),
  },
  {
    label: 'creem envelope',
    adapter: adapters.creem,
    events: mutate(creemEvent('checkout.completed', creemCheckout())),
  },
  {
    label: 'payos payment',
    adapter: adapters.payos,
    events: mutate(payosWebhook({ orderCode: 10023, description: 'DH10023' }).data as Json).map((data) => ({
      ...payosWebhook(),
      data,
    })),
  },
  { label: 'payos envelope', adapter: adapters.payos, events: mutate(payosWebhook({ orderCode: 10023 })) },
  { label: 'sepay transfer', adapter: adapters.sepay, events: mutate(sepayTransfer({ code: 'DH10023' })) },
  { label: 'any JSON (stripe)', adapter: adapters.stripe, events: fc.jsonValue() },
  { label: 'any JSON (paddle)', adapter: adapters.paddle, events: fc.jsonValue() },
  { label: 'any JSON (lemon squeezy)', adapter: adapters.lemonsqueezy, events: fc.jsonValue() },
  { label: 'any JSON (polar)', adapter: adapters.polar, events: fc.jsonValue() },
  { label: 'any JSON (dodo)', adapter: adapters.dodo, events: fc.jsonValue() },
  { label: 'any JSON (creem)', adapter: adapters.creem, events: fc.jsonValue() },
  { label: 'any JSON (payos)', adapter: adapters.payos, events: fc.jsonValue() },
  { label: 'any JSON (sepay)', adapter: adapters.sepay, events: fc.jsonValue() },
];

describe('normalise is total', () => {
  test.each(cases)('$label', ({ adapter, events }) => {
    fc.assert(
      fc.property(events, (event) => {
        const result = adapter.normalise(event, CTX);
        expect(result.dedupeKey).not.toContain(':');
        expect(result.jobs.length === 0).toBe(result.ignoredReason !== null);
        for (const job of result.jobs) {
          expect(job.transactionId).toBeTruthy();
          if (job.kind !== 'sale' && job.kind !== 'refund') continue;
          const cents =
            job.kind === 'sale'
              ? job.amountCents
              : job.amount.type === 'per_refund'
                ? job.amount.cents
                : job.amount.totalCents;
          // `null` is only a full refund's "the rest of the sale" (Dodo sends no amount for one).
          const rest = job.kind === 'refund' && job.amount.type === 'per_refund' && cents === null;
          expect(rest || (Number.isSafeInteger(cents) && (cents ?? 0) > 0)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
