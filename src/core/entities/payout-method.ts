import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import type { PayoutMethodKind } from '../shared/vocabulary.ts';

/**
 * A partner's payout details (one per partner): the kind, the details sealed as JSON
 * (sealed-secrets.ts, context `payout_method.details`), hidden from serialisation and never
 * returned whole; `hint` is all a response shows of them.
 */
export const PayoutMethod = defineEntity({
  name: 'PayoutMethod',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    partner: () => p.manyToOne(Partner).mapToPk().unique(),
    kind: p.string().$type<PayoutMethodKind>(),
    detailsSealed: p.text().hidden(),
    hint: p.string(),
    updatedAt: p.datetime(),
  },
});
export type IPayoutMethod = InferEntity<typeof PayoutMethod>;
