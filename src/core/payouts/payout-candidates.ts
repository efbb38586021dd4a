/**
 * Who a payout run looks at, and the reasons it can tell before planning a payout: every partner
 * of the program with a balance (positive or negative) or commissions not credited yet, per
 * currency, with their payout details' kind and their oldest open payout (a request the run pays).
 * The run (payout-runs.ts) and its preview (preview-payout-run.ts) read the same list and apply
 * the same reasons, so the preview says what the run will do.
 */
import type { EntityManager } from '@mikro-orm/sql';
import { bigCents, exactText, typedSql } from '../db/sql.ts';
import { formatMoney } from '../shared/money.ts';
import type { PayoutMethodKind, PayoutRail, PayoutSkipReason } from '../shared/vocabulary.ts';

/** A partner in one currency, as a run finds them. Amounts are minor units of `currency`. */
export type PayoutCandidate = {
  partnerId: number;
  name: string;
  code: string;
  currency: string;
  /** The balance (credited commissions not paid out, less what was taken back); may be below zero. */
  balanceCents: bigint;
  /** Commissions not credited yet, waiting for the program's hold period or an approval. */
  pendingCents: bigint;
  /** Commissions held for review (fraud rules or a dispute): never paid before a decision. */
  reviewHeldCents: bigint;
  method: PayoutMethodKind | null;
  /** The partner's oldest open payout in the currency (their request), null when none. */
  requestId: number | null;
};

/** A reason to pass a partner by, with its sentence for people. */
export type PayoutSkip = { code: PayoutSkipReason; reason: string };

/** Every partner of the program a run in `currency` (null: every currency) has to say something about. */
export async function payoutCandidates(
  em: EntityManager,
  programId: number,
  currency: string | null,
): Promise<PayoutCandidate[]> {
  const db = typedSql(em);
  const balances = await db
    .selectFrom('partner_balance as b')
    .innerJoin('partner as p', 'p.id', 'b.partner_id')
    .select((eb) => ['b.partner_id', 'b.currency', exactText(eb.ref('b.balance_cents')).as('cents')])
    .where('p.program_id', '=', programId)
    .where('b.balance_cents', '<>', 0)
    .$if(currency !== null, (q) => q.where('b.currency', '=', currency!))
    .execute();
  const pending = await db
    .selectFrom('commission')
    .select((eb) => [
      'partner_id',
      'currency',
      exactText(
        eb.fn.coalesce(
          eb.fn.sum(eb('amount_cents', '-', eb.ref('reversed_cents'))).filterWhere('held_for_review', '=', false),
          eb.lit(0),
        ),
      ).as('pending'),
      exactText(
        eb.fn.coalesce(
          eb.fn.sum(eb('amount_cents', '-', eb.ref('reversed_cents'))).filterWhere('held_for_review', '=', true),
          eb.lit(0),
        ),
      ).as('held'),
    ])
    .where('program_id', '=', programId)
    .where('credited_at', 'is', null)
    .where('status', '<>', 'reversed')
    .$if(currency !== null, (q) => q.where('currency', '=', currency!))
    .groupBy(['partner_id', 'currency'])
    .execute();
  const byKey = new Map<string, PayoutCandidate>();
  const entry = (partnerId: number, cur: string) => {
    const key = `${partnerId}|${cur}`;
    let c = byKey.get(key);
    if (!c) {
      c = {
        partnerId,
        currency: cur,
        name: '',
        code: '',
        balanceCents: 0n,
        pendingCents: 0n,
        reviewHeldCents: 0n,
        method: null,
        requestId: null,
      };
      byKey.set(key, c);
    }
    return c;
  };
  for (const b of balances) entry(b.partner_id, b.currency).balanceCents = bigCents(b.cents);
  for (const p of pending) {
    const [open, held] = [bigCents(p.pending), bigCents(p.held)];
    if (open <= 0n && held <= 0n) continue;
    Object.assign(entry(p.partner_id, p.currency), { pendingCents: open, reviewHeldCents: held });
  }
  const ids = [...new Set([...byKey.values()].map((c) => c.partnerId))];
  if (!ids.length) return [];
  const partners = await db
    .selectFrom('partner as p')
    .leftJoin('payout_method as m', 'm.partner_id', 'p.id')
    .select(['p.id', 'p.name', 'p.code', 'm.kind'])
    .where('p.id', 'in', ids)
    .execute();
  const requests = await db
    .selectFrom('payout')
    .select(['partner_id', 'currency', (eb) => eb.fn.min('id').as('id')])
    .where('program_id', '=', programId)
    .where('partner_id', 'in', ids)
    .where('status', '=', 'open')
    .groupBy(['partner_id', 'currency'])
    .execute();
  const byPartner = new Map(partners.map((p) => [p.id, p]));
  const requestOf = new Map(requests.map((r) => [`${r.partner_id}|${r.currency}`, r.id]));
  for (const [key, c] of byKey) {
    const p = byPartner.get(c.partnerId);
    c.name = p?.name ?? '';
    c.code = p?.code ?? '';
    c.method = (p?.kind as PayoutMethodKind | null | undefined) ?? null;
    c.requestId = requestOf.get(key) ?? null;
  }
  return [...byKey.values()].sort((a, b) => a.partnerId - b.partnerId || a.currency.localeCompare(b.currency));
}

/**
 * The reasons known before planning a payout, in the order of PAYOUT_SKIP_REASONS: nothing in the
 * balance (below zero, or zero with commissions still pending), then the payout details a rail
 * that pays a person needs. Null: plan the payout (`unsettledReason` says the rest).
 */
export function skipBeforePlan(c: PayoutCandidate, rail: PayoutRail): PayoutSkip | null {
  if (c.balanceCents < 0n)
    return {
      code: 'negative_balance',
      reason: `Negative balance: the partner owes back ${formatMoney(-c.balanceCents, c.currency)}`,
    };
  if (c.balanceCents === 0n) return { code: 'held', reason: heldSentence(c) };
  if (rail === 'manual') return null;
  if (!c.method)
    return { code: 'no_payout_details', reason: 'No payout details: the partner has not said where to be paid' };
  if (c.method !== rail)
    return {
      code: 'method_not_in_run',
      reason: `Payout details are for ${c.method}, not for this ${rail} run`,
    };
  return null;
}

/** "Nothing credited yet": what waits for the hold period or an approval, and what is held for review. */
export function heldSentence(c: Pick<PayoutCandidate, 'pendingCents' | 'reviewHeldCents' | 'currency'>): string {
  const parts = [
    c.pendingCents > 0n && `${formatMoney(c.pendingCents, c.currency)} not yet due (hold period or approval)`,
    c.reviewHeldCents > 0n && `${formatMoney(c.reviewHeldCents, c.currency)} held by fraud rules or a dispute`,
  ].filter(Boolean);
  return `Held: nothing credited to pay yet${parts.length ? `; ${parts.join(', ')}` : ''}`;
}

/** A balance as a JSON-safe number for a record that shows it (a balance past 2^53 - 1 shows that). */
export const clampCents = (cents: bigint): number =>
  Number(
    cents > BigInt(Number.MAX_SAFE_INTEGER)
      ? BigInt(Number.MAX_SAFE_INTEGER)
      : cents < -BigInt(Number.MAX_SAFE_INTEGER)
        ? -BigInt(Number.MAX_SAFE_INTEGER)
        : cents,
  );
