import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { COMMISSION_STATUSES } from '../../core/entities/commission.ts';
import { getActivitySeries } from '../../core/get-activity-series.ts';
import {
  getPartnerEarnings, getPartnerProfile, listPartnerCommissions, listPartnerNotifications, markPartnerNotificationsRead,
} from '../../core/partner-portal.ts';
import { readJson } from '../read-json.ts';
import { route } from '../route.ts';
import { rowId, validate } from '../validate.ts';
import { requireSession } from '../session-auth.ts';
import { seriesQuery, seriesToWire, seriesRange } from '../activity-series-wire.ts';

const page = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50), offset: z.coerce.number().int().min(0).default(0) });
const commissionsQuery = page.extend({ status: z.enum(COMMISSION_STATUSES).optional() });
const markRead = z.strictObject({ ids: z.array(rowId).max(500).optional() });

/**
 * The partner API behind the portal. Every route reads the signed-in partner from the session;
 * no route takes a partner or program id, so nothing of another partner can be named.
 */
export function registerPartnerRoutes(app: H3, ctx: RouteContext): void {
  const P = '/api/v1/partner';
  const query = (e: H3Event) => Object.fromEntries(e.url.searchParams);
  const on = (method: 'get' | 'post', path: string, fn: (e: H3Event, partnerId: number) => Promise<object>) =>
    app[method](`${P}${path}`, route(ctx, async (e) => {
      const s = await requireSession(ctx, e, 'partner');
      return fn(e, s.partnerId as number);
    }));

  on('get', '/me', async (e, partnerId) => {
    const profile = await getPartnerProfile(ctx.deps(), partnerId);
    return { ...profile, referral_link: referralLink(ctx, e, profile.program, profile.partner.code) };
  });
  on('get', '/stats', async (e, partnerId) => {
    const programId = (await getPartnerProfile(ctx.deps(), partnerId)).program.id;
    const range = seriesRange(ctx, validate(seriesQuery, query(e)));
    return seriesToWire(await getActivitySeries(ctx.deps(), { programId, partnerId, ...range }));
  });
  on('get', '/commissions', async (e, partnerId) => listPartnerCommissions(ctx.deps(), partnerId, validate(commissionsQuery, query(e))));
  on('get', '/earnings', async (_e, partnerId) => getPartnerEarnings(ctx.deps(), partnerId));
  on('get', '/notifications', async (e, partnerId) => listPartnerNotifications(ctx.deps(), partnerId, validate(page, query(e))));
  on('post', '/notifications/read', async (e, partnerId) => markPartnerNotificationsRead(ctx.deps(), partnerId, validate(markRead, await readJson(e, ctx.config.BODY_LIMIT_BYTES)).ids));
}

/** The partner's link: the program's site with `aff`, or the service's demo page when no domain is set. */
function referralLink(ctx: RouteContext, e: H3Event, program: { id: number; domain: string | null }, code: string): string {
  if (program.domain) return `https://${program.domain}/?aff=${encodeURIComponent(code)}`;
  const base = ctx.config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? e.url.origin;
  return `${base}/demo?program=${program.id}&aff=${encodeURIComponent(code)}`;
}
