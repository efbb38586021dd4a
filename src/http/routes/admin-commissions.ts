import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { approveCommission } from '../../core/approve-commission.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { row, rowToWire } from '../wire/records.ts';
import type { CommissionApprovedBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/** Commissions: approval before the hold period ends (paying one: admin-payouts.ts). */
export function registerCommissionAdminRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  on(
    'post',
    '/programs/:id/commissions/:cid/approve',
    async (e) =>
      ({
        commission: rowToWire(await approveCommission(ctx.deps(), num(e, 'id'), num(e, 'cid'))),
      }) satisfies CommissionApprovedBody,
  );
}

const id = z.number().int().positive();

export const commissionAdminOperations = [
  adminOperation(
    'post',
    '/programs/:id/commissions/:cid/approve',
    'approveCommission',
    'Approve a commission before its hold period ends',
    {
      params: { id, cid: id },
      errors: ['not_found'],
      responses: { 200: { description: 'Approved', schema: z.strictObject({ commission: row }) } },
    },
  ),
];
