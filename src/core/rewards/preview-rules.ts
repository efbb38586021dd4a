import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program, type IProgram } from '../entities/program.ts';
import { PartnerGroup } from '../entities/partner-group.ts';
import { evaluateReward, renewalEarns } from './reward-rules.ts';
import { type RewardRules } from '../entities/program-rules.ts';
import { periodStart } from './partner-groups.ts';
import { typedSql } from '../db/sql.ts';
import { loadPreviewSales, PREVIEW_PAGE_SIZE, type SaleRow, type SalesCursor } from './preview-sales.ts';
import { exactAmount } from '../shared/money.ts';
import { createTimeSlice } from '../shared/time-slice.ts';

/** A proposed rule set: the program's, and (by group id) groups' (a group not named keeps its own). */
export type ProposedRules = { programRules: RewardRules | null; groupRules: Record<number, RewardRules | null> };

/** Current and proposed commissions of one partner (or the total) in one currency, minor units. */
export type PreviewLine = { currency: string; sales: number; currentCents: number; proposedCents: number };
export type RulesPreview = {
  from: Date;
  to: Date;
  sales: number;
  totals: PreviewLine[];
  partners: Array<PreviewLine & { partnerId: number }>;
};

/** How a preview runs: `signal` stops it (its reason is thrown at the next page or slice). */
export type PreviewOptions = { signal?: AbortSignal; pageSize?: number };

/**
 * What the proposed rules would have paid on the program's attributed live sales received in
 * [from, to), beside what was recorded, per partner and currency; nothing is written. Sales are
 * replayed in the order received: tiers count each partner's sales from the start of the earliest
 * tier period the window needs, renewals follow the recurring policy of the proposed terms. The
 * partners' current groups are kept.
 *
 * The sales are read a page at a time (keyset on the time received and the id) and replayed in
 * time slices that hand the event loop back (time-slice.ts): a year of a large program neither
 * holds a connection and every row at once nor stalls the tracking calls of the same process. The
 * pages are separate reads, not one snapshot: a sale recorded while the preview runs may or may
 * not be counted. @throws AppError `not_found`; the signal's reason once it is aborted.
 */
export async function previewRules(
  deps: CoreDeps,
  programId: number,
  proposed: ProposedRules,
  window: { from: Date; to: Date },
  opts: PreviewOptions = {},
): Promise<RulesPreview> {
  const em = deps.em;
  const program = await em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  const groups = new Map<number, RewardRules | null>();
  for (const g of await em.find(PartnerGroup, { program: programId }, { fields: ['id', 'rewardRules'] }))
    groups.set(g.id, Object.hasOwn(proposed.groupRules, g.id) ? proposed.groupRules[g.id]! : (g.rewardRules ?? null));
  for (const id of Object.keys(proposed.groupRules))
    if (!groups.has(Number(id))) throw new AppError('not_found', `No partner group ${id} in this program`);

  // Tier periods reach back before `from`: load from the earliest start any rule set needs.
  const periods = [proposed.programRules, ...groups.values()].flatMap((r) => (r?.tiers ? [r.tiers.period] : []));
  const loadFrom = new Date(
    Math.min(window.from.getTime(), ...periods.map((p) => periodStart(p, window.from).getTime())),
  );
  const firstSale = [proposed.programRules, ...groups.values()].some((r) => !!r?.first_sale);
  const replay = createReplay(program, proposed.programRules, groups, await loadMembers(em, programId), window.from);
  const slice = createTimeSlice(opts.signal);
  const pageSize = opts.pageSize ?? PREVIEW_PAGE_SIZE;
  let after: SalesCursor | null = null;
  for (let last = false; !last;) {
    opts.signal?.throwIfAborted();
    const page = await loadPreviewSales(em, programId, {
      from: loadFrom,
      to: window.to,
      after,
      limit: pageSize,
      firstSale,
    });
    last = page.rows.length < pageSize;
    after = page.last;
    for (const s of page.rows) {
      if (slice.spent()) await slice.next();
      replay.add(s);
    }
  }
  const { lines, count } = replay;
  const partners = [...lines.values()].sort(
    (a, b) => a.partnerId - b.partnerId || a.currency.localeCompare(b.currency),
  );
  const totals = new Map<string, PreviewLine>();
  for (const l of partners) {
    const t = totals.get(l.currency) ?? { currency: l.currency, sales: 0, currentCents: 0, proposedCents: 0 };
    t.sales += l.sales;
    t.currentCents += l.currentCents;
    t.proposedCents += l.proposedCents;
    totals.set(l.currency, t);
  }
  const exact = <L extends PreviewLine>(l: L): L => ({
    ...l,
    currentCents: exactAmount(BigInt(l.currentCents)),
    proposedCents: exactAmount(BigInt(l.proposedCents)),
  });
  return {
    from: window.from,
    to: window.to,
    sales: count,
    totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)).map(exact),
    partners: partners.map(exact),
  };
}

