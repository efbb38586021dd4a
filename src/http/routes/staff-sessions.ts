import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import {
  acceptStaffInvite,
  describeStaffInvite,
  requestStaffPasswordReset,
  verifyStaffSignIn,
} from '../../core/staff/staff-sign-in.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { staffInviteLink } from '../../public-origin.ts';
import { withPartnerSignInLimits } from '../partner-sign-in-limit.ts';
import { bcryptHasher } from '../password-hasher.ts';
import { otpauthTotp } from '../totp.ts';
import { readJson } from '../read-json.ts';
import { json, route } from '../route.ts';
import { validate } from '../validate.ts';
import { openSession } from '../open-session.ts';
import { audited } from '../admin-audit.ts';
import { defineOperation } from '../openapi/operation.ts';
import { sessionBody } from '../wire/responses.ts';
import { acceptInviteSchema } from '../wire/requests.ts';

const INVITE_TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * A staff user's sign-in (email, password and, once enrolled, a TOTP code) under the same
 * per-login and per-address limits as the portal's. Opens an operator session of the user.
 */
export async function signInStaff(
  ctx: RouteContext,
  e: H3Event,
  input: { email: string; password: string; totp_code?: string },
): Promise<Response> {
  const { staffUserId } = await withPartnerSignInLimits(ctx, e, `staff:${input.email}`, () =>
    verifyStaffSignIn(
      ctx.deps(),
      { hasher: bcryptHasher, totp: otpauthTotp },
      { email: input.email, password: input.password, totpCode: input.totp_code },
    ),
  );
  return openSession(ctx, e, 'operator', { staffUserId });
}

/** The staff invite link: what it is for, and accepting it (set a password, signed in). */
export function registerStaffSessionRoutes(app: H3, ctx: RouteContext): void {
  const token = (e: H3Event) => {
    const t = e.context.params?.token ?? '';
    return INVITE_TOKEN.test(t) ? t : '-'.repeat(20);
  };
  app.get(
    '/api/v1/dashboard/invites/:token',
    route(async (e) => {
      const d = await describeStaffInvite(ctx.deps(), token(e));
      return { email: d.email, expires_at: d.expiresAt.toISOString() } satisfies z.infer<typeof staffInviteBody>;
    }),
  );
  // "Forgot your password": the same answer whether the address is known or not.
  app.post(
    '/api/v1/dashboard/password-reset',
    route(async (e) => {
      await enforceClientLimit(ctx, e, 'application');
      const { email } = validate(resetSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES));
      await requestStaffPasswordReset(ctx.deps(), {
        email,
        ttlMs: ctx.config.INVITE_TTL_HOURS * 3_600_000,
        link: (t) => staffInviteLink(ctx.config, t),
      });
      return json({ status: 'requested' } satisfies z.infer<typeof resetBody>, 202);
    }),
  );
  app.post(
    '/api/v1/dashboard/invites/:token',
    route(
      // Setting the password is a change to the team: audited as made by the new member.
      audited(ctx, 'POST /dashboard/invites/:token', async (e) => {
        const { password } = validate(acceptInviteSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES));
        const { staffUserId, email } = await acceptStaffInvite(ctx.deps(), bcryptHasher, token(e), password);
        e.context.admin = { kind: 'staff', staffUserId, email, token: null };
        return openSession(ctx, e, 'operator', { staffUserId });
      }),
    ),
  );
}

const staffInviteBody = z.strictObject({ email: z.string(), expires_at: z.iso.datetime() });
export const resetSchema = z.strictObject({ email: z.email().max(254) });
const resetBody = z.strictObject({
  status: z.literal('requested').meta({ description: 'The same whether the address is known or not' }),
});
export type StaffInviteBody = z.infer<typeof staffInviteBody>;
export type PasswordResetBody = z.infer<typeof resetBody>;
const params = { token: z.string().meta({ description: 'The token of the invite link' }) };

export const staffSessionOperations = [
  defineOperation({
    method: 'get',
    path: '/api/v1/dashboard/invites/:token',
    operationId: 'describeStaffInvite',
    summary: 'What a staff invite link is for',
    tag: 'Admin',
    security: [],
    params,
    responses: { 200: { description: 'The invited email', schema: staffInviteBody } },
    errors: ['not_found'],
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/dashboard/password-reset',
    operationId: 'requestStaffPasswordReset',
    summary: 'Forgot password: email a staff user a link to choose a new one',
    description:
      'Answers 202 whatever the address: a known staff user gets an email (when SMTP_URL is set) with a one-time link to the invite page, valid INVITE_TTL_HOURS; choosing a password there ends their other sessions. Limited per client address (`APPLICATION_LIMIT_PER_MINUTE`).',
    tag: 'Admin',
    security: [],
    body: resetSchema,
    responses: { 202: { description: 'Requested', schema: resetBody } },
    errors: ['invalid_request', 'rate_limited'],
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/dashboard/invites/:token',
    operationId: 'acceptStaffInvite',
    summary: 'Accept a staff invite: set the password and sign in',
    tag: 'Admin',
    security: [],
    params,
    body: acceptInviteSchema,
    responses: { 201: { description: 'Password set, signed in (session cookie)', schema: sessionBody } },
    errors: ['not_found', 'invalid_request'],
  }),
];
