/**
 * Disputes (chargebacks). Dodo Payments, as merchant of record, runs them and reports each stage:
 * https://docs.dodopayments.com/developer-resources/webhooks/intents/dispute (the object: the
 * `Dispute` type of dodopayments-typescript, src/resources/disputes.ts).
 *
 * - `dispute.opened`: "the disputed amount is held immediately": applied like a refund of that
 *   amount with reason `chargeback`, keyed by the dispute id, as Stripe's funds withdrawal is.
 * - `dispute.lost`, `dispute.accepted`, `dispute.expired`: the funds go back to the cardholder. The
 *   same chargeback, keyed by the same dispute id: applied once, whichever stage arrives first
 *   (a merchant who subscribed only to the final stages still reverses the commission).
 * - `dispute.won`, `dispute.cancelled`: the merchant keeps the money. The reversal is not undone;
 *   the advertiser is asked to review the commission, once per dispute (core review-won-dispute.ts).
 * - `dispute.challenged`: evidence submitted, nothing decided: not handled.
 *
 * `amount` is a string: a string of digits is minor units (as every other Dodo amount); a decimal
 * string is read in the currency's major units (ISO 4217 digits). Anything else reverses the rest of the sale.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerChargeback, providerDisputeWon } from '../../provider-jobs.ts';
import { readCurrency, readId, readMinorUnits } from '../../read-payload.ts';
import { minorUnitDigits } from '../../../core/shared/money.ts';

export const disputeFundsLost: EventHandler = (dispute, ctx) => {
  const disputeId = readId(dispute.dispute_id);
  if (!disputeId) return ignore('missing_dispute_id');
  const transactionId = readId(dispute.payment_id);
  if (!transactionId) return ignore('missing_transaction_id');
  const cents = disputedCents(dispute.amount, readCurrency(dispute.currency));
  if (cents === 0) return ignore('missing_amount');
  return emit(providerChargeback(ctx, { transactionId, disputeId, cents }));
};

export const disputeWon: EventHandler = (dispute, ctx) => {
  const disputeId = readId(dispute.dispute_id);
  if (!disputeId) return ignore('missing_dispute_id');
  const transactionId = readId(dispute.payment_id);
  if (!transactionId) return ignore('missing_transaction_id');
  return emit(providerDisputeWon(ctx, { transactionId, chargebackId: disputeId, decisionId: disputeId }));
};

/**
 * Minor units of a dispute amount; `null` (the rest of the sale) when it cannot be read, or when a
 * decimal has more digits than the currency's minor unit (ISO 4217: VND 0, USD 2, KWD 3).
 */
function disputedCents(amount: unknown, currency: string | null): number | null {
  const minor = readMinorUnits(amount);
  if (minor !== null) return minor;
  if (typeof amount !== 'string' || !/^\d{1,13}(\.\d{1,4})?$/.test(amount)) return null;
  const [whole, fraction = ''] = amount.split('.') as [string, string?];
  const digits = minorUnitDigits(currency ?? '');
  if (/[1-9]/.test(fraction.slice(digits))) return null;
  return Number(whole) * 10 ** digits + Number(fraction.slice(0, digits).padEnd(digits, '0') || '0');
}
