/**
 * A PayOS payment notification (`data` of `{ code, desc, success, data, signature }`; the SDK's
 * `WebhookData`): a transfer paid into a payment link. PayOS carries no checkout metadata, so the
 * sale's customer is the one the merchant registered for `orderCode` (POST /api/v1/track/checkout;
 * resolved by core when the sale runs).
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { readCurrency, readId, readInteger, readString } from '../../read-payload.ts';

/**
 * The sample PayOS sends when the merchant confirms the webhook URL (`confirm-webhook`; the same
 * sample as the SDK README's): order 123, described `VQRIO123` (older channels:
 * `Ma giao dich thu nghiem`). Acknowledged and stored as ignored.
 */
const CONFIRMATION_ORDER = '123';
const CONFIRMATION_DESCRIPTIONS = new Set(['VQRIO123', 'Ma giao dich thu nghiem']);

export const payment: EventHandler = (data, ctx) => {
  const orderCode = readId(data.orderCode);
  if (orderCode === CONFIRMATION_ORDER && CONFIRMATION_DESCRIPTIONS.has(readString(data.description) ?? ''))
    return ignore('webhook_confirmation');
  // `data.code` is the transaction's own result: "00" is paid.
  if (readString(data.code) !== null && readString(data.code) !== '00') return ignore('not_paid');
  if (!orderCode) return ignore('missing_order_id');
  const reference = readId(data.reference);
  if (!reference) return ignore('missing_transaction_id');
  // VND has no minor unit: `amount` is whole đồng, the service's minor units for VND.
  const basics = readPaymentBasics(readInteger(data.amount), readCurrency(data.currency) ?? 'VND', [], ctx.programId);
  if (!basics.ok) return basics.outcome;
  return emit(
    providerSale(ctx, basics, {
      // The bank transfer's reference: one per transfer, so a link paid in two transfers records both.
      transactionId: reference,
      providerPaymentId: readId(data.paymentLinkId),
      orderLookup: { orderCode, text: null },
    }),
  );
};
