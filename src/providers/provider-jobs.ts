/**
 * Helpers shared by every provider event handler: the handler reads what only its payload knows;
 * the fields every provider job shares (origin, provider, program, test flag, times, tracker ids)
 * come from the event context here, once, through core's job builders.
 */
import { buildRefundJob, type RefundJobInput } from '../core/jobs/refund-job.ts';
import { buildSaleJob, type SaleJob, type SaleJobInput } from '../core/jobs/sale-job.ts';
import type { ProviderJob } from '../core/jobs/normalised-event.ts';
import type { RefundJob } from '../core/jobs/refund-job.ts';
import { buildLinkJob, type LinkJob } from '../core/jobs/link-job.ts';
import { buildDisputeWonJob, type DisputeWonJob } from '../core/jobs/dispute-won-job.ts';
import { buildTransferReversedJob, type TransferReversedJob } from '../core/jobs/transfer-reversed-job.ts';
import type { EventContext, EventOutcome } from './adapter.ts';
import { readTrackerMetadata } from './metadata.ts';
import { readCurrency } from './read-payload.ts';
import { isoMinorUnitDigits } from '../core/shared/currencies.ts';

export function ignore(reason: string): EventOutcome {
  return { jobs: [], ignoredReason: reason };
}

/** The jobs an event turns into, in order; none is `nothing_to_apply`. */
export function emit(...jobs: ProviderJob[]): EventOutcome {
  return jobs.length ? { jobs, ignoredReason: null } : ignore('nothing_to_apply');
}

export type PaidBasics = {
  ok: true;
  amountCents: number;
  currency: string;
  tracker: { clickId: string | null; customerKey: string | null; visitorId: string | null; couponCode: string | null };
};
export type PaymentBasics = PaidBasics | { ok: false; outcome: EventOutcome };

/**
 * How a provider writes amounts. `minor_units`: in the currency's ISO 4217 minor unit, as its
 * docs say for every currency it takes (whole yen, three-decimal dinars). `cents`: its docs say
 * cents, which only a two-decimal currency has: a payment in any other is refused
 * (`unsupported_minor_units`) rather than recorded 100 or 10 times too large or too small.
 */
export type AmountUnits = 'minor_units' | 'cents';

/**
 * The checks every paid-sale handler makes, in one place: a positive amount (a zero total is a
 * trial, a full discount or a payment-method change: nothing to commission), a currency whose
 * amounts the provider writes in ISO minor units, and tracker metadata tagged for this program.
 */
export function readPaymentBasics(
  amountCents: number | null,
  currency: unknown,
  metadata: unknown[],
  programId: number,
  units: AmountUnits = 'minor_units',
): PaymentBasics {
  if (amountCents === null) return { ok: false, outcome: ignore('missing_amount') };
  if (amountCents <= 0) return { ok: false, outcome: ignore('zero_amount') };
  const code = readCurrency(currency);
  if (!code) return { ok: false, outcome: ignore('missing_currency') };
  if (units === 'cents' && (isoMinorUnitDigits(code) ?? 2) !== 2) {
    return { ok: false, outcome: ignore('unsupported_minor_units') };
  }
  const tracker = readTrackerMetadata(metadata, programId);
  if (!tracker.ok) return { ok: false, outcome: ignore(tracker.reason) };
  const { clickId, customerKey, visitorId, couponCode } = tracker;
  return { ok: true, amountCents, currency: code, tracker: { clickId, customerKey, visitorId, couponCode } };
}

/** What a sale handler reads from its own payload (`test` only when the payload can say more). */
export type ProviderSaleFields = Pick<SaleJobInput, 'transactionId' | 'providerPaymentId'> &
  Partial<
    Pick<
      SaleJobInput,
      | 'test'
      | 'taxCents'
      | 'saleType'
      | 'isRecurring'
      | 'subscriptionId'
      | 'subscriptionInterval'
      | 'productId'
      | 'couponCodes'
      | 'couponLookup'
      | 'aliasLookup'
      | 'orderLookup'
      | 'providerCustomerId'
    >
  >;

