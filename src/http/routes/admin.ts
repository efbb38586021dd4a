import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/errors.ts';
import { Program } from '../../core/entities/program.ts';
import {
  createPartner,
  createProgram,
  partnerCreateSchema,
  programCreateSchema,
  programToJson,
  programUpdateSchema,
  updateProgram,
} from '../../core/programs.ts';
import { issueApiKey, retireApiKey, rotateApiKey } from '../../core/api-keys.ts';
import { LISTABLE, isListableKind, listRecords, toWire } from '../../core/list-records.ts';
import { resolveCustomerDispute } from '../../core/resolve-customer-dispute.ts';
import { approveCommission } from '../../core/approve-commission.ts';
import { resetWebhookEventsForReplay } from '../../core/webhook-inbox.ts';
import { buildWebhookJob } from '../../core/jobs/webhook-job.ts';
import { webhookJobOptions } from '../../queue/job-options.ts';
import { readJson } from '../read-json.ts';
import { route, json } from '../route.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { MAX_ROW_ID, rowId, validate } from '../validate.ts';
import { requireOperator } from '../session-auth.ts';
import { registerProviderSecretRoutes } from './admin-provider-secrets.ts';
import { registerPayoutAdminRoutes } from './admin-payouts.ts';

export const keyIssueSchema = z.strictObject({ mode: z.enum(['live', 'test']).default('live') });
export const keyRetireSchema = z.strictObject({ rotate_by: z.iso.datetime({ offset: true }).nullable().optional() });
export const keyRotateSchema = z.strictObject({ grace_days: z.number().int().min(0).max(365).default(7) });
export const withdrawalSchema = z.strictObject({
  currency: z.enum(['USD', 'EUR', 'VND']),
  amount_cents: z.number().int().positive(),
});
export const resolveDisputeSchema = z.strictObject({ click_id: z.string().trim().min(1).max(255) });
export const replaySchema = z.strictObject({ id: rowId.optional() });
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z
    .string()
    .regex(/^[a-z_]{1,32}$/, 'status is a lower-case word')
    .optional(),
  provider: z
    .string()
    .regex(/^[a-z_]{1,32}$/, 'provider is a lower-case word')
    .optional(),
  partner_id: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
});

