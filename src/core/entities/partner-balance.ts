import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';

/** A partner's balance in one currency (amounts are never converted). May become negative. */
export const PartnerBalance = defineEntity({
  name: 'PartnerBalance',
  uniques: [{ properties: ['partner', 'currency'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    partner: () => p.manyToOne(Partner).mapToPk(),
    currency: p.string().length(3),
    balanceCents: p.bigint('number').default(0),
  },
});
export type IPartnerBalance = InferEntity<typeof PartnerBalance>;
