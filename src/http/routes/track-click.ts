import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { buildClickJob } from '../../core/jobs/click-job.ts';
import { readJson } from '../read-json.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { route, runJob } from '../route.ts';
import { validate } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';

const url = z.url({ protocol: /^https?$/ }).max(2048);
export const clickSchema = z.strictObject({
  affiliate_url: url,
  page_url: url.nullable().optional(),
  referrer_url: z.string().max(2048).nullable().optional(),
  existing_click_id: z.string().trim().min(1).max(255).nullable().optional(),
  visitor_id: z.string().max(255).nullable().optional(),
});

/** POST /api/v1/track/click (no authentication). */
export function trackClickRoute(ctx: RouteContext) {
  return route(async (event) => {
    await enforceClientLimit(ctx, event, 'click');
    const body = validate(clickSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    const aff = new URL(body.affiliate_url).searchParams.get('aff')?.trim();
    if (!aff)
      throw new AppError('invalid_request', 'affiliate_url must contain the aff query parameter', {
        field: 'affiliate_url',
      });
    // Referral codes are 2-64 of [A-Za-z0-9_-] (partner schema): anything else names no partner,
    // and a decoded `%00` must not reach the database.
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(aff))
      throw new AppError(
        'not_found',
        `No partner with referral code "${aff.slice(0, 64).replace(/[^\x20-\x7e]/g, '?')}"`,
        { field: 'aff' },
      );
    const job = buildClickJob({
      partnerCode: aff,
      affiliateUrl: body.affiliate_url,
      pageUrl: body.page_url,
      referrerUrl: body.referrer_url || null,
      existingClickId: body.existing_click_id,
      visitorId: body.visitor_id,
      receivedAt: ctx.clock().toISOString(),
    });
    const r = await runJob(ctx, job);
    return { success: true, click_id: r.clickId, partner_code: r.partnerCode, cookie_window_days: r.cookieWindowDays };
  });
}

export const clickResponseSchema = z.strictObject({
  success: z.literal(true),
  click_id: z.string().meta({ description: 'Store it as the `tracker_click_id` cookie' }),
  partner_code: z.string(),
  cookie_window_days: z.number().int(),
});

export const trackClickOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/click',
  operationId: 'trackClick',
  tag: 'Tracking',
  security: [],
  summary: 'Record a partner-link click (no authentication)',
  body: clickSchema,
  bodyExample: { affiliate_url: 'https://shop.example/?aff=demo1', page_url: 'https://shop.example/pricing' },
  responses: {
    200: {
      description: 'Recorded',
      schema: clickResponseSchema,
      example: {
        success: true,
        click_id: '5b0c6f0e-1d2a-4c1b-9d8e-3f1a2b3c4d5e',
        partner_code: 'demo1',
        cookie_window_days: 60,
      },
    },
  },
  errors: ['not_found', 'rate_limited', 'service_unavailable'],
});
