import type { PaidPayout } from '../../core/pay-payout.ts';
import type { PartnerStatement } from '../../core/get-partner-statement.ts';
import { recordToWire, rowToWire } from './records.ts';
import type { PaidPayoutBody, StatementBody } from './responses.ts';

/** A payout with the commissions it pays. */
export function paidPayoutToWire(p: PaidPayout): PaidPayoutBody {
  return { payout: rowToWire(p.payout), commissions: p.commissions.map(rowToWire) };
}

/** A partner's statement: per currency, the balance alone (the earlier account view), ledger, payouts. */
export function statementToWire(s: PartnerStatement): StatementBody {
  return {
    partner: recordToWire(s.partner),
    currencies: s.currencies.map((c) => ({
      currency: c.currency,
      credits_cents: c.creditsCents,
      reversals_cents: c.reversalsCents,
      payouts_cents: c.payoutsCents,
      balance_cents: c.balanceCents,
      unpaid_commissions_cents: c.unpaidCommissionsCents,
      owed_cents: c.owedCents,
      open_payouts_cents: c.openPayoutsCents,
      reconciles: c.reconciles,
    })),
    // Kept from the earlier account view: the balance per currency alone.
    balances: s.currencies.map((c) => ({ currency: c.currency, balance_cents: c.balanceCents })),
    ledger: s.ledger.map(recordToWire),
    payouts: s.payouts.map(recordToWire),
  };
}
