import type { H3Event, Middleware } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { roleAllows, type Permission } from '../core/shared/staff-roles.ts';
import { findStaffRole } from '../core/staff/staff-access.ts';

/**
 * The permission each admin route requires, keyed `method path` (the path under /api/v1/admin).
 * The one table: a route registered without an entry fails at start (admin-helpers.ts `on`), and
 * test/api/staff-roles.test.ts calls every entry with every role.
 */
export const ADMIN_ROUTE_PERMISSIONS = {
  'post /programs': 'operator',
  'get /programs': 'signed_in',
  'get /programs/:id': 'read',
  'patch /programs/:id': 'manage',
  'post /programs/:id/keys': 'manage',
  'post /programs/:id/keys/:keyId/retire': 'manage',
  'post /programs/:id/keys/:keyId/rotate': 'manage',
  'post /programs/:id/partners': 'manage',
  'post /programs/:id/partners/:partnerId/codes': 'manage',
  'post /programs/:id/partner-groups': 'manage',
  'patch /programs/:id/partner-groups/:groupId': 'manage',
  'put /programs/:id/partners/:partnerId/group': 'manage',
  'post /programs/:id/partner-codes/:codeId/disable': 'manage',
  'post /programs/:id/rules/preview': 'read',
  'post /programs/:id/ledger/verify': 'read',
  'get /programs/:id/ledger/verification': 'read',
  'get /programs/:id/exports/:kind': 'read',
  'post /programs/:id/customers/:cid/resolve-dispute': 'manage',
  'post /programs/:id/commissions/:cid/approve': 'manage',
  'post /programs/:id/commissions/:cid/release': 'manage',
  'post /programs/:id/commissions/:cid/reject': 'manage',
  'post /programs/:id/commissions/:cid/reverse': 'manage',
  'get /programs/:id/providers/:provider': 'read',
  'patch /programs/:id/providers/:provider': 'manage',
  'put /programs/:id/providers/:provider': 'manage',
  'post /programs/:id/providers/:provider/secrets': 'manage',
  'get /programs/:id/providers/:provider/secrets': 'manage',
  'post /programs/:id/providers/:provider/secrets/:secretId/expire': 'manage',
  'delete /programs/:id/providers/:provider/secrets/:secretId': 'manage',
  'post /sealed-secrets/reseal': 'operator',
  'post /programs/:id/webhook-events/replay': 'manage',
  'get /programs/:id/webhook-events/:eventId': 'read',
  'post /programs/:id/event-endpoints': 'manage',
  'get /programs/:id/event-endpoints': 'read',
  'patch /programs/:id/event-endpoints/:endpointId': 'manage',
  'post /programs/:id/event-endpoints/:endpointId/rotate-secret': 'manage',
  'post /programs/:id/event-endpoints/:endpointId/expire-old-secret': 'manage',
  'get /programs/:id/event-endpoints/:endpointId/deliveries': 'read',
  'post /programs/:id/event-deliveries/:deliveryId/replay': 'manage',
  'get /programs/:id/:list': 'read',
  'get /programs/:id/stats': 'read',
  'get /programs/:id/stats/check': 'read',
  'get /programs/:id/stats/commissions': 'read',
  'post /programs/:id/imports': 'manage',
  'get /programs/:id/imports': 'read',
  'get /programs/:id/imports/:importId': 'read',
  'post /programs/:id/mcp-tokens': 'manage',
  'get /programs/:id/mcp-tokens': 'manage',
  'post /programs/:id/mcp-tokens/:tokenId/revoke': 'manage',
  'post /statement-keys/rotate': 'operator',
  'get /currencies': 'signed_in',
  'get /programs/:id/payout-runs/preview': 'read',
  'post /programs/:id/commissions/review': 'manage',
  'get /programs/:id/application-form': 'read',
  'put /programs/:id/application-form': 'manage',
  'get /programs/:id/applications': 'read',
  'post /programs/:id/applications/approve': 'manage',
  'post /programs/:id/applications/reject': 'manage',
  'get /programs/:id/email-settings': 'read',
  'put /programs/:id/email-settings': 'manage',
  'post /programs/:id/partners/:partnerId/invites': 'manage',
  'post /programs/:id/partners/:partnerId/payouts': 'payouts',
  'post /programs/:id/payouts/:payoutId/pay': 'payouts',
  'post /programs/:id/payouts/:payoutId/cancel': 'payouts',
  'get /programs/:id/payouts/:payoutId': 'read',
  'post /programs/:id/commissions/:cid/pay': 'payouts',
  'get /programs/:id/partners/:partnerId/statement': 'read',
  'get /programs/:id/partners/:partnerId/account': 'read',
  'post /programs/:id/payout-runs': 'payouts',
  'get /programs/:id/payout-runs/:runId': 'read',
  'get /programs/:id/payout-runs/:runId/file': 'payouts',
  'post /programs/:id/payout-runs/:runId/transfers': 'payouts',
  'post /programs/:id/payout-runs/:runId/confirm': 'payouts',
  'post /programs/:id/payouts/:payoutId/confirm': 'payouts',
  'post /programs/:id/payouts/:payoutId/fail': 'payouts',
  'get /programs/:id/partners/:partnerId/payout-method': 'payouts',
  'get /programs/:id/staff': 'staff',
  'post /programs/:id/staff': 'staff',
  'patch /programs/:id/staff/:userId': 'staff',
  'delete /programs/:id/staff/:userId': 'staff',
  'get /programs/:id/audit': 'audit',
  'get /programs/:id/audit/export': 'audit',
  'get /me': 'signed_in',
  'post /me/totp': 'signed_in',
  'post /me/totp/confirm': 'signed_in',
  'get /me/tokens': 'signed_in',
  'post /me/tokens': 'signed_in',
  'post /me/tokens/:tokenId/revoke': 'signed_in',
} as const satisfies Record<string, Permission>;

