/**
 * Polar: Standard Webhooks signatures (https://polar.sh/docs/integrate/webhooks/delivery), checked
 * by the `standardwebhooks` package with the secret's UTF-8 bytes as the key, as Polar's own SDK
 * does. The body is `{ type, timestamp, data }`.
 *
 * Transaction-id rule: a sale is recorded under the Polar order id, and a refund names that order
 * in `order_id`, so refunds always find their sale.
 *
 * Test mode: Polar's sandbox (sandbox.polar.sh) is a separate environment whose payloads look
 * like production ones. Its endpoint's secret is added to the connection labelled `test`, which
 * makes everything it signs test traffic.
 */
import type { ProviderAdapter } from '../adapter.ts';
import { readId, readInteger, readString } from '../read-payload.ts';
import { defineStandardWebhooksAdapter } from '../standard-webhooks.ts';
import { orderPaid } from './events/order-paid.ts';
import { refundSucceeded } from './events/refund-succeeded.ts';
import { orderRefunded } from './events/order-refunded.ts';

export function createPolarAdapter(): ProviderAdapter {
  return defineStandardWebhooksAdapter({
    name: 'polar',
    handlers: {
      'order.paid': orderPaid,
      // A refund is created `pending` and updated to `succeeded`; either event may carry the success.
      'refund.created': refundSucceeded,
      'refund.updated': refundSucceeded,
      // The order's running refunded total; with `refund.*` too, each refund still applies once.
      'order.refunded': orderRefunded,
    },
    encoding: 'utf8',
    // The object and the state it reports, so a redelivery collapses while a refund's
    // `pending` → `succeeded` update is a new event.
    // An order's refunds are told apart by its running refunded total (two partial refunds).
    dedupeParts(data) {
      const id = readId(data?.id);
      const status = readString(data?.status) ?? 'none';
      const refunded = status.endsWith('refunded') ? readInteger(data?.refunded_amount) : null;
      return id ? [id, status, ...(refunded === null ? [] : [String(refunded)])] : null;
    },
  });
}
