/**
 * Stripe: verification through the official SDK, one handler per event type.
 *
 * Transaction-id rule (why refunds can find their sale): Stripe refund events name only the
 * PaymentIntent and the charge, never the invoice or the checkout session
 * (https://docs.stripe.com/api/refunds/object). So every Stripe sale is recorded under its
 * PaymentIntent id (`pi_...`) whenever the payload names one:
 * - one-off checkouts: `checkout.session.payment_intent`;
 * - subscription invoices: `invoice.payment_intent` (API versions before 2025-03-31.basil) or a
 *   paid entry of `invoice.payments` when the payload carries it.
 * Basil removed `invoice.payment_intent` and does not include `invoice.payments` in webhooks
 * (https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices),
 * so such invoices are recorded under the invoice id (`in_...`), and `invoice_payment.paid` links
 * the PaymentIntent to it (a link job): refunds and disputes naming the PaymentIntent then find the
 * sale through the link, whichever of the events arrives first (a refund waiting for its link is
 * parked like a refund waiting for its sale). Such a sale is marked `aliasLookup`: when the
 * program's Stripe connection has an API key, core asks the Invoice Payments list for the
 * PaymentIntent and stores the same link without waiting for the event (core/alias-lookup.ts,
 * invoice-payments.ts); this adapter itself never calls Stripe.
 * For the same reason subscription-mode checkouts are not recorded (their session has no
 * PaymentIntent); `invoice.paid` records the first payment and every later one.
 */
import Stripe from 'stripe';
import type { EventHandler, ProviderAdapter, VerifyFailureReason, VerifyResult } from '../adapter.ts';
import { defineProviderAdapter, type EnvelopeFields } from '../define-adapter.ts';
import { asRecord, isoFromUnixSeconds, readString } from '../read-payload.ts';
import { chargeDisputeFundsWithdrawn, chargeDisputeWon } from './events/charge-dispute.ts';
import { chargeRefunded } from './events/charge-refunded.ts';
import { checkoutSessionCompleted } from './events/checkout-session-completed.ts';
import { invoicePaid } from './events/invoice-paid.ts';
import { invoicePaymentPaid } from './events/invoice-payment-paid.ts';
import { refund } from './events/refund.ts';
import { transferReversed } from './events/transfer-reversed.ts';

/** Stripe's own default (https://docs.stripe.com/webhooks#replay-attacks). */
const TOLERANCE_SECONDS = 300;

const handlers: Readonly<Record<string, EventHandler>> = {
  'checkout.session.completed': checkoutSessionCompleted,
  // Delayed methods (SEPA, ACH...) complete the session unpaid and pay later with the same shape.
  'checkout.session.async_payment_succeeded': checkoutSessionCompleted,
  'invoice.paid': invoicePaid,
  // `refund.created` can be pending; `refund.updated` brings `succeeded`. The refund id lets the
  // core skip the second copy when both arrive succeeded.
  'refund.created': refund,
  'refund.updated': refund,
  // API versions before 2024-10-28 report card refunds only on the charge; its list carries each
  // refund's id, so this and the refund.* events together still apply each refund once.
  'charge.refunded': chargeRefunded,
  'charge.refund.updated': refund,
  // Basil invoices name no PaymentIntent: this event links the two (invoice-payment-paid.ts).
  'invoice_payment.paid': invoicePaymentPaid,
  'charge.dispute.funds_withdrawn': chargeDisputeFundsWithdrawn,
  'charge.dispute.funds_reinstated': chargeDisputeWon,
  'charge.dispute.closed': chargeDisputeWon,
  // Connect transfers of payout runs (payout-transfers.ts) reversed by the merchant or Stripe.
  'transfer.reversed': transferReversed,
};

export function createStripeAdapter(): ProviderAdapter {
  return defineProviderAdapter({
    name: 'stripe',
    handlers,
    verify: verifyStripeWebhook,
    readEnvelope: readStripeEnvelope,
  });
}

/**
 * The SDK's sixth argument (`receivedAt`, milliseconds) replaces its own `Date.now()`, so the
 * tolerance is measured against our injected clock. Quirk: the SDK only rejects timestamps that
 * are too old, so future skew past the same tolerance is refused here.
 */
async function verifyStripeWebhook(
  rawBody: Uint8Array,
  headers: Headers,
  secret: string,
  now: Date,
): Promise<VerifyResult> {
  const signature = headers.get('stripe-signature');
  if (!signature) return { ok: false, reason: 'missing_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  const text = decodeExactly(rawBody);
  if (text === null) return { ok: false, reason: 'invalid_json' };
  try {
    const event: unknown = await Stripe.webhooks.constructEventAsync(
      text,
      signature,
      secret,
      TOLERANCE_SECONDS,
      undefined,
      now.getTime(),
    );
    // The SDK checks the age only: a timestamp far in the future is refused here too, so a signed
    // delivery cannot be held back and replayed later within its window.
    const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
    if (!Number.isFinite(signedAt) || signedAt * 1000 > now.getTime() + TOLERANCE_SECONDS * 1000)
      return { ok: false, reason: 'timestamp_outside_tolerance' };
    return { ok: true, event };
  } catch (error) {
    return { ok: false, reason: classifyStripeError(error) };
  }
}

/**
 * Given bytes, the SDK decodes them with a lenient TextDecoder: a leading BOM is dropped and
 * invalid UTF-8 is replaced, so a body differing in those bytes would still verify. Decoding
 * strictly ourselves (BOM kept, invalid UTF-8 refused) makes the HMAC cover exactly the bytes.
 */
function decodeExactly(rawBody: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(rawBody);
  } catch {
    return null;
  }
}

/** Maps the SDK's (pinned, stripe@23) error messages onto our reasons; unknown → generic. */
function classifyStripeError(error: unknown): VerifyFailureReason {
  if (error instanceof SyntaxError) return 'invalid_json';
  const message = error instanceof Error ? error.message : '';
  if (message.includes('Timestamp outside the tolerance zone')) return 'timestamp_outside_tolerance';
  if (message.includes('No signatures found matching')) return 'signature_mismatch';
  if (message.includes('Unable to extract timestamp') || message.includes('No signatures found with expected scheme')) {
    return 'malformed_signature_header';
  }
  return 'verification_failed';
}

function readStripeEnvelope(event: unknown): EnvelopeFields {
  const envelope = asRecord(event);
  const object = asRecord(asRecord(envelope?.data)?.object);
  return {
    eventType: readString(envelope?.type),
    dedupeKey: readString(envelope?.id),
    object,
    test: envelope?.livemode === false || object?.livemode === false,
    occurredAt: isoFromUnixSeconds(envelope?.created),
  };
}
