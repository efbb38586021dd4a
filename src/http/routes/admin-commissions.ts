import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { approveCommission } from '../../core/approve-commission.ts';
import { rejectHeldCommission, releaseHeldCommission } from '../../core/review-held-commission.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { row, rowToWire } from '../wire/records.ts';
import type { CommissionApprovedBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/**
 * Commissions: approval before the hold period ends; the decision on one held by fraud rules
 * (paying one: admin-payouts.ts).
 */
export function registerCommissionAdminRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  const decide = (path: string, use: typeof approveCommission) =>
    on(
      'post',
      `/programs/:id/commissions/:cid/${path}`,
      async (e) =>
        ({
          commission: rowToWire(await use(ctx.deps(), num(e, 'id'), num(e, 'cid'))),
        }) satisfies CommissionApprovedBody,
    );
  decide('approve', approveCommission);
  decide('release', releaseHeldCommission);
  decide('reject', rejectHeldCommission);
}

const id = z.number().int().positive();
const decided = (description: string) => ({
  params: { id, cid: id },
  errors: ['not_found' as const, 'invalid_request' as const],
  responses: { 200: { description, schema: z.strictObject({ commission: row }) } },
});

export const commissionAdminOperations = [
  adminOperation(
    'post',
    '/programs/:id/commissions/:cid/approve',
    'approveCommission',
    'Approve a commission before its hold period ends',
    { ...decided('Approved'), description: 'A commission held by fraud rules is released or rejected instead.' },
  ),
  adminOperation(
    'post',
    '/programs/:id/commissions/:cid/release',
    'releaseHeldCommission',
    'Release a held commission',
    {
      ...decided('Released and credited'),
      description:
        'A commission held by fraud rules (`hold`) is credited to the partner balance at once, exactly once; the hold record keeps `released_at`.',
    },
  ),
  adminOperation('post', '/programs/:id/commissions/:cid/reject', 'rejectHeldCommission', 'Reject a held commission', {
    ...decided('Rejected'),
    description:
      'A commission held by fraud rules is reversed whole (`reason` names the rules); it was never credited, so no balance moves.',
  }),
];
