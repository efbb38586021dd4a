import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { resolveCustomerDispute } from '../../core/refunds/resolve-customer-dispute.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { disputeResolutionToWire } from '../wire/customers.ts';
import type { AdminHelpers } from './admin-helpers.ts';

export const resolveDisputeSchema = z.strictObject({ click_id: z.string().trim().min(1).max(255) });

/** Customers: settling which click (and partner) a disputed customer belongs to. */
export function registerCustomerAdminRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/customers/:cid/resolve-dispute', async (e) => {
    const { click_id } = validate(resolveDisputeSchema, await body(e));
    return disputeResolutionToWire(await resolveCustomerDispute(ctx.deps(), num(e, 'id'), num(e, 'cid'), click_id));
  });
}

const id = z.number().int().positive();

export const customerAdminOperations = [
  adminOperation(
    'post',
    '/programs/:id/customers/:cid/resolve-dispute',
    'resolveCustomerDispute',
    'Settle which click a disputed customer belongs to',
    {
      params: { id, cid: id },
      body: resolveDisputeSchema,
      errors: ['not_found'],
      responses: {
        200: {
          description: "The customer now credited to the click's partner; held commissions released or reversed",
          schema: z.strictObject({
            customer_id: z.number().int(),
            click_id: z.string(),
            partner_id: z.number().int(),
            released_commission_ids: z
              .array(z.number().int())
              .meta({ description: 'Commissions of the winning partner, no longer held' }),
            reversed_commission_ids: z
              .array(z.number().int())
              .meta({ description: 'Commissions of the other partner, reversed' }),
          }),
        },
      },
    },
  ),
];
