import type { Kysely } from 'kysely';
import type { DB } from '../db/sql.ts';
import type { RewardApplied } from '../entities/program-rules.ts';
import {
  matchPostings,
  roundHalfUp,
  type ExpectedPosting,
  type LedgerCheck,
  type StoredPosting,
} from './ledger-check.ts';
import { commissionPage, postingsOf, refundsOf } from './ledger-rows.ts';

type CommissionRow = Awaited<ReturnType<typeof commissionPage>>[number];
type RefundRow = Awaited<ReturnType<typeof refundsOf>>[number];

/**
 * Every commission of the program, a page at a time: its amount from the reward recorded on it and
 * the sale, its reversals from the sale's refunds (cumulative, so they never drift), and the
 * postings those call for, matched against the stored ones. Returns the rows read.
 */
export async function verifyCommissions(
  db: Kysely<DB>,
  programId: number,
  check: LedgerCheck,
  o: { pageSize: number; signal?: AbortSignal },
): Promise<void> {
  for (let after = 0; ;) {
    o.signal?.throwIfAborted();
    const page = await commissionPage(db, programId, after, o.pageSize);
    if (!page.length) return;
    after = page.at(-1)!.id;
    const saleIds = page.flatMap((c) => (c.sale_id === null ? [] : [c.sale_id]));
    const refunds = saleIds.length ? await refundsOf(db, programId, saleIds) : [];
    const stored = await postingsOf(
      db,
      'commission_id',
      page.map((c) => c.id),
    );
    check.rows += page.length + refunds.length + stored.length;
    const bySale = Map.groupBy(refunds, (r) => r.sale_id);
    const expected: ExpectedPosting[] = [];
    for (const c of page) {
      checkAmount(check, c);
      const mine = stored.filter((p) => p.commission_id === c.id);
      expected.push(
        ...(c.sale_id === null ? leadPostings(check, c, mine) : salePostings(check, c, bySale.get(c.sale_id) ?? [])),
      );
    }
    matchPostings(check, expected, stored, (p) =>
      p.kind === 'commission_credit'
        ? `credit:${p.commission_id}`
        : p.refund_id !== null
          ? `refund:${p.refund_id}`
          : `lead:${p.id}`,
    );
  }
}

/** The commission's amount from its recorded reward, and the reward's inputs against the sale. */
function checkAmount(check: LedgerCheck, c: CommissionRow): void {
  const at = { partnerId: c.partner_id, table: 'commission', rowId: c.id };
  const amount = BigInt(c.amount);
  const r = c.reward as RewardApplied | null;
  if (c.sale_id !== null) {
    if (
      !check.same(c.sale_currency, c.currency, { ...at, field: 'currency', why: `the currency of sale ${c.sale_id}` })
    )
      return;
    if (
      !check.same(String(c.sale_partner_id), String(c.partner_id), {
        ...at,
        field: 'partner_id',
        why: `sale ${c.sale_id}'s partner`,
      })
    )
      return;
  }
  const sale = c.sale_amount === null ? null : BigInt(c.sale_amount);
  if (r === null) {
    // Before rules were recorded: a percentage at the stored rate; a flat amount is not recorded.
    if (sale !== null && c.rate_bps > 0)
      check.same(roundHalfUp(sale * BigInt(c.rate_bps), 10_000n), amount, {
        ...at,
        field: 'amount_cents',
        why: `${c.rate_bps} bps of sale ${c.sale_id}'s ${sale}`,
      });
    return;
  }
  if (
    r.rule === 'product' &&
    !check.same(r.product_id, c.product_id, { ...at, field: 'reward.product_id', why: "the sale's product" })
  )
    return;
  if (r.tier && BigInt(r.tier.value) < BigInt(r.tier.from))
    return void check.same(`at least ${r.tier.from}`, String(r.tier.value), { ...at, field: 'reward.tier.value' });
  if (r.type === 'percent') {
    if (!check.same(String(r.bps), String(c.rate_bps), { ...at, field: 'rate_bps', why: 'the recorded reward' }))
      return;
    if (sale === null) return void check.same('a sale', 'none', { ...at, field: 'sale_id' });
    check.same(roundHalfUp(sale * BigInt(r.bps ?? 0), 10_000n), amount, {
      ...at,
      field: 'amount_cents',
      why: `${r.bps} bps of sale ${c.sale_id}'s ${sale}, rule ${r.rule}`,
    });
    return;
  }
  if (!check.same('0', String(c.rate_bps), { ...at, field: 'rate_bps', why: 'a flat reward' })) return;
  const flat = BigInt(r.flat_cents ?? 0);
  const want = sale !== null && sale < flat ? sale : flat;
  check.same(want, amount, { ...at, field: 'amount_cents', why: `flat ${flat} ${c.currency}, rule ${r.rule}` });
}

