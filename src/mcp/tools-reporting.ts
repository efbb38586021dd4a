import { z } from 'zod';
import { getActivitySeries } from '../core/reporting/get-activity-series.ts';
import { rankPartners } from '../core/reporting/top-partners.ts';
import { CURRENCIES } from '../core/shared/vocabulary.ts';
import { defineTool } from './define-tool.ts';
import { periodInput, resolvePeriod } from './tool-inputs.ts';

const int = z.number().int();
const sum = (xs: readonly number[] = []) => xs.reduce((a, b) => a + b, 0);

const programOverview = defineTool({
  name: 'program_overview',
  title: 'Program overview',
  description:
    'Clicks, leads, sales, revenue, refunds and commissions of the program over a period (default: this month), money per currency in minor units (never converted).',
  scope: 'read',
  input: periodInput,
  output: {
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    clicks: int,
    leads: int,
    sales: int,
    currencies: z.array(
      z.strictObject({
        currency: z.string().length(3),
        revenue_cents: int.describe('Sale amounts as sent (gross)'),
        refunded_cents: int.describe('Refunded of those sales'),
        net_revenue_cents: int,
        commission_cents: int.describe('What remains of the commissions created in the period'),
      }),
    ),
  },
  async run(args, { ctx, grant }) {
    const { from, to } = resolvePeriod(ctx.clock(), args);
    // The series counts whole UTC days: the last day is the one `to` falls in (exclusive end).
    const s = await getActivitySeries(ctx.deps(), {
      programId: grant.programId,
      from,
      to: new Date(to.getTime() - 1),
    });
    const currencies = [...new Set([...Object.keys(s.revenueCents), ...Object.keys(s.commissionCents)])].sort();
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      clicks: sum(s.clicks),
      leads: sum(s.leads),
      sales: sum(s.sales),
      currencies: currencies.map((currency) => {
        const revenue = sum(s.revenueCents[currency]);
        const refunded = sum(s.refundedCents[currency]);
        return {
          currency,
          revenue_cents: revenue,
          refunded_cents: refunded,
          net_revenue_cents: revenue - refunded,
          commission_cents: sum(s.commissionCents[currency]),
        };
      }),
    };
  },
});

const topPartners = defineTool({
  name: 'top_partners',
  title: 'Top partners',
  description:
    'The partners who drove the most net revenue (or commission) from sales received in a period (default: this month), one line per partner and currency, best first.',
  scope: 'read',
  input: {
    ...periodInput,
    by: z.enum(['revenue', 'commission']).default('revenue').describe('Rank by net revenue or by commission'),
    currency: z.enum(CURRENCIES).optional().describe('Only this currency'),
    limit: z.number().int().min(1).max(50).default(10),
  },
  output: {
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    partners: z.array(
      z.strictObject({
        partner_id: int,
        code: z.string(),
        name: z.string(),
        currency: z.string().length(3),
        sales: int,
        revenue_cents: int,
        refunded_cents: int,
        net_revenue_cents: int,
        commission_cents: int,
      }),
    ),
  },
  async run(args, { ctx, grant }) {
    const period = resolvePeriod(ctx.clock(), args);
    const rows = await rankPartners(ctx.deps(), grant.programId, {
      ...period,
      by: args.by,
      limit: args.limit,
      currency: args.currency,
    });
    return {
      from: period.from.toISOString(),
      to: period.to.toISOString(),
      partners: rows.map((r) => ({
        partner_id: r.partnerId,
        code: r.code,
        name: r.name,
        currency: r.currency,
        sales: r.sales,
        revenue_cents: r.revenueCents,
        refunded_cents: r.refundedCents,
        net_revenue_cents: r.revenueCents - r.refundedCents,
        commission_cents: r.commissionCents,
      })),
    };
  },
});

export const reportingTools = [programOverview, topPartners];
