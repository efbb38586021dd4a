import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { StaffUser } from './staff-user.ts';
import type { StaffRoleName } from '../shared/staff-roles.ts';

/**
 * A staff user's admin API token, scoped to one program and a role no wider than the user's
 * there (the narrower of the two applies on every call). Only its SHA-256 hash is stored.
 */
export const StaffToken = defineEntity({
  name: 'StaffToken',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(StaffUser).mapToPk().index(),
    program: () => p.manyToOne(Program).mapToPk(),
    role: p.string().$type<StaffRoleName>(),
    name: p.string(),
    tokenHash: p.string().unique().hidden(),
    /** The token's first characters, to tell tokens apart in a list. */
    prefix: p.string(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type IStaffToken = InferEntity<typeof StaffToken>;
