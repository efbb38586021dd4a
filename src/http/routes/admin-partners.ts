import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { createPartner } from '../../core/programs/programs.ts';
import { createPartnerCode, disablePartnerCode } from '../../core/attribution/partner-codes.ts';
import { assignPartnerGroup, createPartnerGroup, updatePartnerGroup } from '../../core/rewards/partner-groups.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import {
  partnerCodeCreateSchema,
  partnerCreateSchema,
  partnerGroupAssignSchema,
  partnerGroupCreateSchema,
  partnerGroupUpdateSchema,
} from '../wire/partners.ts';
import { row, rowToWire } from '../wire/records.ts';
import type { PartnerCodeBody, PartnerCreatedBody, PartnerGroupBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/**
 * Adds a partner to a program, partners' coupon codes (listed as `partner-codes`) and partner
 * groups with their reward rules (listed as `partner-groups`); payouts,
 * statements and invites: admin-payouts.ts, admin-dashboard.ts.
 */
export function registerPartnerAdminRoutes(ctx: RouteContext, { on, num, body, emitting }: AdminHelpers): void {
  on('post', '/programs/:id/partners', async (e) => {
    const input = validate(partnerCreateSchema, await body(e));
    const { partner } = await emitting((d) => createPartner(d, num(e, 'id'), input));
    return json({ partner: rowToWire(partner) } satisfies PartnerCreatedBody, 201);
  });
  on('post', '/programs/:id/partners/:partnerId/codes', async (e) => {
    const input = validate(partnerCodeCreateSchema, await body(e));
    const code = await createPartnerCode(ctx.deps(), num(e, 'id'), num(e, 'partnerId'), {
      code: input.code,
      providerIds: input.provider_ids,
    });
    return json({ code: rowToWire(code) } satisfies PartnerCodeBody, 201);
  });
  on('post', '/programs/:id/partner-groups', async (e) => {
    const input = validate(partnerGroupCreateSchema, await body(e));
    const group = await createPartnerGroup(ctx.deps(), num(e, 'id'), {
      name: input.name,
      rewardRules: input.reward_rules ?? null,
    });
    return json({ group: rowToWire(group) } satisfies PartnerGroupBody, 201);
  });
  on('patch', '/programs/:id/partner-groups/:groupId', async (e) => {
    const input = validate(partnerGroupUpdateSchema, await body(e));
    const group = await updatePartnerGroup(ctx.deps(), num(e, 'id'), num(e, 'groupId'), {
      name: input.name,
      rewardRules: input.reward_rules,
    });
    return { group: rowToWire(group) } satisfies PartnerGroupBody;
  });
  on('put', '/programs/:id/partners/:partnerId/group', async (e) => {
    const { group_id } = validate(partnerGroupAssignSchema, await body(e));
    const partner = await assignPartnerGroup(ctx.deps(), num(e, 'id'), num(e, 'partnerId'), group_id);
    return { partner: rowToWire(partner) } satisfies PartnerCreatedBody;
  });
  on(
    'post',
    '/programs/:id/partner-codes/:codeId/disable',
    async (e) =>
      ({
        code: rowToWire(await disablePartnerCode(ctx.deps(), num(e, 'id'), num(e, 'codeId'))),
      }) satisfies PartnerCodeBody,
  );
}

const id = z.number().int().positive();
const codeResponse = z.strictObject({ code: row });
const groupResponse = z.strictObject({ group: row });

export const partnerAdminOperations = [
  adminOperation('post', '/programs/:id/partners', 'createPartner', 'Add a partner', {
    params: { id },
    body: partnerCreateSchema,
    errors: ['not_found', 'duplicate_transaction'],
    responses: { 201: { description: 'Created', schema: z.strictObject({ partner: row }) } },
  }),
  adminOperation(
    'post',
    '/programs/:id/partners/:partnerId/codes',
    'createPartnerCode',
    'Give a partner a coupon code',
    {
      params: { id, partnerId: id },
      body: partnerCodeCreateSchema,
      description:
        "A sale carrying the code (the sale API's `coupon_code`, or the code or discount id in a provider payment) is attributed to the partner when no click attributes it, or always under the program's `coupon_precedence` `coupon`. Codes match in any case; `provider_ids` match exactly. A code, or a provider id of an active code, can belong to one code of the program only.",
      errors: ['not_found', 'invalid_request'],
      responses: { 201: { description: 'Created', schema: codeResponse } },
    },
  ),
  adminOperation('post', '/programs/:id/partner-groups', 'createPartnerGroup', 'Add a partner group', {
    params: { id },
    body: partnerGroupCreateSchema,
    description:
      "A group's reward rules replace the program's for its partners (null: the program's rules). Commissions already recorded keep the rule they were computed with.",
    errors: ['not_found', 'invalid_request'],
    responses: { 201: { description: 'Created', schema: groupResponse } },
  }),
  adminOperation(
    'patch',
    '/programs/:id/partner-groups/:groupId',
    'updatePartnerGroup',
    'Rename a group or change its rules',
    {
      params: { id, groupId: id },
      body: partnerGroupUpdateSchema,
      errors: ['not_found', 'invalid_request'],
      responses: { 200: { description: 'Changed', schema: groupResponse } },
    },
  ),
  adminOperation('put', '/programs/:id/partners/:partnerId/group', 'assignPartnerGroup', "Set a partner's group", {
    params: { id, partnerId: id },
    body: partnerGroupAssignSchema,
    description: "`group_id` null: no group (the program's rules). A partner belongs to one group at most.",
    errors: ['not_found'],
    responses: { 200: { description: 'Moved', schema: z.strictObject({ partner: row }) } },
  }),
  adminOperation('post', '/programs/:id/partner-codes/:codeId/disable', 'disablePartnerCode', 'Retire a coupon code', {
    params: { id, codeId: id },
    description:
      'Sales carrying the code are no longer attributed by it; sales it attributed keep their partner. The code stays taken.',
    errors: ['not_found'],
    responses: { 200: { description: 'Retired', schema: codeResponse } },
  }),
];
