import { z } from 'zod';
import { getPartnerStatement } from '../core/ledger/get-partner-statement.ts';
import { findPartnerTerms } from '../core/rewards/partner-groups.ts';
import { getProgram } from '../core/programs/programs.ts';
import { rewardRulesSchema } from '../core/entities/program-rules.ts';
import { partnerRow } from '../http/openapi/entity-rows.ts';
import { recordToWire } from '../http/wire/records.ts';
import { defineTool } from './define-tool.ts';
import { idInput } from './tool-inputs.ts';

const int = z.number().int();

const findPartner = defineTool({
  name: 'find_partner',
  title: 'Partner: balance and terms',
  description:
    "A partner of the program with the reward terms that apply to them (their group's rules, else the program's) and their balance per currency: credits, reversals, payouts, unpaid commissions, what they owe back, open payouts.",
  scope: 'read',
  input: { partner_id: idInput('The partner id (top_partners, search_commissions and search_sales name it)') },
  output: {
    partner: partnerRow,
    terms: z.strictObject({
      source: z.enum(['group', 'program']),
      group_id: int.nullable(),
      reward_rules: rewardRulesSchema.nullable().describe('null: no rules, the base commission rate applies'),
      commission_rate_bps: int.describe("The program's base rate when no rule applies"),
      hold_period_days: int.describe('Days before a pending commission is approved automatically'),
    }),
    balances: z.array(
      z.strictObject({
        currency: z.string().length(3),
        balance_cents: int,
        credits_cents: int,
        reversals_cents: int,
        payouts_cents: int,
        unpaid_commissions_cents: int,
        owed_cents: int.describe('Owed back from refunds of commissions already paid'),
        open_payouts_cents: int,
      }),
    ),
  },
  async run(args, { ctx, grant }) {
    const deps = ctx.deps();
    const programId = grant.programId;
    // Statements of a program run one at a time, as on the admin API (its report gate).
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS, wait: true };
    const statement = await ctx.reports.run(
      `statement:${programId}`,
      'A partner statement of this program',
      limits,
      () => getPartnerStatement(deps, programId, args.partner_id, 1),
    );
    const [terms, program] = await Promise.all([findPartnerTerms(deps, args.partner_id), getProgram(deps, programId)]);
    return {
      partner: recordToWire(statement.partner),
      terms: {
        source: terms.rules ? ('group' as const) : ('program' as const),
        group_id: terms.groupId,
        reward_rules: terms.rules ?? program.rewardRules ?? null,
        commission_rate_bps: program.commissionRateBps,
        hold_period_days: program.holdPeriodDays,
      },
      balances: statement.currencies.map((c) => ({
        currency: c.currency,
        balance_cents: c.balanceCents,
        credits_cents: c.creditsCents,
        reversals_cents: c.reversalsCents,
        payouts_cents: c.payoutsCents,
        unpaid_commissions_cents: c.unpaidCommissionsCents,
        owed_cents: c.owedCents,
        open_payouts_cents: c.openPayoutsCents,
      })),
    };
  },
});

export const partnerTools = [findPartner];
