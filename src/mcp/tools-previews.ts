import { z } from 'zod';
import { previewRules } from '../core/rewards/preview-rules.ts';
import { previewPayout } from '../core/payouts/preview-payout.ts';
import { getProgram } from '../core/programs/programs.ts';
import { withoutDatabaseBound } from '../core/db/db-bound.ts';
import { rewardRulesSchema } from '../core/entities/program-rules.ts';
import { CURRENCIES } from '../core/shared/vocabulary.ts';
import { rulesPreviewBody } from '../http/wire/responses.ts';
import { defineTool } from './define-tool.ts';
import { idInput, periodInput, resolvePeriod } from './tool-inputs.ts';

const int = z.number().int();
const line = (l: { currency: string; sales: number; currentCents: number; proposedCents: number }) => ({
  currency: l.currency,
  sales: l.sales,
  current_cents: l.currentCents,
  proposed_cents: l.proposedCents,
});

const previewRuleChange = defineTool({
  name: 'preview_rule_change',
  title: 'What-if: a reward rule change',
  description:
    "Replays the program's attributed live sales of a period (default: this month) under proposed reward rules and compares what they would have paid with what was recorded, per partner and currency. Nothing is written.",
  scope: 'read',
  input: {
    reward_rules: rewardRulesSchema
      .nullable()
      .optional()
      .describe("Proposed program rules; omitted: the program's current rules"),
    group_rules: z
      .record(z.string().regex(/^[1-9]\d{0,9}$/, 'a group id'), rewardRulesSchema.nullable())
      .optional()
      .describe('Proposed rules of partner groups, by group id; a group not named keeps its own'),
    ...periodInput,
  },
  output: rulesPreviewBody.shape,
  async run(args, { ctx, grant }) {
    const deps = ctx.deps();
    const programId = grant.programId;
    const window = resolvePeriod(ctx.clock(), args);
    const groupRules = Object.fromEntries(Object.entries(args.group_rules ?? {}).map(([k, v]) => [Number(k), v]));
    // The admin route's gate and bound: one preview of a program at a time, its reads unbounded.
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS };
    const r = await ctx.reports.run(`preview:${programId}`, 'A rules preview of this program', limits, (signal) =>
      withoutDatabaseBound(async () => {
        const programRules =
          args.reward_rules !== undefined
            ? args.reward_rules
            : ((await getProgram(deps, programId)).rewardRules ?? null);
        return previewRules(deps, programId, { programRules, groupRules }, window, { signal });
      }),
    );
    return {
      from: r.from.toISOString(),
      to: r.to.toISOString(),
      sales: r.sales,
      totals: r.totals.map(line),
      partners: r.partners.map((l) => ({ partner_id: l.partnerId, ...line(l) })),
    };
  },
});

const previewPayoutTool = defineTool({
  name: 'preview_payout',
  title: 'Preview a payout',
  description:
    'What paying a partner everything payable in one currency would pay now: the credited, unpaid commissions (oldest first), what is netted for refunds they owe back, and the amount. Nothing is paid or written; payouts are made by the merchant, never through this server.',
  scope: 'write',
  input: { partner_id: idInput('The partner id'), currency: z.enum(CURRENCIES) },
  output: {
    partner_id: int,
    currency: z.string().length(3),
    commission_ids: z.array(int),
    commissions_cents: int,
    netted_cents: int,
    amount_cents: int.describe('What the partner would receive'),
    owed_cents: int,
  },
  async run(args, { ctx, grant }) {
    const p = await previewPayout(ctx.deps(), grant.programId, args.partner_id, args.currency);
    return {
      partner_id: p.partnerId,
      currency: p.currency,
      commission_ids: p.commissionIds,
      commissions_cents: p.commissionsCents,
      netted_cents: p.nettedCents,
      amount_cents: p.amountCents,
      owed_cents: p.owedCents,
    };
  },
});

export const previewTools = [previewRuleChange, previewPayoutTool];
