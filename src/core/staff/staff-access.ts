import type { CoreDeps } from '../deps.ts';
import type { StaffRoleName } from '../shared/staff-roles.ts';
import { StaffRole } from '../entities/staff-role.ts';
import { StaffUser } from '../entities/staff-user.ts';

/** A staff user's account as the dashboard shows it: email, TOTP state and a role per program. */
export type StaffAccount = {
  staffUserId: number;
  email: string;
  totpEnabled: boolean;
  roles: Array<{ programId: number; role: StaffRoleName }>;
};

/** The user's role in the program, read on every call (no cache: a change applies at once), or null. */
export async function findStaffRole(
  deps: CoreDeps,
  staffUserId: number,
  programId: number,
): Promise<StaffRoleName | null> {
  const row = await deps.em.findOne(StaffRole, { user: staffUserId, program: programId });
  return row?.role ?? null;
}

/** The user's account, or null when it no longer exists. */
export async function getStaffAccount(deps: CoreDeps, staffUserId: number): Promise<StaffAccount | null> {
  const user = await deps.em.findOne(StaffUser, { id: staffUserId });
  if (!user) return null;
  const roles = await deps.em.find(StaffRole, { user: staffUserId }, { orderBy: { program: 'asc' } });
  return {
    staffUserId: user.id,
    email: user.email,
    totpEnabled: !!user.totpEnabledAt,
    roles: roles.map((r) => ({ programId: r.program, role: r.role })),
  };
}
