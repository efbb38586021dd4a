import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { createPartner } from '../../core/programs.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { partnerCreateSchema } from '../wire/partners.ts';
import { row, rowToWire } from '../wire/records.ts';
import type { PartnerCreatedBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/** Adds a partner to a program (payouts, statements and invites: admin-payouts.ts, admin-dashboard.ts). */
export function registerPartnerAdminRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/partners', async (e) =>
    json(
      {
        partner: rowToWire(await createPartner(ctx.deps(), num(e, 'id'), validate(partnerCreateSchema, await body(e)))),
      } satisfies PartnerCreatedBody,
      201,
    ),
  );
}

const id = z.number().int().positive();

export const partnerAdminOperations = [
  adminOperation('post', '/programs/:id/partners', 'createPartner', 'Add a partner', {
    params: { id },
    body: partnerCreateSchema,
    errors: ['not_found', 'duplicate_transaction'],
    responses: { 201: { description: 'Created', schema: z.strictObject({ partner: row }) } },
  }),
];
