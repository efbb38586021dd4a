/**
 * Coupon attribution from provider deliveries: each provider's sale payload with a discount (the
 * files in ../providers/fixtures/discounts, written from each provider's published schema, see
 * their SOURCES.md) and no tracker metadata, delivered signed over HTTP, is credited to the
 * partner who owns the code or the provider's id of the discount.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { MetadataWebhookProvider } from '../../src/core/shared/vocabulary.ts';
import { stripeEvent } from '../providers/fixtures/stripe.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import { useWebhookHarness, type WebhookHarness } from './webhook-harness.ts';

type Json = Record<string, any>;
const fixture = (path: string): Json =>
  JSON.parse(readFileSync(new URL(`../providers/fixtures/discounts/${path}`, import.meta.url), 'utf8'));

/** Stripe's fixtures are test-mode objects (`livemode: false`, recorded as test traffic): made live. */
const live = (object: Json): Json => ({ ...object, livemode: true });

type Case = {
  label: string;
  /** The delivery body as the fixture has it (Stripe fixtures are the event's object, wrapped here). */
  event: () => Json;
  /** The sale's transaction id in this payload. */
  transactionId: string;
  /** What the merchant registers for the partner: the code the customer types, and provider ids. */
  code: { code: string; provider_ids?: string[] };
};

const CASES: Partial<Record<MetadataWebhookProvider, Case[]>> = {
  stripe: [
    {
      label: 'checkout.session.completed: discounts[].promotion_code',
      event: () =>
        stripeEvent(
          'checkout.session.completed',
          live(fixture('stripe/checkout-session-completed-with-discount.json')),
        ),
      transactionId: 'pi_3PgcAFB7WZ01zgkW0xDisc001',
      code: { code: 'FALL20', provider_ids: ['promo_1Pgc79B7WZ01zgkWNy4mn5NX'] },
    },
    {
      label: 'invoice.paid (before basil): the expanded discount’s coupon id',
      event: () => stripeEvent('invoice.paid', live(fixture('stripe/invoice-paid-legacy-with-discount.json'))),
      transactionId: 'pi_1BjOrk2eZvKYlo2CDisc0001',
      code: { code: 'LAUNCH20', provider_ids: ['Z4OV52SU'] },
    },
  ],
  paddle: [
    {
      label: 'transaction.completed: discount_id',
      event: () => fixture('paddle/transaction-completed-with-discount.json'),
      transactionId: 'txn_01jd1sc0unt00000000000000a',
      code: { code: 'PADDLE10', provider_ids: ['dsc_01gv5kpg05xp104ek2fmgjwttf'] },
    },
  ],
  lemonsqueezy: [
    {
      // Lemon Squeezy orders carry no discount code or id (only `discount_total` and a link to
      // the order's discount redemptions): the checkout passes the code in its custom data.
      label: 'order_created: the code in meta.custom_data.tracker_coupon_code',
      event: () => {
        const order = fixture('lemonsqueezy/order-created-with-discount.json');
        return { ...order, meta: { ...order.meta, custom_data: { tracker_coupon_code: 'lemon10' } } };
      },
      transactionId: 'ls-order-1002',
      code: { code: 'LEMON10' },
    },
  ],
  polar: [
    {
      label: 'order.paid: discount.code, in another case than registered',
      event: () => fixture('polar/order-paid-with-discount.json'),
      transactionId: '3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a12',
      code: { code: 'partner20' },
    },
  ],
  dodo: [
    {
      label: 'payment.succeeded: discounts[].code',
      event: () => fixture('dodo/payment-succeeded-with-discount.json'),
      transactionId: 'pay_2IjeQm4hqU6RA4Z4kwDisc',
      code: { code: 'PARTNER20' },
    },
  ],
  creem: [
    {
      label: 'checkout.completed: order.discount (id)',
      event: () => fixture('creem/checkout-completed-with-discount.json'),
      transactionId: 'tran_78fYacdKnQu3Bw3wDisc01',
      code: { code: 'CREEMCAST', provider_ids: ['dis_4f2KpQ7sXy1LmN0bDisc01'] },
    },
  ],
};

for (const [provider, cases] of Object.entries(CASES) as [MetadataWebhookProvider, Case[]][]) {
  describe(`${provider}: a discount in the payload attributes the sale to the code's partner`, () => {
    const w: WebhookHarness = useWebhookHarness(PROVIDER_KITS[provider]);
    test.each(cases)('$label', async (c) => {
      const f = await w.newProgram();
      const { partner } = await w.h.admin('POST', `/programs/${f.programId}/partners`, {
        code: `cp${provider}${Math.random().toString(36).slice(2, 8)}`,
        name: 'Podcast host',
      });
      const { code } = await w.h.admin('POST', `/programs/${f.programId}/partners/${partner.id}/codes`, c.code);
      const delivery = await w.send(f.programId, c.event());
      expect(delivery.status).toBe(200);
      const [row] = await w.inbox(f.programId);
      await w.waitForInbox(f.programId, row!.id, 'processed');
      const sale = await w.sale(f.programId, c.transactionId);
      expect(sale).toMatchObject({
        partner: partner.id,
        attributed_via: 'coupon',
        partner_code: code.id,
        click_id: null,
      });
      const commission = await w.commissionOf(f.programId, sale!.id);
      expect(commission).toMatchObject({ partner: partner.id, amount_cents: expect.any(Number) });
      expect(commission!.amount_cents).toBeGreaterThan(0);
    });
  });
}
