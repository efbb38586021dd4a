/**
 * PayOS (payos.vn, VietQR bank transfers): `POST {base}/api/v1/webhooks/payos/<programId>` with
 * `{ code, desc, success, data, signature }`; `signature` covers `data` and is checked with the
 * channel's checksum key through the official SDK (verify.ts). The body names no event type: a
 * body with a `code` and a `data` object is a `payment` notification.
 *
 * Transaction-id rule: a sale is recorded under `data.reference`, the bank transfer's reference
 * (one per transfer); `paymentLinkId` is kept as the provider payment id. The customer comes from
 * the order registered for `data.orderCode` (POST /api/v1/track/checkout).
 *
 * Refunds: PayOS sends no refund notifications; a refund is reported with POST /api/v1/track/refund
 * naming the same `reference` as `transaction_id`.
 *
 * Test mode: PayOS payloads carry no test flag; a connection secret labelled `test` makes
 * everything it signs test traffic.
 */
import type { ProviderAdapter } from '../adapter.ts';
import { defineProviderAdapter } from '../define-adapter.ts';
import { asRecord, readId, readString } from '../read-payload.ts';
import { isoFromVietnamTime } from '../vietnam-time.ts';
import { payment } from './events/payment.ts';
import { verifyPayos } from './verify.ts';

export function createPayosAdapter(): ProviderAdapter {
  return defineProviderAdapter({
    name: 'payos',
    handlers: { payment },
    verify: (rawBody, _headers, secret) => verifyPayos(rawBody, secret),
    readEnvelope(event) {
      const envelope = asRecord(event);
      const data = asRecord(envelope?.data);
      const orderCode = readId(data?.orderCode);
      const reference = readId(data?.reference);
      return {
        eventType: data && readString(envelope?.code) !== null ? 'payment' : null,
        dedupeKey: orderCode && reference ? `payment-${orderCode}-${reference}` : null,
        object: data,
        occurredAt: isoFromVietnamTime(data?.transactionDateTime),
      };
    },
  });
}
