import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { StaffUser } from './staff-user.ts';

/** A one-time, expiring link that lets a staff user set their password. Token stored hashed. */
export const StaffInvite = defineEntity({
  name: 'StaffInvite',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(StaffUser).mapToPk().index(),
    tokenHash: p.string().unique(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export type IStaffInvite = InferEntity<typeof StaffInvite>;
