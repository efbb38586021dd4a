import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { REFUND_REASONS } from '../../core/shared/vocabulary.ts';
import { buildRefundJob } from '../../core/jobs/refund-job.ts';
import type { RefundResult } from '../../core/refunds/apply-refund.ts';
import { keyWarnings, keyWarningsSchema, requireApiKey } from '../auth.ts';
import { readJson } from '../read-json.ts';
import { route, runJob } from '../route.ts';
import { validate } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';
import { testModeResponseSchema } from './track-sale.ts';

export const refundSchema = z.strictObject({
  transaction_id: z.string({ error: 'transaction_id is required and must be a string' }).trim().min(1).max(255),
  refund_amount_cents: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
  refund_id: z.string().trim().min(1).max(255).nullable().optional(),
  refund_reason: z.string().max(1000).nullable().optional(),
  reason: z.enum(REFUND_REASONS, { error: 'reason must be "refund" or "chargeback"' }).nullable().optional(),
});

/** POST /api/v1/track/refund */
export function trackRefundRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx)], async (event) => {
    const auth = event.context.apiKey!;
    const body = validate(refundSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    const cents = body.refund_amount_cents || null;
    const job = buildRefundJob({
      origin: 'api',
      programId: auth.programId,
      transactionId: body.transaction_id,
      amount: { type: 'per_refund', cents },
      // Spec: refund_id is ignored when the amount is omitted or 0 (the rest is refunded).
      refundId: cents ? (body.refund_id ?? null) : null,
      refundReason: body.refund_reason?.trim() || null,
      reason: body.reason ?? null,
      test: auth.mode === 'test',
      receivedAt: ctx.clock().toISOString(),
    });
    const result = await runJob(ctx, job);
    return { ...renderRefund(result), ...keyWarnings(auth) };
  });
}

/** Maps the use-case result to the spec's refund responses (all 200). */
export function renderRefund(r: RefundResult): Record<string, unknown> {
  switch (r.kind) {
    case 'applied':
      return { success: true, status: r.status, deductionAmount: r.deductionCents, commission_id: r.commissionId };
    case 'skipped':
      return { success: true, status: 'skipped', reason: r.reason, commission_id: r.commissionId };
    case 'no_commission':
      return { success: true, status: 'no_commission', message: r.message };
    case 'test':
      // A test sale has no commission: the spec's `no_commission` answer, with the test details beside it.
      return {
        success: true,
        status: 'no_commission',
        message: 'Test refund accepted; a test sale has no commission and production data was not changed',
        data: { eventId: r.eventId, programId: r.programId, test_mode: true },
      };
  }
}

export const refundResponseSchema = z.union([
  z
    .strictObject({
      success: z.literal(true),
      status: z.enum(['refunded', 'reversed']).meta({ description: '`reversed` once the whole sale is refunded' }),
      deductionAmount: z
        .number()
        .int()
        .meta({ description: 'Commission reversed by this call, minor units of the commission currency' }),
      commission_id: z.number().int(),
      warnings: keyWarningsSchema,
    })
    .meta({ title: 'Reversed or refunded' }),
  z
    .strictObject({
      success: z.literal(true),
      status: z.literal('no_commission'),
      message: z.string(),
      data: z
        .strictObject({ eventId: z.number().int(), programId: z.number().int(), test_mode: z.literal(true) })
        .optional()
        .meta({ description: 'Test details, when the sale was a test sale' }),
      warnings: keyWarningsSchema,
    })
    .meta({ title: 'Sale has no commission' }),
  z
    .strictObject({
      success: z.literal(true),
      status: z.literal('skipped'),
      reason: z.string(),
      commission_id: z.number().int(),
      warnings: keyWarningsSchema,
    })
    .meta({ title: 'Already processed' }),
  testModeResponseSchema.meta({ title: 'Test mode' }),
]);

export const trackRefundOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/refund',
  operationId: 'trackRefund',
  tag: 'Tracking',
  security: ['apiKey'],
  summary: 'Reverse or reduce the commission of a sale',
  description:
    "One call per refund, with this refund's own amount (never a running total); omitted or 0 refunds the rest. A repeated `refund_id`, or without one the same amount again, is `skipped`.",
  body: refundSchema,
  bodyExample: {
    transaction_id: 'pi_3QxAbc',
    refund_amount_cents: 1000,
    refund_id: 're_1',
    refund_reason: 'customer request',
  },
  responses: {
    200: {
      description: 'Applied, skipped, no commission, or test mode',
      schema: refundResponseSchema,
      example: { success: true, status: 'refunded', deductionAmount: 100, commission_id: 1 },
    },
  },
  errors: ['unauthorized', 'api_key_rotation_required', 'not_found', 'rate_limited', 'service_unavailable'],
});
