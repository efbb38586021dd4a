import type { EntityManager } from '@mikro-orm/sql';
import { BalanceEntry, type BalanceEntryKind } from './entities/balance-entry.ts';
import { Payout } from './entities/payout.ts';

export type BalanceChange = {
  partnerId: number;
  currency: string;
  /** Signed, minor units. */
  deltaCents: number;
  kind: BalanceEntryKind;
  commissionId?: number | null;
  refundId?: number | null;
  payoutId?: number | null;
  at: Date;
};

/**
 * Changes a partner balance under its row lock, inside the caller's transaction, and writes the
 * ledger entry. The balance may go negative; open payouts are then reduced (newest first) so
 * that together they never exceed what the balance can pay. Returns the new balance.
 *
 * The addition happens in PostgreSQL (`bigint`), never in a JS number: a balance past 2^53 cents
 * stays exactly the sum of its ledger entries.
 */
export async function adjustPartnerBalance(em: EntityManager, change: BalanceChange): Promise<bigint> {
  await em.execute(
    'insert into partner_balance (partner_id, currency, balance_cents) values (?, ?, 0) on conflict (partner_id, currency) do nothing',
    [change.partnerId, change.currency],
  );
  // The update takes the row lock (the same one other writers of this balance wait for).
  const [row] = await em.execute<Array<{ balance: string }>>(
    'update partner_balance set balance_cents = balance_cents + ? where partner_id = ? and currency = ? returning balance_cents::text as balance',
    [String(change.deltaCents), change.partnerId, change.currency],
  );
  const balance = BigInt(row!.balance);
  em.create(BalanceEntry, {
    partner: change.partnerId,
    currency: change.currency,
    deltaCents: change.deltaCents,
    kind: change.kind,
    commissionId: change.commissionId ?? null,
    refundId: change.refundId ?? null,
    payoutId: change.payoutId ?? null,
    createdAt: change.at,
  });
  if (change.deltaCents < 0) await reduceOpenPayoutsToFit(em, change.partnerId, change.currency, balance);
  await em.flush();
  return balance;
}

/**
 * Spec, Partner balance: open withdrawals (open payouts) are reduced to fit. Call under the
 * balance's row lock; the caller flushes.
 */
export async function reduceOpenPayoutsToFit(
  em: EntityManager,
  partnerId: number,
  currency: string,
  balanceCents: bigint,
): Promise<void> {
  const open = await em.find(Payout, { partner: partnerId, currency, status: 'open' }, { orderBy: { id: 'desc' } });
  let excess = open.reduce((sum, w) => sum + BigInt(w.amountCents), 0n) - (balanceCents > 0n ? balanceCents : 0n);
  for (const w of open) {
    if (excess <= 0n) break;
    const amount = BigInt(w.amountCents);
    const cut = excess < amount ? excess : amount;
    w.amountCents = Number(amount - cut);
    if (w.amountCents === 0) w.status = 'cancelled';
    excess -= cut;
  }
}

/**
 * `reduceOpenPayoutsToFit` and its flush for a caller that changed the balance in SQL: one sum
 * first (summed in SQL, never in floating point), and the payouts loaded and changed only when
 * they no longer fit (the common case has none open). Call under the balance's row lock.
 */
export async function fitOpenPayouts(
  em: EntityManager,
  partnerId: number,
  currency: string,
  balanceCents: bigint,
): Promise<void> {
  const [row] = await em.execute<Array<{ open: string }>>(
    `select coalesce(sum(amount_cents), 0)::text as open from payout where partner_id = ? and currency = ? and status = 'open'`,
    [partnerId, currency],
  );
  if (BigInt(row?.open ?? '0') <= (balanceCents > 0n ? balanceCents : 0n)) return;
  await reduceOpenPayoutsToFit(em, partnerId, currency, balanceCents);
  await em.flush();
}
