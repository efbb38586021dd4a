/**
 * Every admin route × every staff role, generated from the one permission table
 * (src/http/admin-permissions.ts): a role is refused (403 `forbidden`, reason `role`) exactly where
 * its permissions do not cover the route, and passes everywhere else. A route added without an
 * entry fails at start, so none can be left out of this table.
 */
import { describe, expect, test } from 'vitest';
import { createProgramFixture, useHarness } from '../helpers/harness.ts';
import { addStaff, asStaff, type StaffSession } from '../helpers/staff.ts';
import { ADMIN_ROUTE_PERMISSIONS } from '../../src/http/admin-permissions.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { roleAllows, STAFF_ROLES, type Permission, type StaffRoleName } from '../../src/core/shared/staff-roles.ts';

const h = useHarness();

/** A concrete path: the program's id for `:id`, an id that matches no row for the others. */
function concrete(path: string, programId: number): string {
  return path
    .replace(':id', String(programId))
    .replace(':provider', 'stripe')
    .replace(':kind', 'sales')
    .replace(':list', 'sales')
    .replace(/:[A-Za-z]+/g, '987654');
}

const ROUTES = Object.entries(ADMIN_ROUTE_PERMISSIONS) as Array<[string, Permission]>;

describe('role × route', () => {
  const sessions = {} as Record<StaffRoleName, StaffSession>;
  let programId = 0;
  let otherProgram = 0;

  test('the table holds exactly the documented admin routes', () => {
    const documented = OPERATIONS.filter((o) => o.path.startsWith('/api/v1/admin/')).map(
      (o) => `${o.method} ${o.path.slice('/api/v1/admin'.length)}`,
    );
    expect(ROUTES.map(([k]) => k).sort()).toEqual([...new Set(documented)].sort());
  });

  test.each(STAFF_ROLES)(
    '%s: allowed exactly its routes',
    async (role) => {
      if (!programId) {
        programId = (await createProgramFixture(h)).programId;
        otherProgram = (await createProgramFixture(h)).programId;
      }
      sessions[role] = (await addStaff(h, programId, `${role}@example.test`, role)).session!;
      const refusedWhere: string[] = [];
      const allowedWhere: string[] = [];
      for (const [key, permission] of ROUTES) {
        const [method, path] = key.split(' ') as [string, string];
        const r = await asStaff(h, sessions[role], method.toUpperCase(), concrete(path, programId));
        const refused = r.status === 403 && r.body.error.code === 'forbidden' && r.body.error.details.reason === 'role';
        expect(r.status, `${role} ${key}`).not.toBe(401);
        (refused ? refusedWhere : allowedWhere).push(key);
        const expectAllowed = permission !== 'operator' && roleAllows(role, permission);
        expect(refused, `${role} ${key} (${permission})`).toBe(!expectAllowed);
      }
      expect(allowedWhere.length).toBeGreaterThan(0);
      // In a program where the user has no role, every program route is refused.
      for (const [key, permission] of ROUTES) {
        if (!key.includes(':id') || permission === 'signed_in') continue;
        const [method, path] = key.split(' ') as [string, string];
        const r = await asStaff(h, sessions[role], method.toUpperCase(), concrete(path, otherProgram));
        expect(r.status, `${role} ${key} in another program`).toBe(403);
      }
    },
    180_000,
  );

  test('a staff user lists only the programs they have a role in', async () => {
    const r = await asStaff(h, sessions.analyst, 'GET', '/programs');
    expect(r.body.programs.map((p: { id: number }) => p.id)).toEqual([programId]);
    const all = await h.admin('GET', '/programs');
    expect(all.programs.length).toBeGreaterThanOrEqual(2);
  });
});
