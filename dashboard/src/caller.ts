// Who is signed in to the dashboard and what their role lets them do in each program: pages and
// buttons a role may not use are not shown (the server refuses them anyway, 403 `forbidden`).
import { ref } from 'vue';
import { admin } from './api.ts';
import type { MeBody } from './api-types.ts';
import { roleAllows, type Permission } from '../../src/core/shared/staff-roles.ts';

const me = ref<MeBody | null>(null);

/** Reads the caller (after sign-in or a reload); null when it cannot be read. */
export async function loadCaller(): Promise<MeBody | null> {
  me.value = await admin.get('/api/v1/admin/me').catch(() => null);
  return me.value;
}

export function forgetCaller(): void {
  me.value = null;
}

export const caller = me;

/** Whether the caller may use `permission` in the program (the operator may do everything). */
export function can(permission: Permission, programId: number | null): boolean {
  const m = me.value;
  if (!m) return false;
  if (m.kind === 'operator') return true;
  const role = m.roles.find((r) => r.program_id === programId)?.role;
  return !!role && roleAllows(role, permission);
}