/**
 * The replay of sales in the order received: each sale counts towards its partner's tier period
 * (the ones before `from` included); those from `from` on are evaluated under the proposed rules
 * and summed per partner and currency beside what was recorded.
 */
function createReplay(
  program: IProgram,
  programRules: RewardRules | null,
  groups: Map<number, RewardRules | null>,
  members: Map<number, number>,
  from: Date,
) {
  const windows = new Map<string, TierWindow>();
  const lines = new Map<string, PreviewLine & { partnerId: number }>();
  const out = {
    lines,
    count: 0,
    add(s: SaleRow): void {
      const groupId = members.get(s.partnerId) ?? null;
      const groupRules = groupId === null ? null : (groups.get(groupId) ?? null);
      const rules = groupRules ?? programRules;
      const tiers = rules?.tiers;
      let tierValue = 0;
      if (tiers) {
        const key = `${s.partnerId}:${tiers.period}`;
        const w = windows.get(key) ?? newWindow();
        windows.set(key, w);
        tierValue = addToWindow(w, s, periodStart(tiers.period, new Date(s.at)).getTime(), tiers.metric);
      }
      if (s.at < from.getTime()) return;
      let proposedCents = 0;
      const earns = s.firstSaleAt === null || renewalEarns(rules, program, new Date(s.firstSaleAt), new Date(s.at));
      if (earns) {
        proposedCents = evaluateReward(rules, { source: groupRules ? 'group' : 'program', groupId }, program, {
          amountCents: s.amountCents,
          currency: s.currency,
          productId: s.productId,
          tierValue,
          firstSale: s.firstSale,
        }).cents;
      }
      out.count++;
      const key = `${s.partnerId}:${s.currency}`;
      const line = lines.get(key) ?? {
        partnerId: s.partnerId,
        currency: s.currency,
        sales: 0,
        currentCents: 0,
        proposedCents: 0,
      };
      line.sales++;
      line.currentCents += Number(s.currentCents);
      line.proposedCents += proposedCents;
      lines.set(key, line);
    },
  };
  return out;
}

/**
 * A partner's sales in a sliding tier period (its start only moves forward as sales are replayed in
 * order): their times, amounts and currencies in plain arrays, not the rows, so a long window keeps
 * no per-sale object alive for the garbage collector to trace and move.
 */
type TierWindow = { at: number[]; amount: number[]; currency: string[]; start: number; revenue: Map<string, number> };

const newWindow = (): TierWindow => ({ at: [], amount: [], currency: [], start: 0, revenue: new Map() });

/** Adds `sale` to the window, drops what fell before `since`, and answers the partner's results with it. */
function addToWindow(w: TierWindow, sale: SaleRow, since: number, metric: 'sales' | 'revenue'): number {
  w.at.push(sale.at);
  w.amount.push(sale.amountCents);
  w.currency.push(sale.currency);
  w.revenue.set(sale.currency, (w.revenue.get(sale.currency) ?? 0) + sale.amountCents);
  while (w.at[w.start]! < since) {
    const old = w.start++;
    w.revenue.set(w.currency[old]!, w.revenue.get(w.currency[old]!)! - w.amount[old]!);
  }
  // Forget the sales that left the period (a year of a partner's sales is not kept for a month's tier).
  if (w.start >= 1_024 && w.start * 2 >= w.at.length) {
    w.at = w.at.slice(w.start);
    w.amount = w.amount.slice(w.start);
    w.currency = w.currency.slice(w.start);
    w.start = 0;
  }
  return metric === 'sales' ? w.at.length - w.start : w.revenue.get(sale.currency)!;
}

/** Partner id → group id, for the program's partners in a group. */
async function loadMembers(em: CoreDeps['em'], programId: number): Promise<Map<number, number>> {
  const rows = await typedSql(em)
    .selectFrom('partner')
    .select(['id', 'group_id'])
    .where('program_id', '=', programId)
    .where('group_id', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.group_id!]));
}
