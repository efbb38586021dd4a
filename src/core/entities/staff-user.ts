import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A member of the merchant's team (one per email, for the whole deployment). The password is a
 * bcrypt hash, null until the invite link is used; the TOTP secret is sealed (`v1:…`) and only
 * checked once `totpEnabledAt` is set (enrolment confirmed with a first code).
 */
export const StaffUser = defineEntity({
  name: 'StaffUser',
  properties: {
    id: p.integer().primary().autoincrement(),
    email: p.string().unique(),
    passwordHash: p.string().hidden().nullable(),
    totpSecret: p.text().hidden().nullable(),
    totpEnabledAt: p.datetime().nullable(),
    /** The last TOTP time step accepted: a code is used at most once. */
    totpLastStep: p.bigint('number').nullable(),
    createdAt: p.datetime(),
  },
});
export type IStaffUser = InferEntity<typeof StaffUser>;
