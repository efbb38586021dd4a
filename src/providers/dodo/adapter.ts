/**
 * Dodo Payments: Standard Webhooks signatures
 * (https://docs.dodopayments.com/developer-resources/webhooks), checked by the `standardwebhooks`
 * package with the endpoint's `whsec_...` secret, as Dodo's own SDK does. The body is
 * `{ business_id, type, timestamp, data }`, `data.payload_type` naming the object.
 *
 * Transaction-id rule: a sale is recorded under the Dodo payment id (`pay_...`), and a refund
 * names that payment in `payment_id`, so refunds always find their sale.
 *
 * Disputes: see events/dispute.ts (a lost or held dispute reverses the commission with reason
 * `chargeback`; a won one asks the advertiser to review it).
 *
 * Test mode: Dodo's test mode (test.dodopayments.com) has its own webhook endpoints and secrets,
 * and its payloads look like live ones. The test endpoint's secret is added to the connection
 * labelled `test`, which makes everything it signs test traffic.
 */
import type { ProviderAdapter } from '../adapter.ts';
import { readId } from '../read-payload.ts';
import { defineStandardWebhooksAdapter } from '../standard-webhooks.ts';
import { paymentSucceeded } from './events/payment-succeeded.ts';
import { refundSucceeded } from './events/refund-succeeded.ts';
import { disputeFundsLost, disputeWon } from './events/dispute.ts';

export function createDodoAdapter(): ProviderAdapter {
  return defineStandardWebhooksAdapter({
    name: 'dodo',
    handlers: {
      'payment.succeeded': paymentSucceeded,
      'refund.succeeded': refundSucceeded,
      'dispute.opened': disputeFundsLost,
      'dispute.lost': disputeFundsLost,
      'dispute.accepted': disputeFundsLost,
      'dispute.expired': disputeFundsLost,
      'dispute.won': disputeWon,
      'dispute.cancelled': disputeWon,
    },
    encoding: 'standard',
    // A payment, refund or dispute reaches each of these events once: the object's own id is enough.
    dedupeParts(data) {
      const id =
        readId(data?.dispute_id) ??
        readId(data?.refund_id) ??
        readId(data?.payment_id) ??
        readId(data?.subscription_id);
      return id ? [id] : null;
    },
  });
}
