import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import { PartnerBalance } from './entities/partner-balance.ts';
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
 */
export async function adjustPartnerBalance(em: EntityManager, change: BalanceChange): Promise<number> {
  await em.execute(
    'insert into partner_balance (partner_id, currency, balance_cents) values (?, ?, 0) on conflict (partner_id, currency) do nothing',
    [change.partnerId, change.currency],
  );
  const balance = await em.findOneOrFail(
    PartnerBalance,
    { partner: change.partnerId, currency: change.currency },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  balance.balanceCents += change.deltaCents;
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
  if (change.deltaCents < 0) await reduceOpenPayoutsToFit(em, change.partnerId, change.currency, balance.balanceCents);
  await em.flush();
  return balance.balanceCents;
}

/** Spec, Partner balance: open withdrawals (open payouts) are reduced to fit. */
async function reduceOpenPayoutsToFit(em: EntityManager, partnerId: number, currency: string, balanceCents: number): Promise<void> {
  const open = await em.find(Payout, { partner: partnerId, currency, status: 'open' }, { orderBy: { id: 'desc' } });
  let excess = open.reduce((sum, w) => sum + w.amountCents, 0) - Math.max(0, balanceCents);
  for (const w of open) {
    if (excess <= 0) break;
    const cut = Math.min(excess, w.amountCents);
    w.amountCents -= cut;
    if (w.amountCents === 0) w.status = 'cancelled';
    excess -= cut;
  }
}
