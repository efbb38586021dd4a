import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { approveCommission } from '../../core/rewards/approve-commission.ts';
import { rejectHeldCommission, releaseHeldCommission } from '../../core/rewards/review-held-commission.ts';
import { reverseLeadCommission } from '../../core/refunds/reverse-lead-commission.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { row, rowToWire } from '../wire/records.ts';
import type { CommissionApprovedBody, LeadReversalBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { leadReversalSchema, reviewCommissionsSchema } from '../wire/requests.ts';
import { reviewCommissions } from '../../core/rewards/review-commissions.ts';
import { reviewResultsBody, reviewResultsToWire } from '../wire/commission-reviews.ts';

/**
 * Commissions: approval before the hold period ends; the decision on one held by fraud rules, or on
 * many at once (`POST /programs/:id/commissions/review`); the reversal of a reward per lead (paying
 * one: admin-payouts.ts).
 */
export function registerCommissionAdminRoutes(ctx: RouteContext, { on, num, body, emitting }: AdminHelpers): void {
  const decide = (path: string, use: typeof approveCommission) =>
    on(
      'post',
      `/programs/:id/commissions/:cid/${path}`,
      async (e) =>
        ({
          commission: rowToWire((await emitting((d) => use(d, num(e, 'id'), num(e, 'cid')))).commission),
        }) satisfies CommissionApprovedBody,
    );
  decide('approve', approveCommission);
  decide('release', releaseHeldCommission);
  decide('reject', rejectHeldCommission);
  on('post', '/programs/:id/commissions/review', async (e) => {
    const b = validate(reviewCommissionsSchema, await body(e));
    const r = await emitting((d) => reviewCommissions(d, num(e, 'id'), b.action, b.commission_ids));
    return reviewResultsToWire(b.action, r.results);
  });
  on('post', '/programs/:id/commissions/:cid/reverse', async (e) => {
    const input = validate(leadReversalSchema, await body(e));
    const r = await emitting((d) =>
      reverseLeadCommission(d, num(e, 'id'), num(e, 'cid'), {
        amountCents: input.amount_cents,
        reason: input.reason,
      }),
    );
    return r.kind === 'applied'
      ? {
          status: r.commission.status as 'refunded' | 'reversed',
          deduction_cents: r.deductionCents,
          balance_deduction_cents: r.balanceDeductionCents,
          commission: rowToWire(r.commission),
        }
      : ({ status: 'skipped', reason: r.reason, commission: rowToWire(r.commission) } satisfies LeadReversalBody);
  });
}

const id = z.number().int().positive();
const int = z.number().int();
const decided = (description: string) => ({
  params: { id, cid: id },
  errors: ['not_found' as const, 'invalid_request' as const],
  responses: { 200: { description, schema: z.strictObject({ commission: row }) } },
});

export const commissionAdminOperations = [
  adminOperation(
    'post',
    '/programs/:id/commissions/review',
    'reviewCommissions',
    'Approve or reject many commissions at once',
    {
      params: { id },
      body: reviewCommissionsSchema,
      description:
        "Each commission is decided as its single action would (`approve`: a commission held by fraud rules is released, any other approved; `reject`: a held one is reversed whole, final), in its own transaction: one refusal leaves the others decided. Each gets its result (`ok`, or the error the single action answers; another program's commission is `not_found`).",
      errors: ['not_found', 'invalid_request'],
      responses: { 200: { description: 'One result per commission, in the order given', schema: reviewResultsBody } },
    },
  ),
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
  adminOperation(
    'post',
    '/programs/:id/commissions/:cid/reverse',
    'reverseLeadCommission',
    'Reverse a reward per lead',
    {
      params: { id, cid: id },
      body: leadReversalSchema,
      description:
        'A reward per lead has no sale to refund: this reduces it (`refunded`) or reverses it whole (`reversed`) as a refund would, deducting from the partner balance when it was credited and notifying the partner (and the advertiser when it was paid out). A commission on a sale is reduced by refunding the sale instead (400). Already reversed: `skipped`, nothing changes.',
      errors: ['not_found', 'invalid_request'],
      responses: {
        200: {
          description: 'Applied or skipped',
          schema: z.union([
            z.strictObject({
              status: z.enum(['refunded', 'reversed']),
              deduction_cents: int,
              balance_deduction_cents: int.meta({
                description: 'Taken from the partner balance (0 when not credited yet)',
              }),
              commission: row,
            }),
            z.strictObject({ status: z.literal('skipped'), reason: z.string(), commission: row }),
          ]),
        },
      },
    },
  ),
];
