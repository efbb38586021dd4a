import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { DAY_MS } from '../../core/deps.ts';
import { SALE_PROVIDERS, SALE_TYPES, SUBSCRIPTION_INTERVALS } from '../../core/shared/vocabulary.ts';
import { buildSaleJob } from '../../core/jobs/sale-job.ts';
import type { SaleResult } from '../../core/sales/record-sale.ts';
import { keyWarnings, keyWarningsSchema, requireApiKey } from '../auth.ts';
import { readJson } from '../read-json.ts';
import { route, runJob } from '../route.ts';
import { validate } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';

const id = z.string().trim().min(1).max(255);
export const saleSchema = z.strictObject({
  transaction_id: id.optional(),
  amount_cents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  tax_cents: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
  customer_key: id.nullable().optional(),
  click_id: id.nullable().optional(),
  currency: z.string().trim().min(1).max(16).default('USD'),
  sale_type: z.enum(SALE_TYPES).default('payment'),
  line_items: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .nullable()
    .optional(),
  is_recurring: z.boolean().default(false),
  subscription_id: id.nullable().optional(),
  subscription_interval: z.enum(SUBSCRIPTION_INTERVALS).nullable().optional(),
  product_id: id.nullable().optional(),
  occurred_at: z.iso.datetime({ offset: true }).nullable().optional(),
  provider: z.enum(SALE_PROVIDERS).nullable().optional(),
  provider_payment_id: z.string().min(1).max(255).nullable().optional(),
  livemode: z.boolean().optional(),
  // Free-form, except `test_mode`: a boolean (a string "true" must not record a live sale).
  additional_data: z
    .looseObject({ test_mode: z.boolean({ error: 'additional_data.test_mode must be a boolean' }).optional() })
    .nullable()
    .optional(),
  event_name: z.string().max(100).nullable().optional(),
  // Extension: a partner's coupon code used on this sale; attributes it when no click does.
  coupon_code: z.string().trim().min(1).max(100).nullable().optional(),
  // Extension (x402's `X-Referral`; bind-referral.ts): an unknown code binds nothing and never fails the sale.
  referral_code: z.string().trim().min(1).max(255).nullable().optional().meta({
    description:
      'The partner referral code the payment came with: binds `customer_key` to its partner when no click attributes the sale; an unknown code binds nothing',
  }),
  referral_url: z
    .string()
    .max(2048)
    .nullable()
    .optional()
    .meta({ description: 'Where the referred request was made; recorded as the referral click’s link' }),
  // Sent by the server client's trackSale; not used (the lead keeps the email, hashed).
  email: z.string().max(320).nullable().optional(),
});

const MAX_FUTURE_MS = 5 * 60_000;

/** POST /api/v1/track/sale */
export function trackSaleRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx)], async (event) => {
    const auth = event.context.apiKey!;
    const body = validate(saleSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    const now = ctx.clock();
    const test = auth.mode === 'test' || body.livemode === false || body.additional_data?.test_mode === true;
    if (!test && !body.transaction_id)
      throw new AppError('invalid_request', 'transaction_id is required and must be a string', {
        field: 'transaction_id',
      });
    if (!test && !body.amount_cents)
      throw new AppError('invalid_request', 'amount_cents is required and must be a positive integer', {
        field: 'amount_cents',
      });
    if (body.occurred_at) {
      const at = Date.parse(body.occurred_at);
      if (at < now.getTime() - 30 * DAY_MS || at > now.getTime() + MAX_FUTURE_MS) {
        throw new AppError(
          'invalid_request',
          'occurred_at must be at most 30 days in the past and 5 minutes in the future',
          { field: 'occurred_at' },
        );
      }
    }
    const job = buildSaleJob({
      origin: 'api',
      programId: auth.programId,
      test,
      transactionId: body.transaction_id ?? null,
      amountCents: body.amount_cents ?? null,
      taxCents: body.tax_cents,
      currency: body.currency,
      saleType: body.sale_type,
      lineItems: body.line_items,
      isRecurring: body.is_recurring,
      subscriptionId: body.subscription_id,
      subscriptionInterval: body.subscription_interval,
      productId: body.product_id,
      occurredAt: body.occurred_at,
      provider: body.provider,
      providerPaymentId: body.provider_payment_id,
      customerKey: body.customer_key,
      clickId: body.click_id,
      couponCodes: body.coupon_code ? [body.coupon_code] : null,
      referralCode: body.referral_code ?? undefined,
      referralUrl: body.referral_url ?? undefined,
      additionalData: body.additional_data,
      receivedAt: now.toISOString(),
    });
    const result = await runJob(ctx, job);
    return { ...renderSale(result), ...keyWarnings(auth) };
  });
}

