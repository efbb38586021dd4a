import type { H3 } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { invitePartner } from '../../core/applications/invite-partner.ts';
import { approvalLinks } from './apply-page.ts';
import { checkRollups, getActivitySeries } from '../../core/reporting/get-activity-series.ts';
import { summariseCommissions } from '../../core/reporting/commission-summary.ts';
import { getWebhookEventDetail } from '../../core/webhooks/webhook-event-detail.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { createAdminHelpers } from './admin-helpers.ts';
import { seriesQuery, seriesRange, seriesToWire } from '../wire/activity-series.ts';
import { recordToWire } from '../wire/records.ts';
import { DAY_MS } from '../../core/deps.ts';
import { commissionSummaryBody, type CommissionSummaryBody } from '../wire/commission-summary.ts';
import { partnerInviteBody, seriesWire, type PartnerInviteBody, type WebhookEventBody } from '../wire/responses.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { programKey } from '../../read-routing.ts';
import { webhookEventRow } from '../openapi/entity-rows.ts';

/** Admin routes the dashboard needs beyond the CLI's: overview series, invites, one webhook event. */
export function registerAdminDashboardRoutes(app: H3, ctx: RouteContext): void {
  const { on, num } = createAdminHelpers(app, ctx);
  const P = '/programs/:id';

  on('get', `${P}/stats`, async (e) => {
    const range = seriesRange(ctx, validate(seriesQuery, Object.fromEntries(e.url.searchParams)));
    const programId = num(e, 'id');
    return seriesToWire(
      await ctx.reads.read([programKey(programId)], (d) => getActivitySeries(d, { programId, ...range })),
    );
  });
  on('get', `${P}/stats/commissions`, async (e): Promise<CommissionSummaryBody> => {
    const range = seriesRange(ctx, validate(seriesQuery, Object.fromEntries(e.url.searchParams)));
    // Whole UTC days, as the series counts them.
    const from = new Date(Math.floor(range.from.getTime() / DAY_MS) * DAY_MS);
    const programId = num(e, 'id');
    const rows = await ctx.reads.read([programKey(programId)], (d) =>
      summariseCommissions(d, { programId, from, to: range.to }),
    );
    return {
      commissions: rows.map((r) => ({
        currency: r.currency,
        earned_cents: r.earnedCents,
        held_cents: r.heldCents,
        reversed_cents: r.reversedCents,
      })),
    };
  });
  on('get', `${P}/stats/check`, async (e) => {
    const range = seriesRange(ctx, validate(seriesQuery, Object.fromEntries(e.url.searchParams)));
    const programId = num(e, 'id');
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS };
    const mismatches = await ctx.reports.run(`check:${programId}`, 'A rollup check of this program', limits, (signal) =>
      checkRollups(ctx.deps(), { programId, ...range }, signal),
    );
    if (mismatches.length) ctx.log.error({ programId, mismatches }, 'daily rollups differ from the raw rows');
    return { consistent: mismatches.length === 0, mismatches };
  });
  on('post', `${P}/partners/:partnerId/invites`, async (e) => {
    // Emailed to the partner too when email is on (applications/invite-partner.ts).
    const invite = await invitePartner(ctx.deps(), num(e, 'id'), num(e, 'partnerId'), approvalLinks(ctx));
    return json(
      {
        invite_url: invite.inviteUrl,
        expires_at: invite.expiresAt.toISOString(),
        partner_id: invite.partnerId,
      } satisfies PartnerInviteBody,
      201,
      { 'cache-control': 'no-store' },
    );
  });
  on(
    'get',
    `${P}/webhook-events/:eventId`,
    async (e) =>
      ({
        webhook_event: recordToWire(await getWebhookEventDetail(ctx.deps(), num(e, 'id'), num(e, 'eventId'))),
      }) satisfies WebhookEventBody,
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
    'get',
    '/programs/:id/stats/commissions',
    'getProgramCommissionSummary',
    "A program's commissions of a period by what became of them: earned, held for review, reversed",
    {
      params: { id },
      query: seriesQuery,
      description:
        'Commissions created in the period (the same `days`, `from`, `to` as the series), per currency, in minor units: `earned_cents` what remains after refunds of those not held for review, `held_cents` what remains of those held, `reversed_cents` what refunds took back (extension).',
      responses: { 200: { description: 'Per currency', schema: commissionSummaryBody } },
    },
  ),
  adminOperation(
    'get',
    '/programs/:id/stats/check',
    'checkProgramStats',
    'The daily rollups of a range checked against the raw rows (an empty list: consistent)',
    {
      params: { id },
      query: seriesQuery,
      description:
        'One check of a program runs at a time (another meanwhile: 429 `rate_limited` with `retry_after_seconds`), within `REPORT_TIMEOUT_MS` (past it: 503 `service_unavailable`).',
      errors: ['service_unavailable'],
      responses: {
        200: {
          description: 'Every day and measure where the two differ',
          schema: z.strictObject({
            consistent: z.boolean(),
            mismatches: z.array(
              z.strictObject({ day: z.iso.date(), measure: z.string(), rollup: z.number(), raw: z.number() }),
            ),
          }),
        },
      },
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
          schema: partnerInviteBody,
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
