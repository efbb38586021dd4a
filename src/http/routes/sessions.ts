import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { endSession, type SessionKind } from '../../core/programs/sessions.ts';
import {
  acceptPartnerInvite,
  describePartnerInvite,
  verifyPartnerPassword,
} from '../../core/programs/partner-invites.ts';
import { withPartnerSignInLimits } from '../partner-sign-in-limit.ts';
import { readJson } from '../read-json.ts';
import { json, route } from '../route.ts';
import { validate } from '../validate.ts';
import { bcryptHasher } from '../password-hasher.ts';
import { defineOperation, type Operation } from '../openapi/operation.ts';
import { requireAdminToken, requireSession, sessionCookieHeader, sessionToken } from '../session-auth.ts';
import {
  inviteDescriptionBody,
  sessionBody,
  signedOutBody,
  type InviteDescriptionBody,
  type SessionBody,
  type SignedOutBody,
} from '../wire/responses.ts';
import { acceptInviteSchema, operatorSignInSchema, partnerSignInSchema } from '../wire/requests.ts';
import { signInStaff } from './staff-sessions.ts';
import { openSession } from '../open-session.ts';

const INVITE_TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * Browser sessions of the dashboard (`/api/v1/dashboard/session`, the operator's admin token
 * exchanged for a cookie) and of the partner portal (`/api/v1/partner/session`, a password set
 * through a one-time invite at `/api/v1/partner/invites/:token`).
 */
export function registerSessionRoutes(app: H3, ctx: RouteContext): void {
  const body = (e: H3Event) => readJson(e, ctx.config.BODY_LIMIT_BYTES);

  const open = (e: H3Event, kind: SessionKind, partnerId?: number) => openSession(ctx, e, kind, { partnerId });
  const describe = (kind: SessionKind) =>
    route([requireSession(ctx, kind)], async (e) => {
      const s = e.context.session!;
      return json({ csrf_token: s.csrfToken, expires_at: s.expiresAt.toISOString() } satisfies SessionBody, 200, {
        'cache-control': 'no-store',
      });
    });
  const close = (kind: SessionKind) =>
    route([requireSession(ctx, kind)], async (e) => {
      await endSession(ctx.deps(), sessionToken(e, kind) as string);
      return json({ signed_out: true } satisfies SignedOutBody, 200, {
        'set-cookie': sessionCookieHeader(ctx, e, kind, '', 0),
      });
    });

  app.post(
    '/api/v1/dashboard/session',
    route(async (e) => {
      const input = validate(operatorSignInSchema, await body(e));
      if ('email' in input) return signInStaff(ctx, e, input);
      await requireAdminToken(ctx, e, input.token);
      return open(e, 'operator');
    }),
  );
  app.get('/api/v1/dashboard/session', describe('operator'));
  app.delete('/api/v1/dashboard/session', close('operator'));

  app.post(
    '/api/v1/partner/session',
    route(async (e) => {
      const { login, password } = validate(partnerSignInSchema, await body(e));
      const { partnerId } = await withPartnerSignInLimits(ctx, e, login, () =>
        verifyPartnerPassword(ctx.deps(), bcryptHasher, login, password),
      );
      return open(e, 'partner', partnerId);
    }),
  );
  app.get('/api/v1/partner/session', describe('partner'));
  app.delete('/api/v1/partner/session', close('partner'));

  const inviteToken = (e: H3Event) => {
    const t = e.context.params?.token ?? '';
    return INVITE_TOKEN.test(t) ? t : '-'.repeat(20);
  };
  app.get(
    '/api/v1/partner/invites/:token',
    route(async (e) => {
      const d = await describePartnerInvite(ctx.deps(), inviteToken(e));
      return {
        partner_name: d.partnerName,
        partner_code: d.partnerCode,
        expires_at: d.expiresAt.toISOString(),
      } satisfies InviteDescriptionBody;
    }),
  );
  app.post(
    '/api/v1/partner/invites/:token',
    route(async (e) => {
      const { password } = validate(acceptInviteSchema, await body(e));
      const { partnerId } = await acceptPartnerInvite(ctx.deps(), bcryptHasher, inviteToken(e), password);
      return open(e, 'partner', partnerId);
    }),
  );
}

const SET_COOKIE = 'Sets the session cookie (HttpOnly, SameSite=Strict)';
const inviteToken = { token: z.string().meta({ description: 'The token of the invite link' }) };

const sessionOps = (
  base: string,
  tag: 'Admin' | 'Partner',
  security: 'operatorSession' | 'partnerSession',
  who: string,
  signIn: z.ZodType,
  signInErrors: Operation['errors'],
) => [
  defineOperation({
    method: 'post',
    path: base,
    operationId: `open${tag === 'Admin' ? 'Dashboard' : 'Partner'}Session`,
    summary: `Sign in ${who}`,
    tag,
    security: [],
    body: signIn,
    responses: { 201: { description: `Signed in. ${SET_COOKIE}`, schema: sessionBody } },
    errors: ['unauthorized', 'rate_limited', ...signInErrors],
  }),
  defineOperation({
    method: 'get',
    path: base,
    operationId: `get${tag === 'Admin' ? 'Dashboard' : 'Partner'}Session`,
    summary: `The current session ${who}`,
    tag,
    security: [security],
    responses: { 200: { description: 'The live session', schema: sessionBody } },
    errors: ['unauthorized'],
  }),
  defineOperation({
    method: 'delete',
    path: base,
    operationId: `close${tag === 'Admin' ? 'Dashboard' : 'Partner'}Session`,
    summary: `Sign out ${who}`,
    tag,
    security: [security],
    responses: { 200: { description: 'Signed out; the cookie is cleared', schema: signedOutBody } },
    errors: ['unauthorized', 'forbidden'],
  }),
];

export const sessionOperations = [
  ...sessionOps(
    '/api/v1/dashboard/session',
    'Admin',
    'operatorSession',
    'to the dashboard (the admin token, or a staff email and password, for a cookie)',
    operatorSignInSchema,
    [],
  ),
  ...sessionOps(
    '/api/v1/partner/session',
    'Partner',
    'partnerSession',
    'to the partner portal',
    partnerSignInSchema,
    [],
  ),
  defineOperation({
    method: 'get',
    path: '/api/v1/partner/invites/:token',
    operationId: 'describePartnerInvite',
    summary: 'What an invite link is for',
    tag: 'Partner',
    security: [],
    params: inviteToken,
    responses: {
      200: {
        description: 'The invited partner',
        schema: inviteDescriptionBody,
      },
    },
    errors: ['not_found'],
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/partner/invites/:token',
    operationId: 'acceptPartnerInvite',
    summary: 'Accept an invite: set the portal password and sign in',
    tag: 'Partner',
    security: [],
    params: inviteToken,
    body: acceptInviteSchema,
    responses: { 201: { description: `Password set, signed in. ${SET_COOKIE}`, schema: sessionBody } },
    errors: ['not_found'],
  }),
];