/** The admin API, guarded by the ADMIN_TOKEN bearer or the dashboard's operator session. */
export function registerAdminRoutes(app: H3, ctx: RouteContext): void {
  const P = '/api/v1/admin';
  const body = async (event: H3Event) =>
    event.req.headers.get('content-length') === '0' ? {} : readJson(event, ctx.config.BODY_LIMIT_BYTES);
  const num = (event: H3Event, name: string) => {
    const v = Number(event.context.params?.[name]);
    if (!Number.isSafeInteger(v) || v <= 0 || v > MAX_ROW_ID)
      throw new AppError('invalid_request', `${name} must be a positive integer`);
    return v;
  };
  const on = (
    method: 'get' | 'post' | 'patch' | 'put' | 'delete',
    path: string,
    fn: (e: H3Event) => Promise<object | Response>,
  ) =>
    app[method](
      `${P}${path}`,
      route(ctx, async (e) => {
        await requireOperator(ctx, e);
        return fn(e);
      }),
    );

  on('post', '/programs', async (e) =>
    json(
      { program: programToJson(await createProgram(ctx.deps(), validate(programCreateSchema, await body(e)))) },
      201,
    ),
  );
  on('get', '/programs', async () => ({
    programs: (await ctx.db.em.fork().find(Program, {}, { orderBy: { id: 'asc' } })).map(programToJson),
  }));
  on('get', '/programs/:id', async (e) => {
    const p = await ctx.db.em.fork().findOne(Program, { id: num(e, 'id') });
    if (!p) throw new AppError('not_found', 'No such program');
    return { program: programToJson(p) };
  });
  on('patch', '/programs/:id', async (e) => {
    const program = await updateProgram(ctx.deps(), num(e, 'id'), validate(programUpdateSchema, await body(e)));
    // The API-key cache holds each key's program rate limit: a change takes effect at once here.
    ctx.keyCache.clear();
    return { program: programToJson(program) };
  });

  on('post', '/programs/:id/keys', async (e) => {
    const { mode } = validate(keyIssueSchema, await body(e));
    const k = await issueApiKey(ctx.deps(), num(e, 'id'), mode);
    return json(
      { id: k.id, key: k.key, prefix: k.prefix, mode: k.mode, note: 'Store this key now; it is not shown again.' },
      201,
    );
  });
  on('post', '/programs/:id/keys/:keyId/retire', async (e) => {
    const { rotate_by } = validate(keyRetireSchema, await body(e));
    const k = await retireApiKey(ctx.deps(), num(e, 'id'), num(e, 'keyId'), rotate_by ? new Date(rotate_by) : null);
    ctx.keyCache.clear();
    return { key: toWire(k) };
  });
  on('post', '/programs/:id/keys/:keyId/rotate', async (e) => {
    const { grace_days } = validate(keyRotateSchema, await body(e));
    const r = await rotateApiKey(ctx.deps(), num(e, 'id'), num(e, 'keyId'), grace_days);
    ctx.keyCache.clear();
    return json(
      {
        id: r.id,
        key: r.key,
        prefix: r.prefix,
        mode: r.mode,
        retired_key_id: r.retiredKeyId,
        rotate_by: r.rotateBy?.toISOString() ?? null,
      },
      201,
    );
  });
  on('post', '/programs/:id/partners', async (e) =>
    json(
      { partner: toWire(await createPartner(ctx.deps(), num(e, 'id'), validate(partnerCreateSchema, await body(e)))) },
      201,
    ),
  );
  on('post', '/programs/:id/customers/:cid/resolve-dispute', async (e) => {
    const { click_id } = validate(resolveDisputeSchema, await body(e));
    const r = await resolveCustomerDispute(ctx.deps(), num(e, 'id'), num(e, 'cid'), click_id);
    return {
      customer_id: r.customerId,
      click_id: r.clickId,
      partner_id: r.partnerId,
      released_commission_ids: r.releasedCommissionIds,
      reversed_commission_ids: r.reversedCommissionIds,
    };
  });
  on('post', '/programs/:id/commissions/:cid/approve', async (e) => ({
    commission: toWire(await approveCommission(ctx.deps(), num(e, 'id'), num(e, 'cid'))),
  }));
  registerPayoutAdminRoutes(ctx, { on, num, body });
  registerProviderSecretRoutes(on, ctx, { body, num });
  on('post', '/programs/:id/webhook-events/replay', async (e) => {
    const { id } = validate(replaySchema, await body(e));
    const ids = await resetWebhookEventsForReplay(ctx.deps(), num(e, 'id'), id);
    for (const inboxId of ids) {
      await ctx.queue.add(
        'webhook',
        buildWebhookJob(inboxId),
        webhookJobOptions(ctx.config, inboxId, { kind: 'replay', at: Date.now() }),
      );
    }
    return { replayed: ids };
  });
  on('get', '/programs/:id/:list', async (e) => {
    const kind = e.context.params?.list;
    if (!isListableKind(kind))
      throw new AppError('not_found', `Unknown list; one of: ${Object.keys(LISTABLE).join(', ')}`);
    const q = validate(listQuerySchema, Object.fromEntries(e.url.searchParams));
    return {
      [kind]: await listRecords(ctx.deps(), num(e, 'id'), kind, {
        limit: q.limit,
        offset: q.offset,
        status: q.status,
        provider: q.provider,
        partnerId: q.partner_id,
      }),
    };
  });
}

