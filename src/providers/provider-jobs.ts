/**
 * Builders shared by every provider event handler, so the provider path fills the job contract
 * the same way everywhere (one path per behaviour).
 */
import type { RefundAmount, RefundJob, SaleJob, SaleProvider, SaleType, SubscriptionInterval } from '../core/jobs.ts';
import type { EventOutcome } from './adapter.ts';
import { readTrackerMetadata } from './metadata.ts';
import { readCurrency } from './read-payload.ts';

export function ignore(reason: string): EventOutcome {
  return { jobs: [], ignoredReason: reason };
}

export function emit(job: SaleJob | RefundJob): EventOutcome {
  return { jobs: [job], ignoredReason: null };
}

export type ProviderSaleInput = {
  provider: SaleProvider;
  programId: number;
  test: boolean;
  transactionId: string;
  /** Reporting only; the provider's own id for the payment as merchants see it. */
  providerPaymentId: string;
  amountCents: number;
  taxCents: number | null;
  currency: string;
  saleType: SaleType;
  isRecurring: boolean;
  subscriptionId: string | null;
  subscriptionInterval: SubscriptionInterval | null;
  productId: string | null;
  occurredAt: string | null;
  clickId: string | null;
  customerKey: string | null;
  visitorId: string | null;
  receivedAt: string;
};

/**
 * A provider sale always asks for `bindCustomer`: a checkout that skipped lead tracking still
 * carries both the customer key and the click id in its metadata (SaleJob.bindCustomer).
 */
export function createProviderSale(input: ProviderSaleInput): SaleJob {
  return {
    kind: 'sale',
    programId: input.programId,
    test: input.test,
    transactionId: input.transactionId,
    amountCents: input.amountCents,
    taxCents: input.taxCents,
    currency: input.currency,
    saleType: input.saleType,
    lineItems: null,
    isRecurring: input.isRecurring,
    subscriptionId: input.subscriptionId,
    subscriptionInterval: input.subscriptionInterval,
    productId: input.productId,
    occurredAt: input.occurredAt,
    provider: input.provider,
    providerPaymentId: input.providerPaymentId,
    customerKey: input.customerKey,
    clickId: input.clickId,
    visitorId: input.visitorId,
    bindCustomer: true,
    additionalData: null,
    receivedAt: input.receivedAt,
  };
}

export type ProviderRefundInput = {
  programId: number;
  test: boolean;
  transactionId: string;
  amount: RefundAmount;
  refundId: string | null;
  refundReason: string | null;
  receivedAt: string;
};

/**
 * Providers do not order their webhooks: a refund may arrive before the sale it refunds, so a
 * missing sale is retried (`retryIfSaleMissing`) rather than answered with `not_found`.
 */
export function createProviderRefund(input: ProviderRefundInput): RefundJob {
  return {
    kind: 'refund',
    programId: input.programId,
    transactionId: input.transactionId,
    amount: input.amount,
    refundId: input.refundId,
    refundReason: input.refundReason,
    reason: 'refund',
    retryIfSaleMissing: true,
    test: input.test,
    receivedAt: input.receivedAt,
  };
}

export type PaymentBasics =
  | { ok: true; amountCents: number; currency: string; tracker: { clickId: string | null; customerKey: string | null; visitorId: string | null } }
  | { ok: false; outcome: EventOutcome };

/**
 * The checks every paid-sale handler makes, in one place: a positive amount (a zero total is a
 * trial, a full discount or a payment-method change: nothing to commission), a currency, and
 * tracker metadata tagged for this program.
 */
export function readPaymentBasics(amountCents: number | null, currency: unknown, metadata: unknown[], programId: number): PaymentBasics {
  if (amountCents === null) return { ok: false, outcome: ignore('missing_amount') };
  if (amountCents <= 0) return { ok: false, outcome: ignore('zero_amount') };
  const code = readCurrency(currency);
  if (!code) return { ok: false, outcome: ignore('missing_currency') };
  const tracker = readTrackerMetadata(metadata, programId);
  if (!tracker.ok) return { ok: false, outcome: ignore(tracker.reason) };
  return { ok: true, amountCents, currency: code, tracker };
}
