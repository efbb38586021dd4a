import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { COMMISSION_STATUSES } from '../../core/shared/vocabulary.ts';
import { getActivitySeries } from '../../core/reporting/get-activity-series.ts';
import {
  getPartnerEarnings,
  getPartnerProfile,
  listPartnerCommissions,
  listPartnerNotifications,
  markPartnerNotificationsRead,
} from '../../core/programs/partner-portal.ts';
import { readJson } from '../read-json.ts';
import { json, route } from '../route.ts';
import { keysetBefore, validate, validatePage } from '../validate.ts';
import { markReadSchema, payoutRequestSchema } from '../wire/requests.ts';
import { requestPayout } from '../../core/payouts/request-payout.ts';
import { enqueueEventDeliveries } from '../../queue/enqueue-events.ts';
import { requireSession } from '../session-auth.ts';
import { seriesQuery, seriesToWire, seriesRange } from '../wire/activity-series.ts';
import {
  partnerCommissionsBody,
  partnerEarningsBody,
  partnerNotificationsBody,
  partnerProfileBody,
  seriesWire,
  unreadCountBody,
  type PartnerProfileBody,
} from '../wire/responses.ts';
import {
  partnerCommissionsToWire,
  partnerEarningsToWire,
  partnerNotificationsToWire,
  partnerProfileToWire,
  unreadCountToWire,
} from '../wire/partner-portal.ts';
import { defineOperation, type Operation } from '../openapi/operation.ts';
import { referralLink } from '../../core/attribution/referral-link.ts';
import { PARTNER_EXPORT_KINDS } from '../../core/reporting/exports.ts';
import { csvResponse, exportKind, exportQuerySchema, exportWindow } from '../csv-response.ts';
import {
  payoutMethodSchema,
  readPayoutMethod,
  removePayoutMethod,
  setPayoutMethod,
} from '../../core/payouts/payout-methods.ts';
import { payoutMethodBody, payoutMethodToWire } from '../wire/payouts.ts';
import { partnerPayoutBody, partnerPayoutToWire, type PartnerPayoutBody } from '../wire/partner-payouts.ts';
import { publicOrigin } from '../../public-origin.ts';
import { demoPageEnabled } from './demo-page.ts';
import { partnerKey, programKey } from '../../read-routing.ts';

const page = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  before: keysetBefore,
});
const commissionsQuery = page.extend({ status: z.enum(COMMISSION_STATUSES).optional() });

/**
 * The partner API behind the portal. Every route reads the signed-in partner from the session;
 * no route takes a partner or program id, so nothing of another partner can be named.
 */
export function registerPartnerRoutes(app: H3, ctx: RouteContext): void {
  const P = '/api/v1/partner';
  const query = (e: H3Event) => Object.fromEntries(e.url.searchParams);
  const partner = [requireSession(ctx, 'partner')];
  const on = (
    method: 'get' | 'post' | 'put' | 'delete',
    path: string,
    fn: (e: H3Event, partnerId: number) => Promise<object>,
  ) =>
    app[method](
      `${P}${path}`,
      route(partner, (e) => fn(e, e.context.session!.partnerId as number)),
    );

  on('get', '/me', async (_e, partnerId) => {
    const profile = await getPartnerProfile(ctx.deps(), partnerId);
    const demo = { enabled: demoPageEnabled(ctx.config), origin: publicOrigin(ctx.config) };
    return {
      ...partnerProfileToWire(profile),
      // Empty: no domain or landing URL and the demo page is off; the portal says what to set.
      referral_link: referralLink(profile.program, profile.partner.code, demo) ?? '',
    } satisfies PartnerProfileBody;
  });
  on('get', '/stats', async (e, partnerId) => {
    const programId = (await getPartnerProfile(ctx.deps(), partnerId)).program.id;
    const range = seriesRange(ctx, validate(seriesQuery, query(e)));
    const keys = [programKey(programId), partnerKey(partnerId)];
    return seriesToWire(await ctx.reads.read(keys, (d) => getActivitySeries(d, { programId, partnerId, ...range })));
  });
  on('get', '/commissions', async (e, partnerId) =>
    partnerCommissionsToWire(
      await listPartnerCommissions(ctx.deps(), partnerId, validatePage(commissionsQuery, query(e))),
    ),
  );
  on('get', '/earnings', async (_e, partnerId) =>
    partnerEarningsToWire(await getPartnerEarnings(ctx.deps(), partnerId)),
  );
  on('get', '/exports/:kind', async (e, partnerId) => {
    const kind = exportKind(e.context.params?.kind, PARTNER_EXPORT_KINDS);
    const window = exportWindow(validate(exportQuerySchema, query(e)));
    const programId = (await getPartnerProfile(ctx.deps(), partnerId)).program.id;
    // One export of a partner at a time (csv-response.ts).
    const slot = { key: `export:${programId}:partner:${partnerId}`, label: 'An export of yours' };
    return csvResponse(ctx, programId, kind, { ...window, partnerId }, `partner-${partnerId}`, slot);
  });
  // Payout details: stored sealed; answered as the kind and a hint only.
  const programOf = async (partnerId: number) => (await getPartnerProfile(ctx.deps(), partnerId)).program.id;
  on('get', '/payout-method', async (_e, partnerId) =>
    payoutMethodToWire(await readPayoutMethod(ctx.deps(), await programOf(partnerId), partnerId)),
  );
  on('put', '/payout-method', async (e, partnerId) => {
    const details = validate(payoutMethodSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES));
    return payoutMethodToWire(await setPayoutMethod(ctx.deps(), await programOf(partnerId), partnerId, details));
  });
  on('delete', '/payout-method', async (_e, partnerId) => {
    await removePayoutMethod(ctx.deps(), await programOf(partnerId), partnerId);
    return payoutMethodToWire(null);
  });
  // A payout request: an open payout the merchant sees and the next run pays (request-payout.ts).
  on('post', '/payout-requests', async (e, partnerId) => {
    const b = validate(payoutRequestSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES));
    const r = await requestPayout(ctx.deps(), partnerId, b.currency, b.amount_cents ?? null);
    await enqueueEventDeliveries(ctx, r.deliveryIds);
    return json(partnerPayoutToWire(r.payout) satisfies PartnerPayoutBody, 201);
  });
  on('get', '/notifications', async (e, partnerId) =>
    partnerNotificationsToWire(await listPartnerNotifications(ctx.deps(), partnerId, validatePage(page, query(e)))),
  );
  on('post', '/notifications/read', async (e, partnerId) =>
    unreadCountToWire(
      await markPartnerNotificationsRead(
        ctx.deps(),
        partnerId,
        validate(markReadSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES)).ids,
      ),
    ),
  );
}

