import type { CoreDeps } from '../deps.ts';
import type { TransferReversedJob } from '../jobs/transfer-reversed-job.ts';
import { payoutOfTransfer } from './payout-transfers.ts';
import { failPayout } from './settle-payouts.ts';

/**
 * - `payout_failed`: the transfer of a payout was reversed in full; the payout failed and its
 *   amount is back in the balance (`changed` false: a redelivery, it had failed already).
 * - `partial_reversal`: part of the transfer was reversed. Nothing changes automatically (the
 *   commissions were paid whole); the log asks the merchant to settle the difference by hand.
 * - `not_a_payout`: a transfer this service did not make.
 */
export type TransferReversedResult =
  | { kind: 'payout_failed'; payoutId: number; changed: boolean; deliveryIds: number[] }
  | { kind: 'partial_reversal'; payoutId: number; amountReversedCents: number }
  | { kind: 'not_a_payout'; transferId: string };

export async function reverseTransfer(deps: CoreDeps, job: TransferReversedJob): Promise<TransferReversedResult> {
  const payout = await payoutOfTransfer(deps, job.programId, job.transactionId);
  if (!payout) return { kind: 'not_a_payout', transferId: job.transactionId };
  if (job.amountReversedCents < job.amountCents) {
    deps.log.warn(
      {
        programId: job.programId,
        payoutId: payout.id,
        transferId: job.transactionId,
        reversed: job.amountReversedCents,
      },
      'part of a payout transfer was reversed: the payout stays paid; settle the difference with the partner by hand',
    );
    return { kind: 'partial_reversal', payoutId: payout.id, amountReversedCents: job.amountReversedCents };
  }
  const r = await failPayout(deps, job.programId, payout.id, `Stripe transfer ${job.transactionId} reversed`);
  return { kind: 'payout_failed', payoutId: payout.id, changed: r.changed, deliveryIds: r.deliveryIds };
}