/** Writes that change nothing (a preview): not audited. */
export const UNAUDITED_WRITES: ReadonlySet<string> = new Set(['post /programs/:id/rules/preview']);

/** The permission of a route, else a start-up failure naming it. */
export function routePermission(method: string, path: string): Permission {
  const p = (ADMIN_ROUTE_PERMISSIONS as Record<string, Permission>)[`${method} ${path}`];
  if (!p) throw new Error(`admin route ${method} ${path} has no entry in ADMIN_ROUTE_PERMISSIONS`);
  return p;
}

/**
 * Route middleware after `requireOperator`: the caller must hold `permission`. The operator
 * passes everywhere; a staff user by their role in the route's program (`:id`), read from the
 * database on every call, and with a token also by the token's program and role.
 * @throws AppError `forbidden` (403).
 */
export function requirePermission(ctx: RouteContext, permission: Permission): Middleware {
  return async (event) => {
    const caller = event.context.admin;
    if (!caller) throw new AppError('unauthorized', 'Sign in first');
    if (caller.kind === 'operator' || permission === 'signed_in') return;
    if (permission === 'operator') throw forbidden('Only the operator (ADMIN_TOKEN) may do this');
    const programId = routeProgramId(event);
    if (programId === null) throw forbidden('This route needs a program');
    const role = await findStaffRole(ctx.deps(), caller.staffUserId, programId);
    if (!role || !roleAllows(role, permission)) throw forbidden(`Your role does not allow ${permission} here`);
    if (caller.token && (caller.token.programId !== programId || !roleAllows(caller.token.role, permission)))
      throw forbidden(`This token does not allow ${permission} here`);
  };
}

/** The program id of the route's `:id`, or null (no such parameter, or not a number). */
export function routeProgramId(event: H3Event): number | null {
  const v = Number(event.context.params?.id);
  return Number.isSafeInteger(v) && v > 0 ? v : null;
}

const forbidden = (message: string) => new AppError('forbidden', message, { reason: 'role' });
