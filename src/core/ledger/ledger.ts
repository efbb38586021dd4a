import type { EntityManager } from '@mikro-orm/sql';
import type { BalanceEntryKind } from '../entities/balance-entry.ts';
import { Payout } from '../entities/payout.ts';
import type { Compilable, Expression, Kysely } from 'kysely';
import { bigCents, compileStatement, exactText, typedSql, type DB } from '../db/sql.ts';

/** One change of a partner balance and its cause. */
export type LedgerEntry = {
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

/** A posting's values, every one given (statements bind them by name). */
type PostingValues = {
  partnerId: number;
  currency: string;
  deltaCents: number;
  kind: BalanceEntryKind;
  commissionId: number | null;
  refundId: number | null;
  payoutId: number | null;
  at: Date;
};

declare const whole: unique symbol;

/**
 * One posting to the ledger, whole: its two writes (the balance and the entry) and the step that
 * must follow them under the balance's row lock (`afterPosting`). Made by `posting`; only the
 * ledger applies it, all of it: `postToLedger`, or the runner of a statement that carries it
 * (`compilePostingStatement`). No caller can write a posting and forget its after-step.
 */
export type Posting = Readonly<PostingValues> & { readonly [whole]: true };

export function posting(e: LedgerEntry): Posting {
  const values: PostingValues = {
    partnerId: e.partnerId,
    currency: e.currency,
    deltaCents: e.deltaCents,
    kind: e.kind,
    commissionId: e.commissionId ?? null,
    refundId: e.refundId ?? null,
    payoutId: e.payoutId ?? null,
    at: e.at,
  };
  return values as Posting;
}

/** A posting's values as parameters of the statement that carries it (`ledger_partnerId`, …). */
type PostingParams = { [K in keyof PostingValues as `ledger_${K}`]: PostingValues[K] };
const POSTING_KEYS = [
  'partnerId',
  'currency',
  'deltaCents',
  'kind',
  'commissionId',
  'refundId',
  'payoutId',
  'at',
] as const satisfies ReadonlyArray<keyof PostingValues>;

function postingParams(p: PostingValues): PostingParams {
  return Object.fromEntries(POSTING_KEYS.map((k) => [`ledger_${k}`, p[k]])) as PostingParams;
}

function postingValues(p: PostingParams): PostingValues {
  return Object.fromEntries(POSTING_KEYS.map((k) => [k, p[`ledger_${k}`]])) as PostingValues;
}

/** The two writes of a posting as CTE bodies (`compilePostingStatement`). */
function ledgerWrites(db: Kysely<DB>, p: PostingValues, refundId?: Expression<number>) {
  return {
    balance: db
      .insertInto('partner_balance')
      .values({ partner_id: p.partnerId, currency: p.currency, balance_cents: p.deltaCents })
      .onConflict((oc) =>
        oc.columns(['partner_id', 'currency']).doUpdateSet((eb) => ({
          balance_cents: eb('partner_balance.balance_cents', '+', eb.ref('excluded.balance_cents')),
        })),
      )
      .returning('balance_cents'),
    entry: db
      .insertInto('balance_entry')
      .values({
        partner_id: p.partnerId,
        currency: p.currency,
        delta_cents: p.deltaCents,
        kind: p.kind,
        commission_id: p.commissionId,
        refund_id: refundId ?? p.refundId,
        payout_id: p.payoutId,
        created_at: p.at,
      })
      .returning('id'),
  };
}

export type PostingWrites = ReturnType<typeof ledgerWrites>;

/** A statement compiled once that carries a posting; `run` writes it and applies its after-step. */
export type PostingStatement<P, R> = {
  sql: string;
  run(em: EntityManager, params: P, posting: Posting): Promise<{ row: R; balance: bigint }>;
};

/**
 * A statement (compiled once, `compileStatement`) that carries a posting among its own writes, in
 * one round trip: `build` gets the posting's writes (`writes(refundId)`, `refundId` an expression
 * of the statement naming its refund row), names them `b` and `e`, and selects `balance` (the
 * `b.balance_cents` as `exactText`). Its runner binds the posting, runs the statement and applies
 * the posting's after-step with the new balance, so the posting is applied whole or not at all.
 */
export function compilePostingStatement<P extends object, R extends { balance: string }>(
  build: (db: Kysely<DB>, p: P, writes: (refundId?: Expression<number>) => PostingWrites) => Compilable<R>,
): PostingStatement<P, R> {
  const statement = compileStatement((db, p: P & PostingParams) =>
    build(db, p, (refundId) => ledgerWrites(db, postingValues(p), refundId)),
  );
  return {
    sql: statement.sql,
    async run(em, params, p) {
      const [row] = await statement.run(em, { ...params, ...postingParams(p) });
      const balance = bigCents(row!.balance);
      await afterPosting(em, p, balance);
      return { row: row!, balance };
    },
  };
}

const POST = compilePostingStatement((db, _p: object, writes) => {
  const w = writes();
  return db
    .with('b', w.balance)
    .with('e', w.entry)
    .selectFrom('b')
    .select((eb) => exactText(eb.ref('b.balance_cents')).as('balance'));
});

/**
 * The ledger: the only writer of `partner_balance` and `balance_entry`. Every use-case that moves a
 * partner's money (approval, refund, payout, and whatever comes next) posts here, inside its own
 * transaction, after the status change it belongs to.
 *
 * One statement changes the balance under its row lock (created at 0 when new; the addition is done
 * in PostgreSQL's bigint, never in a JS number, so a balance past 2^53 cents stays exactly the sum
 * of its entries) and appends the entry. A balance may go negative; when it fell, open payouts are
 * then reduced (newest first) so that together they never exceed what it can pay. Returns the new
 * balance.
 */
export async function postToLedger(em: EntityManager, p: Posting): Promise<bigint> {
  return (await POST.run(em, {}, p)).balance;
}

/** Still under the balance's row lock (taken by the posting): open payouts shrink to fit a fall. */
async function afterPosting(em: EntityManager, p: PostingValues, balance: bigint): Promise<void> {
  if (p.deltaCents < 0) await fitOpenPayouts(em, p.partnerId, p.currency, balance);
}

/**
 * Takes the balance's row lock (the lock every writer of this balance waits for; lock order:
 * commission rows, then the balance, then payouts) and reads, after it, the balance and the sum of
 * open payouts. A balance without a row yet is 0 and has nothing to lock.
 */
export async function lockBalance(
  em: EntityManager,
  partnerId: number,
  currency: string,
): Promise<{ balanceCents: bigint; openPayoutsCents: bigint }> {
  const db = typedSql(em);
  const locked = await db
    .selectFrom('partner_balance')
    .select((eb) => exactText(eb.ref('balance_cents')).as('balance'))
    .where('partner_id', '=', partnerId)
    .where('currency', '=', currency)
    .forUpdate()
    .executeTakeFirst();
  // A statement of its own: it reads what committed before the lock was granted.
  return { balanceCents: bigCents(locked?.balance), openPayoutsCents: await openPayoutsCents(em, partnerId, currency) };
}

const OPEN_PAYOUTS = compileStatement((db, p: { partnerId: number; currency: string }) =>
  db
    .selectFrom('payout')
    .select((eb) => exactText(eb.fn.coalesce(eb.fn.sum('amount_cents'), eb.lit(0))).as('open'))
    .where('partner_id', '=', p.partnerId)
    .where('currency', '=', p.currency)
    .where('status', '=', 'open'),
);

async function openPayoutsCents(em: EntityManager, partnerId: number, currency: string): Promise<bigint> {
  const [row] = await OPEN_PAYOUTS.run(em, { partnerId, currency });
  return bigCents(row?.open);
}

/**
 * Spec, Partner balance: open withdrawals (open payouts) are reduced to fit. Under the balance's row
 * lock: one sum first, and the payouts loaded and changed only when they no longer fit (the common
 * case has none open).
 */
async function fitOpenPayouts(em: EntityManager, partnerId: number, currency: string, balance: bigint): Promise<void> {
  const available = balance > 0n ? balance : 0n;
  if ((await openPayoutsCents(em, partnerId, currency)) <= available) return;
  const open = await em.find(Payout, { partner: partnerId, currency, status: 'open' }, { orderBy: { id: 'desc' } });
  let excess = open.reduce((sum, w) => sum + BigInt(w.amountCents), 0n) - available;
  for (const w of open) {
    if (excess <= 0n) break;
    const amount = BigInt(w.amountCents);
    const cut = excess < amount ? excess : amount;
    w.amountCents = Number(amount - cut);
    if (w.amountCents === 0) w.status = 'cancelled';
    excess -= cut;
  }
  await em.flush();
}

/** A partner's balances, one per currency (exact). */
export async function readBalances(
  em: EntityManager,
  partnerId: number,
): Promise<Array<{ currency: string; balanceCents: bigint }>> {
  const rows = await typedSql(em)
    .selectFrom('partner_balance')
    .select((eb) => ['currency', exactText(eb.ref('balance_cents')).as('balance')])
    .where('partner_id', '=', partnerId)
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, balanceCents: bigCents(r.balance) }));
}

/** What a partner's entries add up to per currency, by cause (positive amounts). */
export async function sumEntries(
  em: EntityManager,
  partnerId: number,
): Promise<Map<string, { credits: bigint; reversals: bigint; payouts: bigint }>> {
  const rows = await typedSql(em)
    .selectFrom('balance_entry')
    .select((eb) => {
      const sumOf = (...kinds: BalanceEntryKind[]) =>
        exactText(eb.fn.coalesce(eb.fn.sum('delta_cents').filterWhere('kind', 'in', kinds), eb.lit(0)));
      return [
        'currency',
        sumOf('commission_credit').as('credits'),
        sumOf('refund_deduction').as('reversals'),
        // Net of failed payouts, which give their amount back.
        sumOf('payout', 'payout_failed').as('payouts'),
      ];
    })
    .where('partner_id', '=', partnerId)
    .groupBy('currency')
    .execute();
  return new Map(
    rows.map((r) => [
      r.currency,
      { credits: bigCents(r.credits), reversals: -bigCents(r.reversals), payouts: -bigCents(r.payouts) },
    ]),
  );
}