/** A stored row as the admin API shows it: snake_case columns, dates as ISO strings, secrets left out. */
const row = z.looseObject({
  id: z.union([z.number().int(), z.string()]).meta({ description: 'Integer, or the click id for clicks' }),
});
const programJson = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  domain: z.string().nullable(),
  commission_rate_bps: z.number().int(),
  product_rates_bps: z.record(z.string(), z.number().int()).nullable(),
  cookie_duration_days: z.number().int(),
  attribution_window_days: z.number().int(),
  hold_period_days: z.number().int(),
  recurring_policy: z.string(),
  recurring_months: z.number().int().nullable(),
  rate_limit_per_minute: z.number().int(),
  platform_fee_bps: z.number().int(),
  created_at: z.iso.datetime(),
});
const programBody = z.strictObject({ program: programJson });
const issuedKey = {
  id: z.number().int(),
  key: z.string().meta({ description: 'Shown once' }),
  prefix: z.string(),
  mode: z.enum(['live', 'test']),
};
const id = z.number().int().positive();

export const adminOperations = [
  adminOperation('post', '/programs', 'createProgram', 'Create a program', {
    body: programCreateSchema,
    responses: { 201: { description: 'Created', schema: programBody } },
  }),
  adminOperation('get', '/programs', 'listPrograms', 'List programs', {
    responses: { 200: { description: 'Programs', schema: z.strictObject({ programs: z.array(programJson) }) } },
  }),
  adminOperation('get', '/programs/:id', 'getProgram', 'A program', {
    params: { id },
    responses: { 200: { description: 'The program', schema: programBody } },
    errors: ['not_found'],
  }),
  adminOperation('patch', '/programs/:id', 'updateProgram', "Change a program's settings", {
    params: { id },
    body: programUpdateSchema,
    responses: { 200: { description: 'Updated', schema: programBody } },
    errors: ['not_found'],
  }),
  adminOperation('post', '/programs/:id/keys', 'issueApiKey', 'Issue an API key (shown once)', {
    params: { id },
    body: keyIssueSchema,
    bodyOptional: true,
    errors: ['not_found'],
    responses: { 201: { description: 'Issued', schema: z.strictObject({ ...issuedKey, note: z.string() }) } },
  }),
  adminOperation(
    'post',
    '/programs/:id/keys/:keyId/retire',
    'retireApiKey',
    'Retire a key, at once or after `rotate_by`',
    {
      params: { id, keyId: id },
      body: keyRetireSchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: { 200: { description: 'Retired', schema: z.strictObject({ key: row }) } },
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/keys/:keyId/rotate',
    'rotateApiKey',
    'Issue a replacement key; the old one keeps working for `grace_days`',
    {
      params: { id, keyId: id },
      body: keyRotateSchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: {
        201: {
          description: 'Rotated',
          schema: z.strictObject({
            ...issuedKey,
            retired_key_id: z.number().int(),
            rotate_by: z.iso.datetime().nullable(),
          }),
        },
      },
    },
  ),
  adminOperation('post', '/programs/:id/partners', 'createPartner', 'Add a partner', {
    params: { id },
    body: partnerCreateSchema,
    errors: ['not_found', 'duplicate_transaction'],
    responses: { 201: { description: 'Created', schema: z.strictObject({ partner: row }) } },
  }),
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
  adminOperation(
    'post',
    '/programs/:id/webhook-events/replay',
    'replayWebhookEvents',
    'Replay one inbox row, or every failed one',
    {
      params: { id },
      body: replaySchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: {
        200: {
          description: 'Rows put back to pending',
          schema: z.strictObject({ replayed: z.array(z.number().int()) }),
        },
      },
    },
  ),
  adminOperation('get', '/programs/:id/:list', 'listRecords', "List a program's records (newest first)", {
    params: { id, list: z.enum(Object.keys(LISTABLE) as [keyof typeof LISTABLE]) },
    query: listQuerySchema,
    errors: ['not_found', 'invalid_request'],
    responses: {
      200: {
        description: "One page of the list, under the list's name",
        schema: z.partialRecord(z.enum(Object.keys(LISTABLE) as [keyof typeof LISTABLE]), z.array(row)),
      },
    },
  }),
];