/** Maps the use-case result to the spec's sale responses (Endpoints: POST /track/sale). */
export function renderSale(r: SaleResult): Record<string, unknown> {
  switch (r.kind) {
    case 'attributed':
      return {
        success: true,
        sale_id: r.saleId,
        commission_id: r.commissionId,
        message:
          r.commissionId === null
            ? 'Sale recorded; no commission (outside the recurring commission policy)'
            : 'Sale recorded and commission created',
      };
    case 'window_expired':
      return {
        success: true,
        attributed: false,
        reason: 'attribution_window_expired',
        click_age_days: r.clickAgeDays,
        window_days: r.windowDays,
        sale_id: null,
        commission_id: null,
      };
    case 'test':
      return {
        success: true,
        message: 'Test sale recorded; production data was not changed',
        data: { eventId: r.eventId, programId: r.programId, test_mode: true },
      };
    case 'duplicate':
      throw new AppError('duplicate_transaction', 'A sale with this transaction_id was already recorded', {
        sale_id: r.saleId,
      });
  }
}

/** Test traffic's answer (test key, `livemode: false`, `additional_data.test_mode`): nothing in production tables. */
export const testModeResponseSchema = z.strictObject({
  success: z.literal(true),
  message: z.string(),
  data: z.strictObject({ eventId: z.number().int(), programId: z.number().int(), test_mode: z.literal(true) }),
  warnings: keyWarningsSchema,
});

export const saleResponseSchema = z.union([
  z
    .strictObject({
      success: z.literal(true),
      sale_id: z.number().int(),
      commission_id: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'null when the recurring commission policy pays nothing on this sale' }),
      message: z.string(),
      warnings: keyWarningsSchema,
    })
    .meta({ title: 'Attributed' }),
  z
    .strictObject({
      success: z.literal(true),
      attributed: z.literal(false),
      reason: z.literal('attribution_window_expired'),
      click_age_days: z.number().int(),
      window_days: z.number().int(),
      sale_id: z.null(),
      commission_id: z.null(),
      warnings: keyWarningsSchema,
    })
    .meta({ title: 'Attribution window expired' }),
  testModeResponseSchema.meta({ title: 'Test mode' }),
]);

export const trackSaleOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/sale',
  operationId: 'trackSale',
  tag: 'Tracking',
  security: ['apiKey'],
  summary: 'Record a sale and its commission',
  description:
    "Attributes the sale by `customer_key`, else `click_id`. Reusing a `transaction_id` never creates a second sale: the 409 carries the first sale's id and means the sale is already recorded (retrying after a network failure is safe).",
  body: saleSchema,
  bodyExample: { transaction_id: 'pi_3QxAbc', amount_cents: 4900, currency: 'USD', customer_key: 'user_42' },
  responses: {
    200: {
      description: 'Recorded (attributed, window expired, or test mode)',
      schema: saleResponseSchema,
      example: { success: true, sale_id: 1, commission_id: 1, message: 'Sale recorded and commission created' },
    },
  },
  errors: [
    'no_attribution',
    'unauthorized',
    'api_key_rotation_required',
    'duplicate_transaction',
    'unsupported_currency',
    'rate_limited',
    'service_unavailable',
  ],
});
