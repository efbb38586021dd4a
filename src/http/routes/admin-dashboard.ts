import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/errors.ts';
import { createPartnerInvite } from '../../core/partner-invites.ts';
import { getActivitySeries } from '../../core/get-activity-series.ts';
import { getWebhookEventDetail } from '../../core/webhook-event-detail.ts';
import { json, route } from '../route.ts';
import { MAX_ROW_ID, validate } from '../validate.ts';
import { requireOperator } from '../session-auth.ts';
import { seriesQuery, seriesRange, seriesToWire, seriesWire } from '../wire/activity-series.ts';
import { recordToWire } from '../wire/records.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { webhookEventRow } from '../openapi/entity-rows.ts';

/** Admin routes the dashboard needs beyond the CLI's: overview series, invites, one webhook event. */
export function registerAdminDashboardRoutes(app: H3, ctx: RouteContext): void {
  const P = '/api/v1/admin/programs/:id';
  const num = (e: H3Event, name: string) => {
    const v = Number(e.context.params?.[name]);
    if (!Number.isSafeInteger(v) || v <= 0 || v > MAX_ROW_ID)
      throw new AppError('invalid_request', `${name} must be a positive integer`);
    return v;
  };
  const guarded = (fn: (e: H3Event) => Promise<object>) =>
    route(ctx, async (e) => {
      await requireOperator(ctx, e);
      return fn(e);
    });

  app.get(
    `${P}/stats`,
    guarded(async (e) => {
      const range = seriesRange(ctx, validate(seriesQuery, Object.fromEntries(e.url.searchParams)));
      return seriesToWire(await getActivitySeries(ctx.deps(), { programId: num(e, 'id'), ...range }));
    }),
  );
  app.post(
    `${P}/partners/:partnerId/invites`,
    guarded(async (e) => {
      const invite = await createPartnerInvite(
        ctx.deps(),
        num(e, 'id'),
        num(e, 'partnerId'),
        ctx.config.INVITE_TTL_HOURS * 3_600_000,
      );
      const base = ctx.config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? e.url.origin;
      return json(
        {
          invite_url: `${base}/portal/invite/${invite.token}`,
          expires_at: invite.expiresAt.toISOString(),
          partner_id: invite.partnerId,
        },
        201,
        { 'cache-control': 'no-store' },
      );
    }),
  );
  app.get(
    `${P}/webhook-events/:eventId`,
    guarded(async (e) => ({
      webhook_event: recordToWire(await getWebhookEventDetail(ctx.deps(), num(e, 'id'), num(e, 'eventId'))),
    })),
  );
}

const id = z.number().int().positive();
export const adminDashboardOperations = [
  adminOperation(
    'get',
    '/programs/:id/stats',
    'getProgramStats',
    'Daily clicks, leads, sales, revenue and commissions of a program',
    {
      params: { id },
      query: seriesQuery,
      responses: { 200: { description: 'The series', schema: seriesWire } },
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/partners/:partnerId/invites',
    'invitePartner',
    'A one-time link for a partner to set a portal password',
    {
      params: { id, partnerId: id },
      errors: ['not_found'],
      responses: {
        201: {
          description: 'The invite (its link is shown once)',
          schema: z.strictObject({ invite_url: z.url(), expires_at: z.iso.datetime(), partner_id: z.number().int() }),
        },
      },
    },
  ),
  adminOperation(
    'get',
    '/programs/:id/webhook-events/:eventId',
    'getWebhookEvent',
    'One webhook inbox row with its verified payload and outcome',
    {
      params: { id, eventId: id },
      errors: ['not_found'],
      responses: { 200: { description: 'The inbox row', schema: z.strictObject({ webhook_event: webhookEventRow }) } },
    },
  ),
];
