import { isDisposableEmail } from '../../core/rewards/fraud-rules.ts';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { buildLeadJob } from '../../core/jobs/lead-job.ts';
import { keyWarnings, keyWarningsSchema, requireApiKey } from '../auth.ts';
import { readJson } from '../read-json.ts';
import { route, runJob } from '../route.ts';
import { validate } from '../validate.ts';
import { trackTestEvent } from './track-test.ts';
import { defineOperation } from '../openapi/operation.ts';
import { testModeResponseSchema } from './track-sale.ts';

const id = z.string().trim().min(1).max(255);
/** Fields shared by the keyed lead and the keyless browser lead. */
export const leadFields = {
  customer_key: id.nullable().optional(),
  email: z.string().trim().max(320).nullable().optional(),
  click_id: id.nullable().optional(),
  event_name: z.string().trim().max(100).nullable().optional(),
  additional_data: z.record(z.string(), z.unknown()).nullable().optional(),
  visitor_id: z.string().max(255).nullable().optional(),
};
export const leadIdField = id;
const atLeastOne = (b: { customer_key?: string | null; click_id?: string | null }) => !!(b.customer_key || b.click_id);
const oneMsg = { message: 'customer_key or click_id is required', path: ['customer_key'] };
export const serverLeadSchema = z.strictObject(leadFields).refine(atLeastOne, oneMsg);

/**
 * POST /api/v1/track/lead: bearer key only (spec, Authentication rules 1 and 3: a missing or
 * malformed header is 401 `unauthorized`). Keyless browser leads use /api/v1/track/browser-lead.
 */
export function trackLeadRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx)], async (event) => {
    const auth = event.context.apiKey!;
    const body = validate(serverLeadSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    if (auth.mode === 'test') {
      // Test traffic never touches production data: a test key's lead is a test event.
      return {
        ...(await trackTestEvent(ctx, auth.programId, {
          lead: {
            customer_key: body.customer_key ?? null,
            click_id: body.click_id ?? null,
            event_name: body.event_name ?? null,
          },
        })),
        ...keyWarnings(auth),
      };
    }
    return { ...(await recordLead(ctx, auth.programId, body, { browser: false })), ...keyWarnings(auth) };
  });
}

/**
 * A live lead, keyed or from the browser (`browser`: never rebinds an existing customer), run and
 * answered the same way by both routes.
 */
export async function recordLead(
  ctx: RouteContext,
  programId: number,
  body: z.infer<typeof serverLeadSchema>,
  { browser }: { browser: boolean },
) {
  const job = buildLeadJob({
    programId,
    customerKey: body.customer_key ?? null,
    clickId: body.click_id ?? null,
    emailHash: ctx.hashEmail(body.email),
    emailDisposable: isDisposableEmail(body.email),
    eventName: body.event_name,
    additionalData: body.additional_data,
    browser,
    receivedAt: ctx.clock().toISOString(),
  });
  const r = await runJob(ctx, job);
  return {
    success: true as const,
    customer_id: r.customerId,
    customer_key: r.customerKey,
    click_id: r.clickId,
    commission_id: r.commissionId,
  };
}

export const leadResponseSchema = z.strictObject({
  success: z.literal(true),
  customer_id: z.number().int(),
  customer_key: z.string().nullable(),
  click_id: z.string().nullable(),
  commission_id: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The reward per lead this lead earned (the program rules have a `lead` reward), else null' }),
  warnings: keyWarningsSchema,
});

export const trackLeadOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/lead',
  operationId: 'trackLead',
  tag: 'Tracking',
  security: ['apiKey'],
  summary: 'Bind your customer id to a click (signup)',
  description:
    'At least one of `customer_key` and `click_id`. The email is hashed on the server and never stored. With a test key the lead is a test event.',
  body: serverLeadSchema,
  bodyExample: { customer_key: 'user_42', click_id: '5b0c6f0e-1d2a-4c1b-9d8e-3f1a2b3c4d5e', email: 'jane@example.com' },
  responses: {
    200: {
      description: 'Bound (or, with a test key, recorded as a test event)',
      schema: z.union([leadResponseSchema, testModeResponseSchema]),
    },
  },
  errors: [
    'unauthorized',
    'api_key_rotation_required',
    'not_found',
    'no_attribution',
    'rate_limited',
    'service_unavailable',
  ],
});
