import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { exactText, isoText, type DB } from '../db/sql.ts';
import { defuseFormula } from '../shared/csv-formulas.ts';
import { matchPostings, type ExpectedPosting, type LedgerCheck } from './ledger-check.ts';
import { postingsOf } from './ledger-rows.ts';

type Paging = { pageSize: number; signal?: AbortSignal };

/**
 * Every payout of the program: a paid or processing payout took its amount off the balance (one
 * `payout` posting), a failed one gave it back (`payout_failed`), an open or cancelled one moved
 * nothing; a paid amount is what its commissions came to less what it netted.
 */
export async function verifyPayouts(db: Kysely<DB>, programId: number, check: LedgerCheck, o: Paging): Promise<void> {
  for (let after = 0; ;) {
    o.signal?.throwIfAborted();
    const page = await db
      .selectFrom('payout')
      .select((eb) => [
        'id',
        'partner_id',
        'currency',
        'status',
        exactText(eb.ref('amount_cents')).as('amount'),
        exactText(eb.ref('commissions_cents')).as('commissions'),
        exactText(eb.ref('netted_cents')).as('netted'),
      ])
      .where('program_id', '=', programId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(o.pageSize)
      .execute();
    if (!page.length) return;
    after = page.at(-1)!.id;
    const stored = await postingsOf(
      db,
      'payout_id',
      page.map((p) => p.id),
    );
    check.rows += page.length + stored.length;
    const expected: ExpectedPosting[] = [];
    for (const p of page) {
      const amount = BigInt(p.amount);
      const moved = p.status === 'paid' || p.status === 'processing' || p.status === 'failed';
      if (!moved) continue;
      const at = { partnerId: p.partner_id, table: 'payout', rowId: p.id };
      if (p.status !== 'failed')
        check.same(BigInt(p.commissions) - BigInt(p.netted), amount, {
          ...at,
          field: 'amount_cents',
          why: `commissions ${p.commissions} less netted ${p.netted}`,
        });
      const base = { partnerId: p.partner_id, currency: p.currency };
      expected.push({ ...base, key: `payout:${p.id}`, kind: 'payout', delta: -amount, why: `payout ${p.id}` });
      if (p.status === 'failed')
        expected.push({
          ...base,
          key: `failed:${p.id}`,
          kind: 'payout_failed',
          delta: amount,
          why: `failed payout ${p.id}`,
        });
    }
    matchPostings(check, expected, stored, (s) =>
      s.kind === 'payout'
        ? `payout:${s.payout_id}`
        : s.kind === 'payout_failed'
          ? `failed:${s.payout_id}`
          : `other:${s.id}`,
    );
  }
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

type Line = Awaited<ReturnType<typeof linesPage>>[number];

function linesPage(db: Kysely<DB>, partnerIds: number[], after: [number, number], limit: number) {
  return db
    .selectFrom('balance_entry as t')
    .leftJoin('commission as c', 'c.id', 't.commission_id')
    .leftJoin('sale as s', 's.id', 'c.sale_id')
    .leftJoin('payout as p', 'p.id', 't.payout_id')
    .select((eb) => [
      't.id',
      't.partner_id',
      isoText(eb.ref('t.created_at')).as('created_at'),
      't.currency',
      't.kind',
      exactText(eb.ref('t.delta_cents')).as('delta_cents'),
      't.commission_id',
      't.refund_id',
      't.payout_id',
      'c.program_id as c_program',
      'c.partner_id as c_partner',
      'c.sale_id',
      'c.lead_customer_id',
      's.transaction_id',
      'p.program_id as p_program',
      'p.partner_id as p_partner',
    ])
    .where('t.partner_id', 'in', partnerIds)
    .where((eb) => eb(eb.refTuple('t.partner_id', 't.id'), '>', eb.tuple(after[0], after[1])))
    .orderBy('t.partner_id')
    .orderBy('t.id')
    .limit(limit)
    .execute();
}

/** One partner's statement, walked line by line: running balances, the hash chain and its causes digest. */
class Statement {
  lines = 0;
  hash: string;
  digest: string;
  readonly balances = new Map<string, bigint>();
  readonly partnerId: number;
  constructor(programId: number, partnerId: number) {
    this.partnerId = partnerId;
    this.hash = this.digest = sha256(`statement|${programId}|${partnerId}`);
  }
  add(l: Line): void {
    this.lines++;
    const facts = [l.id, l.created_at, l.currency, l.kind, l.delta_cents, l.commission_id, l.refund_id, l.payout_id];
    this.hash = sha256(`${this.hash}|${facts.map((f) => f ?? '').join('|')}`);
    const tx = l.transaction_id === null ? '' : defuseFormula(l.transaction_id);
    this.digest = sha256(`${this.digest}|${this.hash}|${l.sale_id ?? ''}|${l.lead_customer_id ?? ''}|${tx}`);
    this.balances.set(l.currency, (this.balances.get(l.currency) ?? 0n) + BigInt(l.delta_cents));
  }
  balancesText(): string {
    return [...this.balances.keys()]
      .sort()
      .map((c) => `${c}:${this.balances.get(c)}`)
      .join(';');
  }
}

type Checkpoint = {
  id: number;
  partner_id: number;
  entry_id: number;
  lines: number;
  hash: string;
  digest: string;
  balances: string;
};

/**
 * Every partner of the program, a page at a time, and their postings in order: each posting has
 * its cause in this program and for this partner; the running balances end at the stored balances
 * and at those the recorded inputs call for; every signed checkpoint states the line count, chain
 * hash, causes digest and balances of the line it signed.
 */
export async function verifyStatements(
  db: Kysely<DB>,
  programId: number,
  check: LedgerCheck,
  o: Paging,
): Promise<number> {
  let partners = 0;
  for (let after = 0; ;) {
    o.signal?.throwIfAborted();
    const ids = (
      await db
        .selectFrom('partner')
        .select('id')
        .where('program_id', '=', programId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(o.pageSize)
        .execute()
    ).map((p) => p.id);
    if (!ids.length) return partners;
    after = ids.at(-1)!;
    partners += ids.length;
    const balances = await db
      .selectFrom('partner_balance')
      .select((eb) => ['id', 'partner_id', 'currency', exactText(eb.ref('balance_cents')).as('balance')])
      .where('partner_id', 'in', ids)
      .execute();
    const checkpoints = (await db
      .selectFrom('statement_checkpoint')
      .select(['id', 'partner_id', 'entry_id', 'lines', 'hash', 'digest', 'balances'])
      .where('partner_id', 'in', ids)
      .orderBy('entry_id')
      .execute()) as Checkpoint[];
    check.rows += balances.length + checkpoints.length;
    const statements = new Map(ids.map((id) => [id, new Statement(programId, id)]));
    const due = Map.groupBy(checkpoints, (c) => c.partner_id);
    for (let at: [number, number] = [0, 0]; ;) {
      o.signal?.throwIfAborted();
      const page = await linesPage(db, ids, at, o.pageSize);
      if (!page.length) break;
      at = [page.at(-1)!.partner_id, page.at(-1)!.id];
      check.rows += page.length;
      for (const l of page) {
        checkCause(check, programId, l);
        const s = statements.get(l.partner_id)!;
        s.add(l);
        const list = due.get(l.partner_id);
        while (list?.length && list[0]!.entry_id <= l.id) checkCheckpoint(check, s, list.shift()!, l.id);
      }
    }
    for (const id of ids) {
      const s = statements.get(id)!;
      for (const cp of due.get(id) ?? []) checkCheckpoint(check, s, cp, null);
      checkBalances(
        check,
        s,
        balances.filter((b) => b.partner_id === id),
      );
    }
  }
}

function checkCause(check: LedgerCheck, programId: number, l: Line): void {
  const byCommission = l.kind === 'commission_credit' || l.kind === 'refund_deduction';
  const [program, partner, cause] = byCommission
    ? [l.c_program, l.c_partner, `commission ${l.commission_id ?? '(none)'}`]
    : [l.p_program, l.p_partner, `payout ${l.payout_id ?? '(none)'}`];
  if (program === programId && partner === l.partner_id) return;
  check.differ({
    partnerId: l.partner_id,
    table: 'balance_entry',
    rowId: l.id,
    field: byCommission ? 'commission_id' : 'payout_id',
    expected: `a ${byCommission ? 'commission' : 'payout'} of partner ${l.partner_id} in program ${programId}`,
    stored: cause,
    message: `balance_entry ${l.id}: its cause, ${cause}, is not a ${byCommission ? 'commission' : 'payout'} of partner ${l.partner_id} in this program`,
  });
}

function checkCheckpoint(check: LedgerCheck, s: Statement, cp: Checkpoint, lineId: number | null): void {
  const at = { partnerId: s.partnerId, table: 'statement_checkpoint', rowId: cp.id };
  if (lineId !== cp.entry_id)
    return void check.differ({
      ...at,
      field: 'entry_id',
      expected: `a line ${cp.entry_id}`,
      stored: 'none',
      message: `statement_checkpoint ${cp.id}: it signed balance_entry ${cp.entry_id}, which is no longer in the statement`,
    });
  const why = `the statement at balance_entry ${cp.entry_id}`;
  if (!check.same(String(s.lines), String(cp.lines), { ...at, field: 'lines', why })) return;
  if (!check.same(s.hash, cp.hash, { ...at, field: 'hash', why })) return;
  if (!check.same(s.digest, cp.digest, { ...at, field: 'digest', why })) return;
  check.same(s.balancesText(), cp.balances, { ...at, field: 'balances', why });
}

function checkBalances(
  check: LedgerCheck,
  s: Statement,
  stored: Array<{ id: number; currency: string; balance: string }>,
): void {
  const expected = check.expectedBalances.get(s.partnerId) ?? new Map<string, bigint>();
  const currencies = new Set([...expected.keys(), ...s.balances.keys(), ...stored.map((b) => b.currency)]);
  for (const currency of [...currencies].sort()) {
    const row = stored.find((b) => b.currency === currency);
    const want = expected.get(currency) ?? 0n;
    const at = { partnerId: s.partnerId, table: 'partner_balance', rowId: row?.id ?? null };
    const ok = check.same(want, row ? BigInt(row.balance) : row === undefined && want === 0n ? 0n : null, {
      ...at,
      field: `balance_cents (${currency})`,
      why: 'its sales, refunds and payouts',
    });
    if (ok)
      check.same(want, s.balances.get(currency) ?? 0n, {
        partnerId: s.partnerId,
        table: 'balance_entry',
        rowId: null,
        field: `running balance (${currency})`,
        why: 'its sales, refunds and payouts',
      });
  }
}
