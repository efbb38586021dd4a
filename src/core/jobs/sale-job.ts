import { z } from 'zod';
import { SALE_PROVIDERS, SALE_TYPES, SUBSCRIPTION_INTERVALS } from '../shared/vocabulary.ts';

const text = z.string().nullable();

/**
 * A provider whose payload names no discount code but whose API can (Lemon Squeezy: the order's
 * discount redemptions): the adapter says where to ask, core asks only when nothing else
 * attributes the sale (discount-lookup.ts).
 */
export const couponLookupSchema = z.object({ provider: z.enum(['lemonsqueezy']), orderId: z.string().min(1) });
export type CouponLookup = z.infer<typeof couponLookupSchema>;

/**
 * A sale recorded under an id refunds will not name (a Stripe basil invoice, `in_...`, refunded by
 * its PaymentIntent): the adapter says where the other id can be asked for, and core asks once the
 * sale is recorded, storing the answer as a payment link (alias-lookup.ts).
 */
export const aliasLookupSchema = z.object({ provider: z.enum(['stripe']), invoiceId: z.string().min(1) });
export type AliasLookup = z.infer<typeof aliasLookupSchema>;

/**
 * A gateway payment that carries no tracker metadata (PayOS, SePay bank transfers): its customer is
 * found by the order the merchant registered (`POST /track/checkout`; order-registrations.ts),
 * by the code the gateway parsed, else by a registered code written in the transfer's content.
 */
export const orderLookupSchema = z.object({ orderCode: z.string().nullable(), text: z.string().nullable() });
export type OrderLookup = z.infer<typeof orderLookupSchema>;

/**
 * A sale to record (API `POST /track/sale` or a provider payment event). Plain JSON: timestamps are
 * ISO strings, money is integer minor units (`...Cents`).
 */
export const saleJobSchema = z.object({
  kind: z.literal('sale'),
  /**
   * `provider`: when both `customerKey` and a valid `clickId` are given and no customer exists
   * yet, they are bound first (an implicit lead), so a checkout that skipped lead tracking
   * still attributes. `amountCents` is then what the customer paid, `taxCents` included; the
   * program's `providerAmountIncludesTax` decides the commission base (default: without the tax).
   * `api`: `amountCents` is recorded exactly as sent.
   */
  origin: z.enum(['api', 'provider']),
  programId: z.number().int().positive(),
  /** Test sale: stored apart from production data, never a commission. */
  test: z.boolean(),
  /** Unique per program; `null` only allowed for test sales. */
  transactionId: text,
  /** Positive integer, minor units; `null` only allowed for test sales. */
  amountCents: z.number().int().nullable(),
  /** Stored; used for the commission only to take tax out of a provider sale's paid total. */
  taxCents: z.number().int().nullable(),
  /** Upper-case ISO code as received; validated by the use-case (`unsupported_currency`). */
  currency: z.string(),
  saleType: z.enum(SALE_TYPES),
  lineItems: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullable(),
  isRecurring: z.boolean(),
  subscriptionId: text,
  subscriptionInterval: z.enum(SUBSCRIPTION_INTERVALS).nullable(),
  productId: text,
  /** ISO 8601 with offset; reporting only. */
  occurredAt: text,
  provider: z.enum(SALE_PROVIDERS).nullable(),
  providerPaymentId: text,
  /** Merchant's own user id; tried first for attribution. */
  customerKey: text,
  /** `tracker_click_id`; fallback when no customer is found by key. */
  clickId: text,
  /** `tracker_visitor_id` from checkout metadata; reporting only. */
  visitorId: text,
  /**
   * Coupon or promotion codes the sale carries, and the provider's ids of its discounts: a
   * partner's code among them attributes the sale when no click does (partner-codes.ts).
   */
  couponCodes: z.array(z.string()).nullable().default(null),
  /** Where the sale's discount code can be asked for (a discounted payload that names none). */
  couponLookup: couponLookupSchema.nullable().default(null),
  /** Where the id the provider's refunds will name can be asked for (`transactionId` is not it). */
  aliasLookup: aliasLookupSchema.nullable().default(null),
  /** Where the sale's customer is found when the payment names only an order. */
  orderLookup: orderLookupSchema.nullable().default(null),
  /**
   * The partner's referral code the payment came with (an x402 request's `X-Referral`): binds
   * `customerKey` to that partner when no click attributes the sale (bind-referral.ts). Absent
   * when not given (and in jobs queued before it).
   */
  referralCode: z.string().optional(),
  /** Where the referred request was made: the referral's click records it as its link. */
  referralUrl: z.string().optional(),
  /**
   * The payment provider's customer id (Stripe `cus_…`, Paddle `ctm_…`): a sale nothing else
   * attributes goes to the partner of a customer an import bound to it (resolve-attribution.ts).
   * Absent when the payment names none (and in jobs queued before it).
   */
  providerCustomerId: z.string().optional(),
  /** Free-form data sent with the sale (API `additional_data`). */
  additionalData: z.record(z.string(), z.unknown()).nullable(),
  /** ISO time the call/event was received; commissions, windows and holds use this time. */
  receivedAt: z.string(),
});
export type SaleJob = z.infer<typeof saleJobSchema>;

type Required = 'origin' | 'programId' | 'test' | 'transactionId' | 'amountCents' | 'currency' | 'receivedAt';
/** What a caller must say; everything else defaults to "not given". */
export type SaleJobInput = Pick<SaleJob, Required> & Partial<Omit<SaleJob, Required | 'kind'>>;

/** The one place a sale job is written out, for every origin. */
export function buildSaleJob(input: SaleJobInput): SaleJob {
  return {
    kind: 'sale',
    origin: input.origin,
    programId: input.programId,
    test: input.test,
    transactionId: input.transactionId,
    amountCents: input.amountCents,
    taxCents: input.taxCents ?? null,
    currency: input.currency,
    saleType: input.saleType ?? 'payment',
    lineItems: input.lineItems ?? null,
    isRecurring: input.isRecurring ?? false,
    subscriptionId: input.subscriptionId ?? null,
    subscriptionInterval: input.subscriptionInterval ?? null,
    productId: input.productId ?? null,
    occurredAt: input.occurredAt ?? null,
    provider: input.provider ?? null,
    providerPaymentId: input.providerPaymentId ?? null,
    customerKey: input.customerKey ?? null,
    clickId: input.clickId ?? null,
    visitorId: input.visitorId ?? null,
    couponCodes: input.couponCodes?.length ? input.couponCodes : null,
    couponLookup: input.couponLookup ?? null,
    aliasLookup: input.aliasLookup ?? null,
    orderLookup: input.orderLookup ?? null,
    ...(input.referralCode ? { referralCode: input.referralCode } : {}),
    ...(input.referralCode && input.referralUrl ? { referralUrl: input.referralUrl } : {}),
    ...(input.providerCustomerId ? { providerCustomerId: input.providerCustomerId } : {}),
    additionalData: input.additionalData ?? null,
    receivedAt: input.receivedAt,
  };
}
