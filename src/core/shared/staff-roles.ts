/**
 * Staff roles and what each may do in its program. The admin routes each require one permission
 * (src/http/admin-permissions.ts); a staff user passes where their role in the route's program
 * grants it. The operator's ADMIN_TOKEN (break-glass) passes everywhere.
 */
export const STAFF_ROLES = ['owner', 'admin', 'analyst', 'payouts'] as const;
export type StaffRoleName = (typeof STAFF_ROLES)[number];

/**
 * - `read`: every read of the program (reports, lists, exports);
 * - `manage`: settings, rules, partners, groups, codes, keys, connections, endpoints, approvals;
 * - `payouts`: payouts and payout runs;
 * - `staff`: the program's team (invite, role, remove);
 * - `audit`: the audit log;
 * - `signed_in`: any authenticated caller (its own account, tokens, the list of its programs);
 * - `operator`: the ADMIN_TOKEN only (deployment-wide: create a program, re-seal secrets).
 */
export const PERMISSIONS = ['read', 'manage', 'payouts', 'staff', 'audit', 'signed_in', 'operator'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS: Record<StaffRoleName, readonly Permission[]> = {
  owner: ['read', 'manage', 'payouts', 'staff', 'audit'],
  admin: ['read', 'manage', 'payouts', 'audit'],
  analyst: ['read'],
  payouts: ['read', 'payouts'],
};

/** Whether `role` grants `permission` in its program (`signed_in` always; `operator` never). */
export function roleAllows(role: StaffRoleName, permission: Permission): boolean {
  return permission === 'signed_in' || ROLE_PERMISSIONS[role].includes(permission);
}

/** Whether `narrow` grants nothing `wide` does not (a token's role against its user's). */
export function roleWithin(narrow: StaffRoleName, wide: StaffRoleName): boolean {
  return ROLE_PERMISSIONS[narrow].every((p) => ROLE_PERMISSIONS[wide].includes(p));
}
