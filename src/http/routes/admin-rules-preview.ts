import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { DAY_MS } from '../../core/deps.ts';
import { getProgram } from '../../core/programs/programs.ts';
import { previewRules, type PreviewLine } from '../../core/rewards/preview-rules.ts';
import { validate } from '../validate.ts';
import { withoutDatabaseBound } from '../../core/db/db-bound.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { rulesPreviewSchema } from '../wire/requests.ts';
import { rulesPreviewBody, type RulesPreviewBody } from '../wire/responses.ts';

const MAX_WINDOW_DAYS = 366;

const lineToWire = (l: PreviewLine) => ({
  currency: l.currency,
  sales: l.sales,
  current_cents: l.currentCents,
  proposed_cents: l.proposedCents,
});

/** What-if: proposed reward rules replayed over a period's sales, nothing written. */
export function registerRulesPreviewRoute(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/rules/preview', async (e) => {
    const input = validate(rulesPreviewSchema, await body(e));
    const deps = ctx.deps();
    const programId = num(e, 'id');
    // Default: up to now, a sale received this very millisecond included.
    const to = input.to ? new Date(input.to) : new Date(ctx.clock().getTime() + 1);
    const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * DAY_MS);
    if (!(from < to) || to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
      throw new AppError('invalid_request', `from must be before to, at most ${MAX_WINDOW_DAYS} days apart`, {
        field: 'from',
      });
    const groupRules = Object.fromEntries(Object.entries(input.group_rules ?? {}).map(([k, v]) => [Number(k), v]));
    // One preview of a program at a time, within REPORT_TIMEOUT_MS (report-gate.ts); its reads over
    // up to a year of sales are not cut by the request's database bound.
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS };
    const r = await ctx.reports.run(`preview:${programId}`, 'A rules preview of this program', limits, (signal) =>
      withoutDatabaseBound(async () => {
        const programRules =
          input.reward_rules !== undefined
            ? input.reward_rules
            : ((await getProgram(deps, programId)).rewardRules ?? null);
        return previewRules(deps, programId, { programRules, groupRules }, { from, to }, { signal });
      }),
    );
    return {
      from: r.from.toISOString(),
      to: r.to.toISOString(),
      sales: r.sales,
      totals: r.totals.map(lineToWire),
      partners: r.partners.map((l) => ({ partner_id: l.partnerId, ...lineToWire(l) })),
    } satisfies RulesPreviewBody;
  });
}

export const rulesPreviewOperations = [
  adminOperation(
    'post',
    '/programs/:id/rules/preview',
    'previewRewardRules',
    'What proposed reward rules would have paid',
    {
      params: { id: z.number().int().positive() },
      body: rulesPreviewSchema,
      description:
        "Replays the program's attributed live sales received in [from, to) under the proposed rules, in the order received (tiers count each partner's sales from the start of their period), and answers current against proposed commissions per partner and currency and in total. Nothing is written. At most 366 days. One preview of a program runs at a time (another meanwhile: 429 `rate_limited` with `retry_after_seconds`), within `REPORT_TIMEOUT_MS` (past it: 503 `service_unavailable`).",
      errors: ['not_found', 'invalid_request', 'service_unavailable'],
      responses: { 200: { description: 'The comparison', schema: rulesPreviewBody } },
    },
  ),
];
