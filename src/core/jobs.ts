/**
 * The normalised job contract. Every direct API call and every provider webhook is turned into
 * one of these plain-JSON jobs; workers run the matching core use-case. Jobs must stay
 * JSON-serialisable (they travel through Redis): timestamps are ISO strings, money is integer
 * minor units (`...Cents`).
 */

export const CURRENCIES = ['USD', 'EUR', 'VND'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const SALE_TYPES = ['payment', 'subscription'] as const;
export type SaleType = (typeof SALE_TYPES)[number];

export const SUBSCRIPTION_INTERVALS = ['monthly', 'quarterly', 'annual'] as const;
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];

export const SALE_PROVIDERS = [
  'stripe', 'polar', 'dodo', 'paddle', 'lemonsqueezy', 'creem', 'sepay', 'payos', 'apipay', 'x402', 'other',
] as const;
export type SaleProvider = (typeof SALE_PROVIDERS)[number];

/** Providers whose webhooks we receive and verify ourselves. */
export const WEBHOOK_PROVIDERS = ['stripe', 'paddle', 'lemonsqueezy', 'polar', 'dodo', 'creem'] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

export const REFUND_REASONS = ['refund', 'chargeback'] as const;
export type RefundReasonCode = (typeof REFUND_REASONS)[number];

/** A sale to record (API `POST /track/sale` or a provider payment event). */
export type SaleJob = {
  kind: 'sale';
  programId: number;
  /** Test sale: stored apart from production data, never a commission. */
  test: boolean;
  /** Unique per program; `null` only allowed for test sales. */
  transactionId: string | null;
  /** Positive integer, minor units; `null` only allowed for test sales. */
  amountCents: number | null;
  /** Accepted and stored, never used for the commission. */
  taxCents: number | null;
  /** Upper-case ISO code as received; validated by the use-case (`unsupported_currency`). */
  currency: string;
  saleType: SaleType;
  lineItems: Record<string, unknown> | null;
  isRecurring: boolean;
  subscriptionId: string | null;
  subscriptionInterval: SubscriptionInterval | null;
  productId: string | null;
  /** ISO 8601 with offset; reporting only. */
  occurredAt: string | null;
  provider: SaleProvider | null;
  providerPaymentId: string | null;
  /** Merchant's own user id; tried first for attribution. */
  customerKey: string | null;
  /** `tracker_click_id`; fallback when no customer is found by key. */
  clickId: string | null;
  /** `tracker_visitor_id` from checkout metadata; reporting only. */
  visitorId: string | null;
  /**
   * Provider path: when both `customerKey` and a valid `clickId` are given and no customer exists
   * yet, bind them first (an implicit lead) so a checkout that skipped lead tracking attributes.
   */
  bindCustomer: boolean;
  /** Free-form data of a test event (API `additional_data`). */
  additionalData: Record<string, unknown> | null;
  /** ISO time the call/event was received; commissions, windows and holds use this time. */
  receivedAt: string;
};

/**
 * How much a refund job refunds.
 * - `per_refund`: this refund's own amount (`null` = the rest of the sale). API and Stripe/Paddle.
 * - `cumulative`: the provider's running total refunded on the sale (Lemon Squeezy); the use-case
 *   applies only the increase over what is already applied, under the sale's row lock.
 */
export type RefundAmount =
  | { type: 'per_refund'; cents: number | null }
  | { type: 'cumulative'; totalCents: number };

/** A refund to apply (API `POST /track/refund` or a provider refund event). */
export type RefundJob = {
  kind: 'refund';
  programId: number;
  /** The sale's `transaction_id` (provider: its payment id). */
  transactionId: string;
  amount: RefundAmount;
  /** Merchant's or provider's refund id; ignored when the amount is the whole rest. */
  refundId: string | null;
  refundReason: string | null;
  reason: RefundReasonCode | null;
  /**
   * Providers do not guarantee order: when true, a missing sale is a retryable failure
   * (the refund is retried with backoff) instead of a `not_found` result.
   */
  retryIfSaleMissing: boolean;
  test: boolean;
  receivedAt: string;
};

/** Binds a merchant customer id to a click (lead tracking). */
export type LeadJob = {
  kind: 'lead';
  programId: number;
  customerKey: string | null;
  clickId: string | null;
  /** SHA-256 hex of the lower-cased, trimmed email; the email itself is never stored. */
  emailHash: string | null;
  eventName: string | null;
  additionalData: Record<string, unknown> | null;
  /** Browser mode (keyless signup helper): never rebinds an existing customer. */
  browser: boolean;
  receivedAt: string;
};

/** Records (or overwrites, for last-partner attribution) a click. */
export type ClickJob = {
  kind: 'click';
  partnerCode: string;
  affiliateUrl: string;
  pageUrl: string | null;
  referrerUrl: string | null;
  existingClickId: string | null;
  visitorId: string | null;
  receivedAt: string;
};

/** Processes one stored provider webhook (inbox row): runs its normalised sale/refund jobs. */
export type WebhookJob = { kind: 'webhook'; inboxId: number };

/** Delivers one stored notification after the transaction that created it committed. */
export type NotifyJob = { kind: 'notify'; notificationId: number };

export type TrackJob = SaleJob | RefundJob | LeadJob | ClickJob;
export type Job = TrackJob | WebhookJob | NotifyJob;

/** What a provider adapter turns one verified webhook into. */
export type NormalisedEvent = {
  /** Unique per provider: the inbox's idempotency key (no `:` allowed). */
  dedupeKey: string;
  /** Provider's event name, e.g. `checkout.session.completed`. */
  eventType: string;
  /** Jobs to run, in order; empty when ignored. */
  jobs: Array<SaleJob | RefundJob>;
  /** Set when the event is deliberately not handled (unknown type, unpaid, wrong program...). */
  ignoredReason: string | null;
};
