/**
 * The closed value sets of the domain, shared by the job contract, the use-cases and the wire
 * schemas at the edge.
 */

/** The contract's currencies, the only ones accepted unless the `CURRENCIES` setting adds more (currencies.ts). */
export const CURRENCIES = ['USD', 'EUR', 'VND'] as const;
/** An upper-case ISO 4217 code; currencies.ts says which ones a deployment accepts and their minor units. */
export type Currency = string;

export const SALE_TYPES = ['payment', 'subscription'] as const;
export type SaleType = (typeof SALE_TYPES)[number];

export const SUBSCRIPTION_INTERVALS = ['monthly', 'quarterly', 'annual'] as const;
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];

export const SALE_PROVIDERS = [
  'stripe',
  'polar',
  'dodo',
  'paddle',
  'lemonsqueezy',
  'creem',
  'sepay',
  'payos',
  'apipay',
  'x402',
  'other',
] as const;
export type SaleProvider = (typeof SALE_PROVIDERS)[number];

/** Webhook providers whose checkouts carry the tracker keys as metadata. */
export const METADATA_WEBHOOK_PROVIDERS = ['stripe', 'paddle', 'lemonsqueezy', 'polar', 'dodo', 'creem'] as const;
export type MetadataWebhookProvider = (typeof METADATA_WEBHOOK_PROVIDERS)[number];

/**
 * VietQR bank-transfer gateways: their payments carry no metadata, only an order code, whose
 * customer the merchant registered beforehand (`POST /api/v1/track/checkout`).
 */
export const ORDER_WEBHOOK_PROVIDERS = ['sepay', 'payos'] as const;

/** Providers whose webhooks we receive and verify ourselves. */
export const WEBHOOK_PROVIDERS = [...METADATA_WEBHOOK_PROVIDERS, ...ORDER_WEBHOOK_PROVIDERS] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

export const REFUND_REASONS = ['refund', 'chargeback'] as const;
export type RefundReasonCode = (typeof REFUND_REASONS)[number];

/**
 * Where a job came from. `api`: a merchant's direct call; `provider`: a verified provider webhook
 * (unordered deliveries, so a refund may precede its sale); `test`: the test-event path
 * (`POST /track/test`, a test key's lead), which only ever writes a test event.
 */
export const JOB_ORIGINS = ['api', 'provider', 'test'] as const;
export type JobOrigin = (typeof JOB_ORIGINS)[number];

/** How recurring sales of an attributed subscription earn commission. */
export const RECURRING_POLICIES = ['one_time', 'months', 'lifetime'] as const;
export type RecurringPolicy = (typeof RECURRING_POLICIES)[number];

/** `pending` → `approved` (credited) → `paid`; `refunded` (partial, non-final); `reversed` (final). */
export const COMMISSION_STATUSES = ['pending', 'approved', 'paid', 'refunded', 'reversed'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

/**
 * `open` (requested, reduced to fit a falling balance) → `paid` | `cancelled`. A payout run's
 * payouts are `processing` (sent to a rail, the balance already lowered) → `paid` (confirmed) |
 * `failed` (the balance restored, its commissions payable again); a Stripe transfer reversed
 * after it was paid also ends `failed`.
 */
export const PAYOUT_STATUSES = ['open', 'processing', 'paid', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Where a payout run sends money: nowhere (`manual`), a PayPal or Wise batch file, Stripe Connect transfers. */
export const PAYOUT_RAILS = ['manual', 'paypal', 'wise', 'stripe_connect'] as const;
export type PayoutRail = (typeof PAYOUT_RAILS)[number];

/** The payout details a partner can record: one per rail that pays a person. */
export const PAYOUT_METHOD_KINDS = ['paypal', 'wise', 'stripe_connect'] as const;
export type PayoutMethodKind = (typeof PAYOUT_METHOD_KINDS)[number];

/**
 * Why a payout run (or its preview) passes a partner by, checked in this order: nothing due in the
 * balance (`negative_balance`: it is below zero, or the commissions only cover what the partner
 * owes back; `held`: commissions credited after the schedule's hold, waiting for approval or held
 * by fraud rules), then the partner's payout details (`no_payout_details`, `method_not_in_run`: of
 * another rail), then `below_minimum` (the program's minimum in that currency).
 */
export const PAYOUT_SKIP_REASONS = [
  'negative_balance',
  'held',
  'no_payout_details',
  'method_not_in_run',
  'below_minimum',
] as const;
export type PayoutSkipReason = (typeof PAYOUT_SKIP_REASONS)[number];

/**
 * How a sale found its partner (stored on the sale): the subscription's first sale, the customer
 * found by `customer_key` or by `click_id` (both through the customer's click), or a partner's
 * coupon or promotion code.
 */
export const ATTRIBUTION_SOURCES = ['subscription', 'customer_key', 'click', 'coupon'] as const;
export type AttributionSource = (typeof ATTRIBUTION_SOURCES)[number];

/**
 * Which partner a returning visitor's (or customer's) click belongs to. `last_click` (default, the
 * contract's): a later partner link takes the click over, and a keyed lead naming another click
 * rebinds the customer. `first_click`: the first partner keeps the click and the customer until
 * the first click is older than the program's cookie duration.
 */
export const ATTRIBUTION_MODELS = ['last_click', 'first_click'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

/**
 * When a sale has both a partner's click (through its customer) and a partner's code: `click`
 * (default) keeps the click's partner and uses the code only when no click attributes the sale;
 * `coupon` gives the sale to the code's partner.
 */
export const COUPON_PRECEDENCES = ['click', 'coupon'] as const;
export type CouponPrecedence = (typeof COUPON_PRECEDENCES)[number];

/** The outbound event types a merchant's endpoint may subscribe to (docs/outbound-events.md). */
export const OUTBOUND_EVENT_TYPES = [
  'lead.created',
  'sale.created',
  'commission.created',
  'commission.updated',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'partner.created',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/**
 * `live` secrets verify production deliveries; an event verified by a `test` secret (a Stripe
 * test-mode endpoint, a Paddle sandbox notification destination) is test traffic whatever its
 * payload says.
 */
export type ProviderSecretLabel = 'live' | 'test';

/** A partner application's state: waiting in the approval queue, or decided. */
export const APPLICATION_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/** How often a partner gets the commission digest email. */
export const DIGEST_FREQUENCIES = ['daily', 'weekly', 'off'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];
