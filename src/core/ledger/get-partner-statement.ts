import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner, type IPartner } from '../entities/partner.ts';
import { BalanceEntry, type IBalanceEntry } from '../entities/balance-entry.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { toRecord, type StoredRow } from '../shared/records.ts';
import { exactAmount as num } from '../shared/money.ts';
import { readBalances, sumEntries } from './ledger.ts';
import { bigCents, exactText, typedSql } from '../db/sql.ts';

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
  partner: StoredRow<IPartner>;
  currencies: CurrencyStatement[];
  ledger: StoredRow<IBalanceEntry>[];
  payouts: StoredRow<IPayout>[];
};

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
  const perCurrency = (table: 'commission' | 'payout') =>
    typedSql(em).selectFrom(table).select('currency').where('partner_id', '=', partnerId).groupBy('currency');
  const [balances, sums, unpaid, open, ledger, payouts] = await Promise.all([
    readBalances(em, partnerId),
    sumEntries(em, partnerId),
    perCurrency('commission')
      .select((eb) => exactText(eb.fn.sum(eb('amount_cents', '-', eb.ref('reversed_cents')))).as('total'))
      .where('credited_at', 'is not', null)
      .where('paid_at', 'is', null)
      .execute(),
    perCurrency('payout')
      .select((eb) => exactText(eb.fn.sum('amount_cents')).as('total'))
      .where('status', '=', 'open')
      .execute(),
    em.find(BalanceEntry, { partner: partnerId }, { orderBy: { id: 'desc' }, limit }),
    em.find(Payout, { partner: partnerId }, { orderBy: { id: 'desc' }, limit }),
  ]);
  const total = (rows: Array<{ currency: string; total: string }>, currency: string) =>
    bigCents(rows.find((r) => r.currency === currency)?.total);
  const currencies = balances.map(({ currency, balanceCents: balance }): CurrencyStatement => {
    const { credits, reversals, payouts: paid } = sums.get(currency) ?? { credits: 0n, reversals: 0n, payouts: 0n };
    const unpaidTotal = total(unpaid, currency);
    return {
      currency,
      creditsCents: num(credits),
      reversalsCents: num(reversals),
      payoutsCents: num(paid),
      balanceCents: num(balance),
      unpaidCommissionsCents: num(unpaidTotal),
      owedCents: num(unpaidTotal - balance > 0n ? unpaidTotal - balance : 0n),
      openPayoutsCents: num(total(open, currency)),
      reconciles: credits - reversals - paid === balance,
    };
  });
  return { partner: toRecord(partner), currencies, ledger: ledger.map(toRecord), payouts: payouts.map(toRecord) };
}
