/**
 * `order_refunded`: sent for every full or partial refund of an order.
 * https://docs.lemonsqueezy.com/help/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore } from '../../provider-jobs.ts';
import { asRecord, readId } from '../../read-payload.ts';
import { createCumulativeRefund } from './cumulative-refund.ts';

export const orderRefunded: EventHandler = (order, ctx) => {
  const attributes = asRecord(order.attributes);
  if (!attributes) return ignore('missing_attributes');
  const orderId = readId(order.id);
  if (!orderId) return ignore('missing_order_id');
  const job = createCumulativeRefund(`ls-order-${orderId}`, attributes, ctx);
  return job ? emit(job) : ignore('missing_amount');
};
