import { z } from 'zod';
import type { IPayout } from '../../core/entities/payout.ts';
import type { IPayoutRun } from '../../core/entities/payout-run.ts';
import type { PayoutRunResult } from '../../core/payouts/payout-runs.ts';
import type { PayoutMethodState } from '../../core/payouts/payout-methods.ts';
import type { TransferReport } from '../../core/payouts/payout-transfers.ts';
import { PAYOUT_METHOD_KINDS, PAYOUT_SKIP_REASONS } from '../../core/shared/vocabulary.ts';
import { payoutRow, payoutRunRow } from '../openapi/entity-rows.ts';
import type { PaidPayout } from '../../core/payouts/pay-payout.ts';
import type { PartnerStatement } from '../../core/ledger/get-partner-statement.ts';
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

// Payout runs and payout details (routes/admin-payout-runs.ts, partner.ts)

const int = z.number().int();

/** A partner's payout details as shown: the kind and a hint, never the details. */
export const payoutMethodWire = z
  .strictObject({ kind: z.enum(PAYOUT_METHOD_KINDS), hint: z.string(), updated_at: z.iso.datetime() })
  .nullable();
export const payoutMethodBody = z.strictObject({ payout_method: payoutMethodWire });
export type PayoutMethodBody = z.infer<typeof payoutMethodBody>;

export function payoutMethodToWire(s: PayoutMethodState): PayoutMethodBody {
  return { payout_method: s && { kind: s.kind, hint: s.hint, updated_at: s.updatedAt.toISOString() } };
}

const skipCode = z
  .enum(PAYOUT_SKIP_REASONS)
  .meta({ description: 'Why the partner is passed by (docs/payouts.md, "Skip reasons"), in the order checked' });
export const payoutRunSkipWire = z.strictObject({
  partner_id: int,
  code: skipCode,
  reason: z.string().meta({ description: 'The reason for people, with the amounts' }),
  balance_cents: int.meta({ description: "The partner's balance in the run's currency then" }),
});

export const payoutRunBody = z.strictObject({
  run: payoutRunRow,
  payouts: z.array(payoutRow),
  skipped: z
    .array(payoutRunSkipWire)
    .optional()
    .meta({ description: 'Partners with a balance or pending commissions the run passed by, and why' }),
  transfers: z
    .strictObject({
      sent: z.array(z.strictObject({ payout_id: int, transfer_id: z.string() })),
      errors: z.array(z.strictObject({ payout_id: int, error: z.string() })),
    })
    .optional()
    .meta({ description: 'Stripe Connect runs: the transfers made now, and those Stripe refused' }),
});
export type PayoutRunBody = z.infer<typeof payoutRunBody>;

export function payoutRunToWire(
  r: { run: IPayoutRun; payouts: IPayout[]; skipped?: PayoutRunResult['skipped'] },
  transfers?: TransferReport,
): PayoutRunBody {
  return {
    run: rowToWire(r.run),
    payouts: r.payouts.map(rowToWire),
    ...(r.skipped && {
      skipped: r.skipped.map((s) => ({
        partner_id: s.partnerId,
        code: s.code,
        reason: s.reason,
        balance_cents: s.balanceCents,
      })),
    }),
    ...(transfers && {
      transfers: {
        sent: transfers.sent.map((t) => ({ payout_id: t.payoutId, transfer_id: t.transferId })),
        errors: transfers.errors.map((t) => ({ payout_id: t.payoutId, error: t.error })),
      },
    }),
  };
}