const partnerOp = (
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  operationId: string,
  summary: string,
  rest: Partial<Operation>,
) =>
  defineOperation({
    method,
    path: `/api/v1/partner${path}`,
    operationId,
    summary,
    tag: 'Partner',
    security: ['partnerSession'],
    responses: {},
    ...rest,
    errors: ['unauthorized', ...(method !== 'get' ? ['forbidden' as const] : []), ...(rest.errors ?? [])],
  });

export const partnerOperations = [
  partnerOp('get', '/me', 'getPartnerProfile', 'The signed-in partner, their program and referral link', {
    errors: ['not_found'],
    responses: {
      200: {
        description: 'The profile',
        schema: partnerProfileBody,
      },
    },
  }),
  partnerOp('get', '/stats', 'getPartnerStats', "The partner's daily clicks, leads, sales, revenue and commissions", {
    query: seriesQuery,
    errors: ['not_found', 'invalid_request'],
    responses: { 200: { description: 'The series', schema: seriesWire } },
  }),
  partnerOp('get', '/commissions', 'listPartnerCommissions', "The partner's commissions, newest first", {
    query: commissionsQuery,
    errors: ['invalid_request'],
    responses: {
      200: {
        description: 'One page and the total',
        schema: partnerCommissionsBody,
      },
    },
  }),
  partnerOp('get', '/exports/:kind', 'exportPartnerCsv', "The partner's own commissions, payouts or statement as CSV", {
    params: { kind: z.enum(PARTNER_EXPORT_KINDS) },
    query: exportQuerySchema,
    description:
      "Only the signed-in partner's rows, in the admin export's columns. The `statement` is their ledger, every line naming its cause, with the running balance, a hash chain and the latest signed checkpoint (docs/statement-verification.md; `npx tracker verify-statement` checks it offline). One export of a partner at a time (another meanwhile: 429 `rate_limited`); within `EXPORT_TIMEOUT_MS` (503 `service_unavailable` when reached before the first byte, else the download is cut off).",
    errors: ['not_found', 'invalid_request', 'rate_limited', 'service_unavailable'],
    responses: { 200: { description: 'The CSV (header row first)', contentType: 'text/csv' } },
  }),
  partnerOp('get', '/earnings', 'getPartnerEarnings', "The partner's balance per currency and payouts", {
    responses: {
      200: {
        description: 'Balances and the latest 200 payouts',
        schema: partnerEarningsBody,
      },
    },
  }),
  partnerOp('get', '/payout-method', 'getOwnPayoutMethod', "The partner's payout details: kind and hint", {
    responses: { 200: { description: 'The payout method (null: none)', schema: payoutMethodBody } },
  }),
  partnerOp(
    'put',
    '/payout-method',
    'setPartnerPayoutMethod',
    'Record payout details (PayPal, Wise or Stripe Connect)',
    {
      body: payoutMethodSchema,
      description:
        'Stored encrypted; never shown whole again (the answer is the kind and a hint). A payout run through the matching rail pays the partner.',
      errors: ['invalid_request'],
      responses: { 200: { description: 'The payout method as shown', schema: payoutMethodBody } },
    },
  ),
  partnerOp('delete', '/payout-method', 'removePartnerPayoutMethod', 'Remove the payout details', {
    responses: { 200: { description: 'No payout method', schema: payoutMethodBody } },
  }),
  partnerOp('post', '/payout-requests', 'requestPartnerPayout', 'Ask for a payout', {
    body: payoutRequestSchema,
    description:
      "When the program allows it (`payout_settings.partner_requests`, off by default): an open payout of `amount_cents` (omitted: everything available), at least the program's minimum in that currency, one open request per currency. The merchant sees it among the payouts; the next payout run pays it through the run's rail, up to its amount, or the merchant pays it by hand.",
    errors: ['invalid_request'],
    responses: { 201: { description: 'The open payout', schema: partnerPayoutBody } },
  }),
  partnerOp('get', '/notifications', 'listPartnerNotifications', "The partner's notifications, newest first", {
    query: page,
    errors: ['invalid_request'],
    responses: {
      200: {
        description: 'One page, the total and the unread count',
        schema: partnerNotificationsBody,
      },
    },
  }),
  partnerOp(
    'post',
    '/notifications/read',
    'markPartnerNotificationsRead',
    'Mark notifications read (all when `ids` is left out)',
    {
      body: markReadSchema,
      responses: { 200: { description: 'The unread count after', schema: unreadCountBody } },
    },
  ),
];
