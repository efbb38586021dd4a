import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { SALE_PROVIDERS } from '../../core/shared/vocabulary.ts';
import { registerOrder } from '../../core/attribution/order-registrations.ts';
import type { IOrderRegistration } from '../../core/entities/order-registration.ts';
import { keyWarnings, keyWarningsSchema, requireApiKey } from '../auth.ts';
import { readJson } from '../read-json.ts';
import { route } from '../route.ts';
import { validate } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';
import { trackTestEvent } from './track-test.ts';
import { testModeResponseSchema } from './track-sale.ts';

const id = z.string().trim().min(1).max(255);
export const checkoutSchema = z
  .strictObject({
    order_code: id,
    customer_key: id.nullable().optional(),
    click_id: id.nullable().optional(),
    provider: z.enum(SALE_PROVIDERS).nullable().optional(),
    amount_cents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    currency: z.string().trim().min(1).max(16).nullable().optional(),
  })
  .refine((b) => !!(b.customer_key || b.click_id), {
    message: 'customer_key or click_id is required',
    path: ['customer_key'],
  });

/**
 * POST /api/v1/track/checkout (extension): registers an order before its bank-transfer QR is
 * shown, so the PayOS or SePay payment naming its code is attributed (order-registrations.ts). A
 * test key records a test event, as a test key's lead does.
 */
export function trackCheckoutRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx)], async (event) => {
    const auth = event.context.apiKey!;
    const body = validate(checkoutSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    if (auth.mode === 'test') {
      return {
        ...(await trackTestEvent(ctx, auth.programId, { checkout: body })),
        ...keyWarnings(auth),
      };
    }
    const row = await registerOrder(ctx.deps(), {
      programId: auth.programId,
      orderCode: body.order_code,
      customerKey: body.customer_key ?? null,
      clickId: body.click_id ?? null,
      provider: body.provider ?? null,
      amountCents: body.amount_cents ?? null,
      currency: body.currency ? body.currency.toUpperCase() : null,
      receivedAt: ctx.clock().toISOString(),
    });
    return { ...renderCheckout(row), ...keyWarnings(auth) };
  });
}

function renderCheckout(row: IOrderRegistration) {
  return {
    success: true as const,
    order_id: row.id,
    order_code: row.orderCode,
    customer_key: row.customerKey ?? null,
    click_id: row.clickId ?? null,
    provider: row.provider ?? null,
    amount_cents: row.amountCents ?? null,
    currency: row.currency ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export const checkoutResponseSchema = z.strictObject({
  success: z.literal(true),
  order_id: z.number().int(),
  order_code: z.string(),
  customer_key: z.string().nullable(),
  click_id: z.string().nullable(),
  provider: z.string().nullable(),
  amount_cents: z.number().int().nullable(),
  currency: z.string().nullable(),
  created_at: z.string().meta({ description: 'When the order was first registered' }),
  warnings: keyWarningsSchema,
});

export const trackCheckoutOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/checkout',
  operationId: 'trackCheckout',
  tag: 'Tracking',
  security: ['apiKey'],
  summary: 'Register an order before showing its bank-transfer QR (PayOS, SePay)',
  description:
    "Extension. VietQR gateways send no checkout metadata: register the order code the transfer will name (PayOS `orderCode`; SePay payment code or order invoice number) with `customer_key` and/or `click_id`, and the gateway's paid notification is attributed like a checkout carrying those keys. Idempotent on `order_code`: the same values answer the stored registration again; other values for a registered code are `409 conflict`. A `click_id` must be a click of this program. With a test key the registration is a test event.",
  body: checkoutSchema,
  bodyExample: {
    order_code: 'DH10023',
    customer_key: 'user_42',
    provider: 'payos',
    amount_cents: 250000,
    currency: 'VND',
  },
  responses: {
    200: {
      description: 'Registered (or already registered with the same values), or a test event',
      schema: z.union([checkoutResponseSchema, testModeResponseSchema]),
      example: {
        success: true,
        order_id: 7,
        order_code: 'DH10023',
        customer_key: 'user_42',
        click_id: null,
        provider: 'payos',
        amount_cents: 250000,
        currency: 'VND',
        created_at: '2026-11-26T03:00:00.000Z',
      },
    },
  },
  errors: ['invalid_request', 'unauthorized', 'api_key_rotation_required', 'conflict', 'rate_limited'],
});
