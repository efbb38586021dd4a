import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { DAY_MS } from '../../core/deps.ts';
import { MAX_SERIES_DAYS, type ActivitySeries } from '../../core/reporting/get-activity-series.ts';
import type { SeriesBody } from './responses.ts';

/** `?days=N` (default 30, ending today) or `?from=YYYY-MM-DD&to=YYYY-MM-DD`. */
export const seriesQuery = z.object({
  days: z.coerce.number().int().min(1).max(MAX_SERIES_DAYS).default(30),
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
});

export function seriesRange(ctx: RouteContext, q: z.infer<typeof seriesQuery>): { from: Date; to: Date } {
  const to = q.to ? new Date(`${q.to}T00:00:00Z`) : ctx.clock();
  const from = q.from ? new Date(`${q.from}T00:00:00Z`) : new Date(to.getTime() - (q.days - 1) * DAY_MS);
  return { from, to };
}

/** The wire form (`seriesWire`, responses.ts): snake_case, one array per measure, money per currency in minor units. */
export function seriesToWire(s: ActivitySeries): SeriesBody {
  return {
    days: s.days,
    clicks: s.clicks,
    leads: s.leads,
    sales: s.sales,
    revenue_cents: s.revenueCents,
    refunded_cents: s.refundedCents,
    commission_cents: s.commissionCents,
  };
}