/**
 * A provider sale (origin `provider`: the core binds an implicit lead when the checkout carries
 * both tracker keys and no lead was tracked, see SaleJob.origin). `couponCodes`: the discount
 * codes and ids the payload names (read-payload.ts `readDiscountCodes`), with the metadata's
 * `tracker_coupon_code`.
 */
export function providerSale(ctx: EventContext, paid: PaidBasics, fields: ProviderSaleFields): SaleJob {
  const { couponCode, ...tracker } = paid.tracker;
  return buildSaleJob({
    origin: 'provider',
    provider: ctx.provider,
    programId: ctx.programId,
    test: ctx.test,
    amountCents: paid.amountCents,
    currency: paid.currency,
    occurredAt: ctx.occurredAt,
    receivedAt: ctx.receivedAt,
    ...tracker,
    ...fields,
    couponCodes: [...(fields.couponCodes ?? []), ...(couponCode ? [couponCode] : [])],
  });
}

/** `reason`: `chargeback` for disputes (the commission's reason then says so); default `refund`. */
export type ProviderRefundFields = Pick<
  RefundJobInput,
  'transactionId' | 'amount' | 'refundId' | 'refundReason' | 'saleAlias' | 'saleLookup'
> & {
  reason?: 'refund' | 'chargeback';
};

/**
 * A provider refund (origin `provider`: it may arrive before its sale, so a missing sale is
 * retried rather than answered with `not_found`).
 */
export function providerRefund(ctx: EventContext, fields: ProviderRefundFields): RefundJob {
  return buildRefundJob({
    origin: 'provider',
    programId: ctx.programId,
    test: ctx.test,
    receivedAt: ctx.receivedAt,
    ...fields,
    reason: fields.reason ?? 'refund',
  });
}

/**
 * A chargeback (a lost or withdrawn dispute): the disputed amount (`null`: the rest of the sale)
 * reversed like a refund with reason `chargeback`, keyed by the dispute id so a redelivery, or a
 * later stage of the same dispute, applies once.
 */
export function providerChargeback(
  ctx: EventContext,
  f: {
    transactionId: string;
    disputeId: string;
    cents: number | null;
    saleAlias?: string | null;
    saleLookup?: RefundJob['saleLookup'];
  },
): RefundJob {
  return providerRefund(ctx, {
    transactionId: f.transactionId,
    amount: { type: 'per_refund', cents: f.cents },
    refundId: f.disputeId,
    refundReason: null,
    reason: 'chargeback',
    saleAlias: f.saleAlias ?? null,
    saleLookup: f.saleLookup ?? null,
  });
}

/** A provider's second id for a recorded sale (`alias`), so refunds and disputes naming it find the sale. */
export function providerLink(ctx: EventContext, fields: Pick<LinkJob, 'alias' | 'transactionId'>): LinkJob {
  return buildLinkJob({
    provider: ctx.provider,
    programId: ctx.programId,
    test: ctx.test,
    receivedAt: ctx.receivedAt,
    ...fields,
  });
}

/** A chargeback decided in the merchant's favour: the advertiser is asked to review the reversal. */
export function providerDisputeWon(
  ctx: EventContext,
  fields: Pick<DisputeWonJob, 'transactionId' | 'chargebackId' | 'decisionId'>,
): DisputeWonJob {
  return buildDisputeWonJob({ programId: ctx.programId, test: ctx.test, receivedAt: ctx.receivedAt, ...fields });
}

/** A reversed Stripe Connect transfer: the payout it paid fails if it is one of ours. */
export function providerTransferReversed(
  ctx: EventContext,
  fields: Pick<TransferReversedJob, 'transactionId' | 'amountCents' | 'amountReversedCents'>,
): TransferReversedJob {
  return buildTransferReversedJob({ programId: ctx.programId, test: ctx.test, receivedAt: ctx.receivedAt, ...fields });
}
