import { sql } from 'kysely';
import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import type { DisputeWonJob } from '../jobs/dispute-won-job.ts';
import { Sale } from '../entities/sale.ts';
import { Commission } from '../entities/commission.ts';
import { Refund } from '../entities/refund.ts';
import { Notification } from '../entities/notification.ts';
import { findLinkedTransactionId } from './link-payment.ts';
import { findProviderTestSale } from './refund-statements.ts';
import { typedSql } from '../db/sql.ts';

/**
 * - `review_requested`: the chargeback had reversed commission; the advertiser is asked to review.
 * - `nothing_to_review`: no sale, no commission, or the chargeback was never applied to it.
 * - `already_requested`: a redelivery or the provider's second event for the same decision.
 */
export type DisputeWonResult =
  | { kind: 'review_requested'; commissionId: number; notificationIds: number[] }
  | { kind: 'nothing_to_review'; reason: string }
  | { kind: 'already_requested'; commissionId: number }
  | { kind: 'test'; eventId: number; programId: number };

/**
 * A chargeback decided in the merchant's favour. The commission it reversed is NOT re-credited
 * automatically: reversal is a final commission state, the partner may already have been told, and
 * whether a won dispute earns commission again is the advertiser's call (the funds can still be
 * lost on a second dispute cycle). Instead the advertiser gets a manual-review notification naming
 * the commission and the amount the chargeback reversed, once per chargeback.
 */
export async function reviewWonDispute(deps: CoreDeps, job: DisputeWonJob): Promise<DisputeWonResult> {
  if (job.test) {
    const testSale = await findProviderTestSale(deps.em, job.programId, job.transactionId);
    return testSale
      ? { kind: 'test', eventId: testSale.id, programId: job.programId }
      : { kind: 'nothing_to_review', reason: 'no_sale' };
  }
  // `clear`: the transaction reads every row itself, under its locks, never an entity an earlier
  // use-case left in the caller's context (several jobs of one webhook row share it).
  return deps.em.transactional(
    async (em) => {
      const lock = { lockMode: LockMode.PESSIMISTIC_WRITE } as const;
      const transactionId = (await em.count(Sale, { program: job.programId, transactionId: job.transactionId }))
        ? job.transactionId
        : await findLinkedTransactionId(em, job.programId, job.transactionId);
      // The sale's row lock serialises this with refunds and with a concurrent copy of this event.
      const sale = transactionId ? await em.findOne(Sale, { program: job.programId, transactionId }, lock) : null;
      if (!sale) return { kind: 'nothing_to_review' as const, reason: 'no_sale' };
      const commission = await em.findOne(Commission, { sale: sale.id });
      if (!commission) return { kind: 'nothing_to_review' as const, reason: 'no_commission' };
      const chargebacks = await em.find(
        Refund,
        job.chargebackId ? { sale: sale.id, refundId: job.chargebackId } : { sale: sale.id, reason: 'chargeback' },
      );
      if (!chargebacks.length) return { kind: 'nothing_to_review' as const, reason: 'chargeback_not_applied' };
      const reviewKey = job.chargebackId ?? job.decisionId;
      const prior = await typedSql(em)
        .selectFrom('notification')
        .select('id')
        .where('commission_id', '=', commission.id)
        .where('kind', '=', 'advertiser_manual_review')
        .where(sql`payload ->> 'review_key'`, '=', reviewKey)
        .limit(1)
        .executeTakeFirst();
      if (prior) return { kind: 'already_requested' as const, commissionId: commission.id };
      const note = em.create(Notification, {
        program: job.programId,
        kind: 'advertiser_manual_review',
        partnerId: commission.partner,
        commissionId: commission.id,
        payload: {
          review_reason: 'chargeback_won',
          commission_id: commission.id,
          sale_id: sale.id,
          transaction_id: sale.transactionId,
          review_key: reviewKey,
          chargeback_id: job.chargebackId,
          decision_id: job.decisionId,
          reversed_by_chargeback_cents: chargebacks.reduce((sum, c) => sum + c.deductionCents, 0),
          currency: commission.currency,
          commission_status: commission.status,
        },
        createdAt: new Date(job.receivedAt),
      });
      await em.flush();
      deps.log.info(
        { programId: job.programId, commissionId: commission.id, reviewKey },
        'won chargeback: advertiser review requested',
      );
      return { kind: 'review_requested' as const, commissionId: commission.id, notificationIds: [note.id] };
    },
    { clear: true },
  );
}
