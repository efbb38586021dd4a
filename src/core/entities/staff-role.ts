import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { StaffUser } from './staff-user.ts';
import type { StaffRoleName } from '../shared/staff-roles.ts';

/** A staff user's role in one program; no row, no access to that program. */
export const StaffRole = defineEntity({
  name: 'StaffRole',
  uniques: [{ properties: ['user', 'program'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(StaffUser).mapToPk().index(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    role: p.string().$type<StaffRoleName>(),
    createdAt: p.datetime(),
  },
});
export type IStaffRole = InferEntity<typeof StaffRole>;
