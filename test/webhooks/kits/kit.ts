/**
 * The contract of the per-provider webhook kits (./stripe-kit.ts and its siblings, gathered in
 * ../provider-kits.ts): builders of payloads shaped like real deliveries and their signature headers.
 */
import { randomBytes } from 'node:crypto';
import type { MetadataWebhookProvider } from '../../../src/core/shared/vocabulary.ts';

export type Json = Record<string, unknown>;

/** Tracker keys as a merchant puts them into checkout metadata; `null` leaves them all out. */
export type TrackerKeys = {
  clickId?: string | null;
  customerKey?: string | null;
  programId?: number | string | null;
} | null;

/**
 * A provider payment event and the `transaction_id` its sale is recorded under. `secret` is set
 * when the provider tells test traffic apart only by the endpoint that signs it (Polar sandbox,
 * Dodo test mode): the event must be signed with the kit's `testSecret`.
 */
export type PaymentEvent = { event: Json; transactionId: string; secret?: string };

export type PaymentInput = { ref: string; amountCents: number; keys: TrackerKeys; test?: boolean };
export type SubscriptionInput = { ref: string; subscriptionId: string; amountCents: number; keys: TrackerKeys };
/**
 * One refund of the payment `ref`. Per-refund providers (Stripe, Paddle) send `amountCents` under
 * `refundId`; Lemon Squeezy sends only `totalCents`, the order's cumulative refunded amount.
 */
export type RefundInput = {
  ref: string;
  saleAmountCents: number;
  refundId: string;
  amountCents: number;
  totalCents: number;
  test?: boolean;
};

export interface ProviderKit {
  provider: MetadataWebhookProvider;
  secret: string;
  /** The sandbox/test endpoint's secret, added to the connection labelled `test`; null when payloads flag test mode themselves. */
  testSecret: string | null;
  /** A second valid secret of the provider's form, for rotation tests. */
  rotatedSecret: string;
  /** Signature headers for exactly these bytes, timestamped at `at` where the scheme has one. */
  sign(body: string, at: Date, secret?: string): Record<string, string>;
  /** Headers of a genuine signature whose timestamp is outside the tolerance; null when unsigned by time. */
  signExpired: ((body: string, at: Date) => Record<string, string>) | null;
  payment(input: PaymentInput): PaymentEvent;
  /** The first payment of a subscription. */
  subscriptionStart(input: SubscriptionInput): PaymentEvent;
  /** A later (renewal) payment of the subscription. */
  renewal(input: SubscriptionInput): PaymentEvent;
  refund(input: RefundInput): Json;
  /** A genuine event type the adapter does not handle. */
  unhandled(): Json;
}

export const unique = () => randomBytes(6).toString('hex');
export const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function metadataOf(keys: TrackerKeys): Record<string, string> {
  if (!keys) return {};
  const out: Record<string, string> = {};
  if (keys.clickId) out.tracker_click_id = keys.clickId;
  if (keys.customerKey) out.tracker_customer_key = keys.customerKey;
  if (keys.programId !== undefined && keys.programId !== null) out.program_id = String(keys.programId);
  return out;
}
