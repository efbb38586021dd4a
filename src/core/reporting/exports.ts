import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { Program } from '../entities/program.ts';
import { statementGenesis, statementLineHash } from '../ledger/statement-hash.ts';
import { latestCheckpoint } from '../ledger/statement-checkpoints.ts';
import { statementLinesPage } from '../ledger/statement-lines.ts';
import type { IStatementCheckpoint } from '../entities/statement-checkpoint.ts';
import { formatMinorUnits } from '../shared/money.ts';
import {
  commissionsPage,
  payoutsPage,
  refundsPage,
  salesPage,
  type ExportRow,
  type PageQuery,
  windowStart,
} from './export-queries.ts';

export type { ExportRow };

/**
 * What can be exported as CSV (read-only, scoped to the program and, for a partner, to their own
 * rows). `statement` is one partner's ledger, every line naming its cause, with a hash chain.
 */
export const EXPORT_KINDS = ['commissions', 'sales', 'refunds', 'payouts', 'statement'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
/** What a partner may export of their own rows (the portal). */
export const PARTNER_EXPORT_KINDS = ['commissions', 'payouts', 'statement'] as const satisfies readonly ExportKind[];

/**
 * The columns of each export, in order. Amounts are integer minor units (`*_cents`) and, in the
 * last columns, the same amounts as decimal strings in the currency's precision (VND has none).
 */
export const EXPORT_COLUMNS: Record<ExportKind, readonly string[]> = {
  commissions: [
    ...['id', 'created_at', 'partner_id', 'partner_code', 'partner_name', 'sale_id', 'transaction_id', 'currency'],
    ...['amount_cents', 'reversed_cents', 'net_cents', 'status', 'rate_bps', 'reward_rule', 'held_for_review'],
    ...['credited_at', 'paid_at', 'payout_id', 'reason', 'kind', 'lead_customer_id', 'amount', 'net'],
  ],
  sales: [
    ...['id', 'received_at', 'transaction_id', 'partner_id', 'partner_code', 'currency', 'amount_cents'],
    ...['tax_cents', 'refunded_cents', 'provider', 'product_id', 'attributed_via', 'is_recurring'],
    ...['subscription_id', 'amount'],
  ],
  refunds: [
    ...['id', 'created_at', 'sale_id', 'transaction_id', 'commission_id', 'partner_id', 'partner_code'],
    ...['refund_id', 'currency', 'applied_cents', 'deduction_cents', 'balance_deduction_cents', 'reason'],
    ...['source', 'applied', 'deduction'],
  ],
  payouts: [
    ...['id', 'created_at', 'partner_id', 'partner_code', 'partner_name', 'currency', 'status', 'amount_cents'],
    ...['commissions_cents', 'netted_cents', 'paid_at', 'amount'],
  ],
  statement: [
    ...['id', 'created_at', 'currency', 'kind', 'delta_cents', 'balance_cents', 'commission_id', 'sale_id'],
    ...['transaction_id', 'lead_customer_id', 'refund_id', 'payout_id', 'delta', 'balance', 'hash'],
    // The signed checkpoint (docs/statement-verification.md), on the line it signed: the latest.
    ...['program_id', 'partner_id', 'checkpoint_lines', 'checkpoint_digest', 'checkpoint_balances'],
    ...['checkpoint_signed_at', 'checkpoint_key_id', 'checkpoint_signature'],
  ],
};

/** Decimal columns: the name and the minor-unit column it shows. */
const DECIMALS: Record<ExportKind, Array<[string, string]>> = {
  commissions: [
    ['amount', 'amount_cents'],
    ['net', 'net_cents'],
  ],
  sales: [['amount', 'amount_cents']],
  refunds: [
    ['applied', 'applied_cents'],
    ['deduction', 'deduction_cents'],
  ],
  payouts: [['amount', 'amount_cents']],
  statement: [
    ['delta', 'delta_cents'],
    ['balance', 'balance_cents'],
  ],
};

/**
 * How each column of an export is read from one of `exportRows`' rows, in `EXPORT_COLUMNS` order:
 * the decimal columns are computed from their minor units as they are written, so a row is never
 * extended (a million rows each given two more properties is a million short-lived copies).
 */
export function exportCells(kind: ExportKind): Array<(row: ExportRow) => ExportRow[string]> {
  const decimals = new Map(DECIMALS[kind]);
  return EXPORT_COLUMNS[kind].map((name) => {
    const cents = decimals.get(name);
    if (cents === undefined) return (row: ExportRow) => row[name] ?? null;
    return (row: ExportRow) => formatMinorUnits(row[cents] as string, row.currency as string);
  });
}

const PAGES = { commissions: commissionsPage, sales: salesPage, refunds: refundsPage, payouts: payoutsPage };

/**
 * Rows per page: a page is read, encoded and written in a millisecond or two, and its rows are
 * garbage before the young generation is collected (1,000-row pages stalled the process's event
 * loop up to 80 ms, the tracking calls beside an export with it; memory is the same).
 */
export const EXPORT_PAGE_SIZE = 250;

export type ExportScope = { from: Date | null; to: Date | null; partnerId?: number | null };

/** An export's pages, in order; `next()` reads the next one from the database. */
export type ExportPages = AsyncIterableIterator<ExportRow[], undefined> & {
  return(): Promise<IteratorResult<ExportRow[], undefined>>;
};

/**
 * A program's rows of one kind in [from, to) (sales: received; others: created), oldest first, one
 * page at a time (keyset on the id): memory stays one page whatever the size of the export. The
 * rows hold the minor-unit columns; `exportCells` reads every column, the decimal ones included.
 * `partnerId` keeps one partner's rows (required for `statement`).
 *
 * Not a generator on purpose: a generator suspended at `yield page` keeps the page reachable from
 * its frame until it is resumed, i.e. until the consumer asks for the next one (for a download,
 * after the socket has drained the CSV already written from it). Here nothing but the caller
 * holds a page once `next()` has answered.
 * @throws AppError `not_found` (program, or partner not in it), `invalid_request` (a statement
 *   without a partner), from the first `next()`.
 */
export function exportRows(
  deps: CoreDeps,
  programId: number,
  kind: ExportKind,
  scope: ExportScope,
  pageSize = EXPORT_PAGE_SIZE,
): ExportPages {
  const partnerId = scope.partnerId ?? null;
  let read: (() => Promise<ExportRow[] | null>) | null = null;
  let done = false;
  const start = async (): Promise<() => Promise<ExportRow[] | null>> => {
    if (!(await deps.em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
    if (partnerId !== null && !(await deps.em.count(Partner, { id: partnerId, program: programId })))
      throw new AppError('not_found', 'No such partner in this program');
    if (kind === 'statement') {
      if (partnerId === null)
        throw new AppError('invalid_request', 'A statement is one partner’s: give partner_id', { field: 'partner_id' });
      return statementPages(deps, programId, partnerId, scope, pageSize);
    }
    // A window that starts later than the oldest row: its keyset starts at the window's first id.
    const seek = scope.from ? await windowStart(deps.em, kind, programId, scope.from) : 0;
    const q: PageQuery = { programId, partnerId, from: scope.from, to: scope.to, after: seek ?? 0, limit: pageSize };
    let last = seek === null;
    return async () => {
      if (last) return null;
      const page = await PAGES[kind](deps.em, q);
      last = page.length < pageSize;
      if (!page.length) return null;
      q.after = page[page.length - 1]!.id as number;
      return page;
    };
  };
  const end = (): IteratorResult<ExportRow[], undefined> => {
    done = true;
    return { done: true, value: undefined };
  };
  return {
    async next() {
      if (done) return end();
      try {
        read ??= await start();
        const page = await read();
        return page ? { done: false, value: page } : end();
      } catch (err) {
        end();
        throw err;
      }
    },
    async return() {
      return end();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * A partner's ledger from its first entry, each line with the running balance of its currency and
 * the chained hash; only the lines in the window are returned, but every line is hashed, so a
 * line's hash is the same in every export that contains it. The partner's latest signed checkpoint
 * (read first) is carried by the line it signed. Each call answers the next non-empty page of
 * lines, or null at the end.
 */
function statementPages(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  w: ExportScope,
  pageSize: number,
): () => Promise<ExportRow[] | null> {
  let hash = statementGenesis(programId, partnerId);
  const balances = new Map<string, bigint>();
  let after = 0;
  let last = false;
  let signed: Promise<ExportRow | null> | null = null;
  return async () => {
    const checkpoint = await (signed ??= latestCheckpoint(deps.em, partnerId).then(checkpointCells));
    while (!last) {
      const page = await statementLinesPage(deps.em, { partnerId, after, limit: pageSize });
      last = page.length < pageSize;
      if (!page.length) return null;
      after = page[page.length - 1]!.id;
      const out: ExportRow[] = [];
      for (const line of page) {
        const balance = (balances.get(line.currency) ?? 0n) + BigInt(line.delta_cents);
        balances.set(line.currency, balance);
        hash = statementLineHash(hash, line);
        const at = new Date(line.created_at!);
        if ((w.from && at < w.from) || (w.to && at >= w.to)) continue;
        const cells = line.id === checkpoint?.entry_id ? checkpoint : null;
        out.push({
          ...line,
          balance_cents: balance.toString(),
          hash,
          program_id: programId,
          partner_id: partnerId,
          ...cells,
        });
      }
      if (out.length) return out;
    }
    return null;
  };
}

/** A checkpoint's export cells (`entry_id`: the line that carries them). */
function checkpointCells(c: IStatementCheckpoint | null): ExportRow | null {
  if (!c) return null;
  return {
    entry_id: c.entryId,
    checkpoint_lines: c.lines,
    checkpoint_digest: c.digest,
    checkpoint_balances: c.balances,
    checkpoint_signed_at: c.signedAt.toISOString(),
    checkpoint_key_id: c.keyId,
    checkpoint_signature: c.signature,
  };
}
