import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';

/** A one-time, expiring link that lets a partner set their portal password. Token stored hashed. */
export const PartnerInvite = defineEntity({
  name: 'PartnerInvite',
  properties: {
    id: p.integer().primary().autoincrement(),
    partner: () => p.manyToOne(Partner).mapToPk().index(),
    tokenHash: p.string().unique(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export type IPartnerInvite = InferEntity<typeof PartnerInvite>;
