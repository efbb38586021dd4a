import { z } from 'zod';
import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { STAFF_ROLES } from '../../core/shared/staff-roles.ts';
import { getStaffAccount } from '../../core/staff/staff-access.ts';
import { confirmTotp, startTotpEnrolment } from '../../core/staff/staff-totp.ts';
import {
  createStaffToken,
  listStaffTokens,
  revokeStaffToken,
  type StaffTokenInfo,
} from '../../core/staff/staff-tokens.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { otpauthTotp } from '../totp.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';

const role = z.enum(STAFF_ROLES);
export const tokenCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  program_id: z.number().int().positive(),
  role,
});
export const totpConfirmSchema = z.strictObject({ code: z.string().regex(/^\d{6}$/, 'six digits') });

const meBody = z.strictObject({
  kind: z.enum(['operator', 'staff']),
  email: z.string().nullable(),
  totp_enabled: z.boolean(),
  roles: z
    .array(z.strictObject({ program_id: z.number().int(), role }))
    .meta({ description: 'Empty for the operator, who may do everything' }),
});
const tokenJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  program_id: z.number().int(),
  role,
  prefix: z.string(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
});
const tokenBody = z.strictObject({ token: tokenJson });
const createdTokenBody = tokenBody.extend({ secret: z.string().meta({ description: 'The token, shown once' }) });
const totpStartBody = z.strictObject({ secret: z.string(), otpauth_uri: z.string() });

export type MeBody = z.infer<typeof meBody>;
export type StaffTokenWire = z.infer<typeof tokenJson>;
export type StaffTokensBody = { tokens: StaffTokenWire[] };
export type StaffTokenBody = z.infer<typeof tokenBody>;
export type CreatedStaffTokenBody = z.infer<typeof createdTokenBody>;
export type TotpStartBody = z.infer<typeof totpStartBody>;
export type TotpConfirmedBody = { totp_enabled: true };

const tokenToWire = (t: StaffTokenInfo): z.infer<typeof tokenJson> => ({
  id: t.id,
  name: t.name,
  program_id: t.programId,
  role: t.role,
  prefix: t.prefix,
  created_at: t.createdAt.toISOString(),
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

/**
 * The signed-in caller's own account: who they are and their roles (the dashboard shows what
 * they may do), TOTP enrolment, and their admin API tokens. Staff only, and never with a token
 * (a token cannot make more tokens), apart from `GET /me`.
 */
export function registerMeRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  const staffUser = (e: H3Event, viaToken = false) => {
    const c = e.context.admin;
    if (c?.kind !== 'staff') throw new AppError('forbidden', 'Only a staff user has an account here');
    if (c.token && !viaToken) throw new AppError('forbidden', 'Sign in with your password to do this');
    return c.staffUserId;
  };
  on('get', '/me', async (e) => {
    const c = e.context.admin;
    if (c?.kind !== 'staff') return { kind: 'operator', email: null, totp_enabled: false, roles: [] } as const;
    const a = await getStaffAccount(ctx.deps(), c.staffUserId);
    const roles = (a?.roles ?? []).filter((r) => !c.token || r.programId === c.token.programId);
    return {
      kind: 'staff',
      email: c.email,
      totp_enabled: a?.totpEnabled ?? false,
      roles: roles.map((r) => ({ program_id: r.programId, role: c.token?.role ?? r.role })),
    } satisfies z.infer<typeof meBody>;
  });
  on('post', '/me/totp', async (e) => {
    const r = await startTotpEnrolment(ctx.deps(), otpauthTotp, staffUser(e));
    return json({ secret: r.secret, otpauth_uri: r.uri } satisfies z.infer<typeof totpStartBody>, 201, {
      'cache-control': 'no-store',
    });
  });
  on('post', '/me/totp/confirm', async (e) => {
    const { code } = validate(totpConfirmSchema, await body(e));
    await confirmTotp(ctx.deps(), otpauthTotp, staffUser(e), code);
    return { totp_enabled: true as const };
  });
  on('get', '/me/tokens', async (e) => ({
    tokens: (await listStaffTokens(ctx.deps(), staffUser(e, true))).map(tokenToWire),
  }));
  on('post', '/me/tokens', async (e) => {
    const input = validate(tokenCreateSchema, await body(e));
    const r = await createStaffToken(ctx.deps(), staffUser(e), { ...input, programId: input.program_id });
    return json({ token: tokenToWire(r.info), secret: r.token } satisfies z.infer<typeof createdTokenBody>, 201, {
      'cache-control': 'no-store',
    });
  });
  on('post', '/me/tokens/:tokenId/revoke', async (e) => ({
    token: tokenToWire(await revokeStaffToken(ctx.deps(), staffUser(e, true), num(e, 'tokenId'))),
  }));
}

export const meOperations = [
  adminOperation('get', '/me', 'getMe', 'Who is signed in, and their role in each program', {
    responses: { 200: { description: 'The caller', schema: meBody } },
  }),
  adminOperation('post', '/me/totp', 'startTotp', 'Start TOTP enrolment (the secret is shown once)', {
    bodyOptional: true,
    errors: ['conflict'],
    responses: { 201: { description: 'Scan the URI, then confirm with a code', schema: totpStartBody } },
  }),
  adminOperation('post', '/me/totp/confirm', 'confirmTotp', 'Confirm TOTP with a first code', {
    body: totpConfirmSchema,
    errors: ['invalid_request'],
    responses: { 200: { description: 'Enabled', schema: z.strictObject({ totp_enabled: z.literal(true) }) } },
  }),
  adminOperation('get', '/me/tokens', 'listMyTokens', 'My admin API tokens', {
    responses: { 200: { description: 'Tokens', schema: z.strictObject({ tokens: z.array(tokenJson) }) } },
  }),
  adminOperation('post', '/me/tokens', 'createMyToken', 'Create a token for one program (shown once)', {
    body: tokenCreateSchema,
    errors: ['invalid_request'],
    responses: { 201: { description: 'Created', schema: createdTokenBody } },
  }),
  adminOperation('post', '/me/tokens/:tokenId/revoke', 'revokeMyToken', 'Revoke a token, at once', {
    params: { tokenId: z.number().int().positive() },
    bodyOptional: true,
    errors: ['not_found'],
    responses: { 200: { description: 'Revoked', schema: tokenBody } },
  }),
];
