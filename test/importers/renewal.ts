/**
 * A Stripe renewal (`invoice.paid`, no tracker metadata) of an imported customer, delivered signed
 * after the import: returns the partner its sale was credited to, and the id of the partner with
 * `partnerEmail`, for the caller to compare.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { waitFor } from '../helpers/wait-for.ts';
import type { HarnessKit, WebhookHarness } from '../webhooks/webhook-harness.ts';
import { legacyInvoice, stripeEvent } from '../providers/fixtures/stripe.ts';

export async function renewalOfImportedCustomer<K extends HarnessKit>(
  wh: WebhookHarness<K>,
  programId: number,
  stripeCustomerId: string,
  partnerEmail: string,
): Promise<{ creditedTo: number | undefined; expected: number | undefined }> {
  const ref = randomBytes(4).toString('hex');
  const invoice = legacyInvoice({
    id: `in_${ref}`,
    payment_intent: `pi_${ref}`,
    charge: `ch_${ref}`,
    customer: stripeCustomerId,
    billing_reason: 'subscription_cycle',
    subscription: `sub_${ref}`,
    subscription_details: { metadata: {} },
    metadata: {},
    amount_paid: 5000,
    amount_due: 5000,
    total: 5000,
  });
  const delivery = await wh.send(programId, stripeEvent('invoice.paid', invoice, { id: `evt_${ref}` }));
  expect(delivery.status).toBe(200);
  const sale = await waitFor(() => wh.sale(programId, `pi_${ref}`));
  const partners = (await wh.h.admin('GET', `/programs/${programId}/partners`)).partners as Array<{
    id: number;
    email: string;
  }>;
  return {
    creditedTo: sale!.partner_id ?? sale!.partner,
    expected: partners.find((p) => p.email === partnerEmail)?.id,
  };
}
