import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';
import { PayoutRun } from './payout-run.ts';
import type { PayoutSkipReason } from '../shared/vocabulary.ts';

/**
 * A partner a payout run passed by, and why (vocabulary.ts, PAYOUT_SKIP_REASONS), kept with the
 * run so its page says it after the run, not only in the answer that created it.
 */
export const PayoutRunSkip = defineEntity({
  name: 'PayoutRunSkip',
  properties: {
    id: p.integer().primary().autoincrement(),
    run: () => p.manyToOne(PayoutRun).mapToPk().index(),
    partner: () => p.manyToOne(Partner).mapToPk(),
    code: p.string().$type<PayoutSkipReason>(),
    reason: p.string(),
    /** The partner's balance in the run's currency when the run passed them by, minor units. */
    balanceCents: p.bigint('number'),
  },
});
export type IPayoutRunSkip = InferEntity<typeof PayoutRunSkip>;
