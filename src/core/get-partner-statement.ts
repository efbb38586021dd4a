import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Partner } from './entities/partner.ts';
import { BalanceEntry } from './entities/balance-entry.ts';
import { Payout } from './entities/payout.ts';
import { toRecord, type StoredRecord } from './records.ts';
import { exactAmount as num } from './money.ts';

/**
 * A partner's position in one currency, minor units. `creditsCents - reversalsCents - payoutsCents`
 * is `balanceCents` (`reconciles`). `unpaidCommissionsCents` is what remains of credited commissions
 * not paid yet; `owedCents` what the partner owes back from refunds of commissions already paid
 * (netted by the next payout): `balanceCents = unpaidCommissionsCents - owedCents`.
 */
export type CurrencyStatement = {
  currency: string;
  creditsCents: number;
  reversalsCents: number;
  payoutsCents: number;
  balanceCents: number;
  unpaidCommissionsCents: number;
  owedCents: number;
  openPayoutsCents: number;
  reconciles: boolean;
};

export type PartnerStatement = {
  partner: StoredRecord;
  currencies: CurrencyStatement[];
  ledger: StoredRecord[];
  payouts: StoredRecord[];
};

type Sums = { currency: string; credits: string; reversals: string; payouts: string };

/**
 * Credits, reversals, payouts and balance per currency, summed in SQL (exact integers), with the
 * latest ledger entries and payouts. @throws AppError `not_found`.
 */
export async function getPartnerStatement(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  limit = 200,
): Promise<PartnerStatement> {
  const em = deps.em;
  const partner = await em.findOne(Partner, { id: partnerId, program: programId });
  if (!partner) throw new AppError('not_found', 'No such partner in this program');
  const [balances, sums, unpaid, open, ledger, payouts] = await Promise.all([
    em.execute<Array<{ currency: string; balance: string }>>(
      `select "currency", "balance_cents"::text as "balance" from "partner_balance" where "partner_id" = ? order by "currency"`,
      [partnerId],
    ),
    em.execute<Sums[]>(
      `select "currency",
         coalesce(sum("delta_cents") filter (where "kind" = 'commission_credit'), 0)::text as "credits",
         coalesce(-sum("delta_cents") filter (where "kind" = 'refund_deduction'), 0)::text as "reversals",
         coalesce(-sum("delta_cents") filter (where "kind" = 'payout'), 0)::text as "payouts"
       from "balance_entry" where "partner_id" = ? group by "currency"`,
      [partnerId],
    ),
    em.execute<Array<{ currency: string; total: string }>>(
      `select "currency", sum("amount_cents" - "reversed_cents")::text as "total" from "commission"
       where "partner_id" = ? and "credited_at" is not null and "paid_at" is null group by "currency"`,
      [partnerId],
    ),
    em.execute<Array<{ currency: string; total: string }>>(
      `select "currency", sum("amount_cents")::text as "total" from "payout" where "partner_id" = ? and "status" = 'open' group by "currency"`,
      [partnerId],
    ),
    em.find(BalanceEntry, { partner: partnerId }, { orderBy: { id: 'desc' }, limit }),
    em.find(Payout, { partner: partnerId }, { orderBy: { id: 'desc' }, limit }),
  ]);
  const big = (rows: Array<{ currency: string; total: string }>, currency: string) =>
    BigInt(rows.find((r) => r.currency === currency)?.total ?? '0');
  const currencies = balances.map((b): CurrencyStatement => {
    const s = sums.find((r) => r.currency === b.currency);
    const credits = BigInt(s?.credits ?? '0');
    const reversals = BigInt(s?.reversals ?? '0');
    const paid = BigInt(s?.payouts ?? '0');
    const balance = BigInt(b.balance);
    const unpaidTotal = big(unpaid, b.currency);
    return {
      currency: b.currency,
      creditsCents: num(credits),
      reversalsCents: num(reversals),
      payoutsCents: num(paid),
      balanceCents: num(balance),
      unpaidCommissionsCents: num(unpaidTotal),
      owedCents: num(unpaidTotal - balance > 0n ? unpaidTotal - balance : 0n),
      openPayoutsCents: num(big(open, b.currency)),
      reconciles: credits - reversals - paid === balance,
    };
  });
  return { partner: toRecord(partner), currencies, ledger: ledger.map(toRecord), payouts: payouts.map(toRecord) };
}
