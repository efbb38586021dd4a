import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { STAFF_ROLES } from '../../core/shared/staff-roles.ts';
import {
  addStaffMember,
  changeStaffRole,
  getStaffMember,
  listStaffMembers,
  removeStaffMember,
  type StaffMember,
} from '../../core/staff/staff-members.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { staffInviteLink } from '../../public-origin.ts';

const role = z.enum(STAFF_ROLES);
export const staffAddSchema = z.strictObject({ email: z.email().max(254), role });
export const staffRoleSchema = z.strictObject({ role });

const memberJson = z.strictObject({
  user_id: z.number().int(),
  email: z.string(),
  role,
  has_password: z.boolean(),
  totp_enabled: z.boolean(),
  added_at: z.iso.datetime(),
});
const memberBody = z.strictObject({ member: memberJson });
const addedBody = memberBody.extend({
  invite_url: z.string().nullable().meta({ description: 'The one-time link to set a password (new users only)' }),
  invite_expires_at: z.iso.datetime().nullable(),
});

export type StaffMemberWire = z.infer<typeof memberJson>;
export type StaffListBody = { members: StaffMemberWire[] };
export type StaffAddedBody = z.infer<typeof addedBody>;
export type StaffMemberBody = z.infer<typeof memberBody>;
export type StaffRemovedBody = { removed: StaffMemberWire };

const memberToWire = (m: StaffMember): z.infer<typeof memberJson> => ({
  user_id: m.userId,
  email: m.email,
  role: m.role,
  has_password: m.hasPassword,
  totp_enabled: m.totpEnabled,
  added_at: m.addedAt.toISOString(),
});

/** A program's team: list, invite (add with a role), change a role, remove. Owners only. */
export function registerStaffRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  const member = (e: Parameters<Parameters<AdminHelpers['on']>[2]>[0]) =>
    getStaffMember(ctx.deps(), num(e, 'id'), num(e, 'userId')).then((m) => ({ member: memberToWire(m) }));
  on('get', '/programs/:id/staff', async (e) => ({
    members: (await listStaffMembers(ctx.deps(), num(e, 'id'))).map(memberToWire),
  }));
  on('post', '/programs/:id/staff', async (e) => {
    const input = validate(staffAddSchema, await body(e));
    const link = (token: string) => staffInviteLink(ctx.config, token);
    const r = await addStaffMember(ctx.deps(), num(e, 'id'), {
      ...input,
      inviteTtlMs: ctx.config.INVITE_TTL_HOURS * 3_600_000,
      inviteLink: link,
    });
    const inviteUrl = r.inviteToken ? link(r.inviteToken) : null;
    return json(
      {
        member: memberToWire(r.member),
        invite_url: inviteUrl,
        invite_expires_at: r.inviteExpiresAt?.toISOString() ?? null,
      } satisfies z.infer<typeof addedBody>,
      201,
    );
  });
  on(
    'patch',
    '/programs/:id/staff/:userId',
    async (e) => {
      const { role } = validate(staffRoleSchema, await body(e));
      return { member: memberToWire(await changeStaffRole(ctx.deps(), num(e, 'id'), num(e, 'userId'), role)) };
    },
    member,
  );
  on(
    'delete',
    '/programs/:id/staff/:userId',
    async (e) => ({ removed: memberToWire(await removeStaffMember(ctx.deps(), num(e, 'id'), num(e, 'userId'))) }),
    member,
  );
}

const id = z.number().int().positive();

export const staffOperations = [
  adminOperation('get', '/programs/:id/staff', 'listStaff', "The program's team", {
    params: { id },
    responses: { 200: { description: 'Members', schema: z.strictObject({ members: z.array(memberJson) }) } },
  }),
  adminOperation('post', '/programs/:id/staff', 'addStaff', 'Invite a team member with a role', {
    params: { id },
    body: staffAddSchema,
    errors: ['not_found', 'conflict'],
    responses: { 201: { description: 'Added; a new user gets an invite link', schema: addedBody } },
  }),
  adminOperation('patch', '/programs/:id/staff/:userId', 'changeStaffRole', "Change a member's role", {
    params: { id, userId: id },
    body: staffRoleSchema,
    errors: ['not_found', 'conflict'],
    responses: { 200: { description: 'Changed', schema: memberBody } },
  }),
  adminOperation(
    'delete',
    '/programs/:id/staff/:userId',
    'removeStaff',
    'Remove a member (their tokens stop at once)',
    {
      params: { id, userId: id },
      errors: ['not_found', 'conflict'],
      responses: { 200: { description: 'Removed', schema: z.strictObject({ removed: memberJson }) } },
    },
  ),
];