/**
 * A sale commission's reversals: each refund of the sale, in order, reverses
 * `round(commission × refunded so far / sale) − reversed before` (all of it once the sale is
 * wholly refunded); a credited commission's share comes off the balance. A commission rejected as
 * fraud is reversed whole and never credited.
 */
function salePostings(check: LedgerCheck, c: CommissionRow, refunds: RefundRow[]): ExpectedPosting[] {
  const at = { partnerId: c.partner_id, table: 'commission', rowId: c.id };
  const amount = BigInt(c.amount);
  const sale = BigInt(c.sale_amount!);
  const out: ExpectedPosting[] = [];
  let refunded = 0n;
  let reversed = 0n;
  let beforeCredit = 0n;
  for (const r of refunds) {
    const rat = { partnerId: c.partner_id, table: 'refund', rowId: r.id };
    refunded += BigInt(r.applied);
    const capped = refunded > sale ? sale : refunded;
    const target = capped >= sale ? amount : roundHalfUp(amount * capped, sale);
    const due = target - reversed > 0n ? target - reversed : 0n;
    if (
      !check.same(due, BigInt(r.deduction), {
        ...rat,
        field: 'deduction_cents',
        why: `sale ${c.sale_id} refunded ${capped} of ${sale}`,
      })
    )
      return out;
    reversed += due;
    const fromBalance = BigInt(r.balance_deduction);
    if (fromBalance !== 0n && !check.same(due, fromBalance, { ...rat, field: 'balance_deduction_cents' })) return out;
    if (fromBalance === 0n) beforeCredit += due;
    else
      out.push({
        key: `refund:${r.id}`,
        partnerId: c.partner_id,
        currency: c.currency,
        kind: 'refund_deduction',
        delta: -fromBalance,
        why: `refund ${r.id} of commission ${c.id}`,
      });
  }
  check.same(refunded, BigInt(c.sale_refunded!), {
    partnerId: c.partner_id,
    table: 'sale',
    rowId: c.sale_id,
    field: 'refunded_cents',
    why: 'the sum of its refunds',
  });
  const whole = !c.credited && c.status === 'reversed';
  const rejected = whole && !!(c.hold as { rejected_at?: string } | null)?.rejected_at;
  const voided = whole && !!c.voided_at_import && refunded === 0n;
  const lost = whole && !!c.lost_dispute && refunded === 0n;
  const wantReversed = rejected || voided || lost ? amount : reversed;
  if (
    !check.same(wantReversed, BigInt(c.reversed), {
      ...at,
      field: 'reversed_cents',
      why: rejected
        ? 'rejected as fraud'
        : voided
          ? 'voided at the source it was imported from'
          : lost
            ? 'its customer bound to another partner when the attribution dispute was resolved'
            : 'its refunds',
    })
  )
    return out;
  if (c.credited && amount - beforeCredit > 0n)
    out.push({
      key: `credit:${c.id}`,
      partnerId: c.partner_id,
      currency: c.currency,
      kind: 'commission_credit',
      delta: amount - beforeCredit,
      why: `commission ${c.id}, less ${beforeCredit} reversed before it was credited`,
    });
  return out;
}

/**
 * A lead commission has no refund rows: its reversals are its own postings. Those stand as stored
 * (each a deduction), and its credit must make the net what remains of it.
 */
function leadPostings(check: LedgerCheck, c: CommissionRow, stored: StoredPosting[]): ExpectedPosting[] {
  const amount = BigInt(c.amount);
  const reversed = BigInt(c.reversed);
  const at = { partnerId: c.partner_id, table: 'commission', rowId: c.id };
  if (reversed < 0n || reversed > amount) {
    check.same(`between 0 and ${amount}`, reversed.toString(), { ...at, field: 'reversed_cents' });
    return [];
  }
  const out: ExpectedPosting[] = [];
  let deducted = 0n;
  for (const p of stored.filter(
    (s) => s.kind === 'refund_deduction' && s.refund_id === null && BigInt(s.delta_cents) < 0n,
  )) {
    deducted -= BigInt(p.delta_cents);
    out.push({
      key: `lead:${p.id}`,
      partnerId: c.partner_id,
      currency: c.currency,
      kind: 'refund_deduction',
      delta: BigInt(p.delta_cents),
      why: `the reversal of lead commission ${c.id}`,
    });
  }
  const credit = amount - reversed + deducted;
  if (c.credited && credit > 0n)
    out.push({
      key: `credit:${c.id}`,
      partnerId: c.partner_id,
      currency: c.currency,
      kind: 'commission_credit',
      delta: credit,
      why: `lead commission ${c.id}: ${amount} less ${reversed} reversed`,
    });
  return out;
}
