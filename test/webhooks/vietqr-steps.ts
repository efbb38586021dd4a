/** Steps shared by the PayOS and SePay end-to-end tests: registering an order and reading back what it earned. */
import { expect } from 'vitest';
import { bearer, type Fixture } from '../helpers/harness.ts';
import type { HarnessKit, WebhookHarness } from './webhook-harness.ts';

/** POST /api/v1/track/checkout with the program's live key. */
export async function registerOrder(w: WebhookHarness<HarnessKit>, f: Fixture, body: Record<string, unknown>) {
  return w.h.request('/api/v1/track/checkout', { body, headers: bearer(f.liveKey) });
}

/** The program's one VND commission, for the fixture's partner. */
export async function expectOneVndCommission(
  w: WebhookHarness<HarnessKit>,
  f: Fixture,
  transactionId: string,
  amount: number,
) {
  const sale = await w.sale(f.programId, transactionId);
  expect(sale).toMatchObject({ amount_cents: amount, currency: 'VND', partner: f.partnerId, provider: w.kit.provider });
  const commissions = await w.list(f.programId, 'commissions');
  expect(commissions).toHaveLength(1);
  expect(commissions[0]).toMatchObject({
    sale: sale!.id,
    partner: f.partnerId,
    amount_cents: amount / 10,
    currency: 'VND',
    status: 'pending',
  });
}
