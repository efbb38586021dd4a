/**
 * Orders registered before a bank-transfer QR is shown (`POST /api/v1/track/checkout`), and how a
 * VietQR gateway's paid notification finds its customer through them. PayOS and SePay carry no
 * checkout metadata: the transfer names only an order code, so the merchant says beforehand whom
 * that code is for. The sale then runs exactly like a provider checkout carrying the same
 * `tracker_customer_key` / `tracker_click_id` (an implicit lead binds the customer to the click
 * when both are given and no lead was tracked).
 */
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { isUniqueViolation } from '../db/data-error.ts';
import { Click } from '../entities/click.ts';
import { OrderRegistration, type IOrderRegistration } from '../entities/order-registration.ts';
import type { SaleJob } from '../jobs/sale-job.ts';

export type OrderInput = {
  programId: number;
  orderCode: string;
  customerKey: string | null;
  clickId: string | null;
  provider: string | null;
  amountCents: number | null;
  currency: string | null;
  receivedAt: string;
};

/** The fields a repeated registration must match to be the same registration. */
const COMPARED = ['customerKey', 'clickId', 'provider', 'amountCents', 'currency'] as const;

/**
 * Stores the registration, idempotent on (program, order code): a repeat with the same values
 * answers the stored row; the same code with any other value is `conflict` (an order code names
 * one order: its customer, click, gateway and amount do not change once the QR is out).
 * @throws AppError `invalid_request` (no key and no click, or a click id of no click of this
 * program), `conflict`.
 */
export async function registerOrder(deps: CoreDeps, input: OrderInput): Promise<IOrderRegistration> {
  if (!input.customerKey && !input.clickId)
    throw new AppError('invalid_request', 'customer_key or click_id is required', {
      fields: ['customer_key', 'click_id'],
    });
  const em = deps.em;
  if (input.clickId && !(await em.count(Click, { id: input.clickId, program: input.programId })))
    throw new AppError('invalid_request', 'click_id does not match a click of this program', { field: 'click_id' });
  const existing = await findRegistration(em, input.programId, input.orderCode);
  if (existing) return sameOrConflict(existing, input);
  try {
    // In the transaction's own context: a refused insert is not left queued in the caller's.
    return await em.transactional(async (tx) => {
      const row = tx.create(OrderRegistration, {
        program: input.programId,
        orderCode: input.orderCode,
        customerKey: input.customerKey,
        clickId: input.clickId,
        provider: input.provider,
        amountCents: input.amountCents,
        currency: input.currency,
        createdAt: new Date(input.receivedAt),
      });
      await tx.flush();
      return row;
    });
  } catch (err) {
    // A concurrent registration of the same code committed first: compare with it.
    if (!isUniqueViolation(err)) throw err;
    const first = await findRegistration(em, input.programId, input.orderCode);
    if (!first) throw err;
    return sameOrConflict(first, input);
  }
}

function sameOrConflict(row: IOrderRegistration, input: OrderInput): IOrderRegistration {
  const differing = COMPARED.filter((f) => (row[f] ?? null) !== (input[f] ?? null));
  if (!differing.length) return row;
  throw new AppError('conflict', 'This order_code is already registered with other values', {
    order_code: row.orderCode,
    fields: differing.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)),
  });
}

function findRegistration(em: CoreDeps['em'], programId: number, orderCode: string) {
  return em.findOne(OrderRegistration, { program: programId, orderCode });
}

/** Most words of a transfer's content that are tried as order codes. */
const MAX_CANDIDATES = 40;

/**
 * The words of a transfer's content that could be an order code: runs of letters and digits
 * (banks drop or replace punctuation), as written and upper-cased, at least 3 characters.
 */
export function orderCodeCandidates(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}]{3,64}/gu) ?? [];
  const out = new Set<string>();
  for (const w of words) {
    out.add(w);
    out.add(w.toUpperCase());
    if (out.size >= MAX_CANDIDATES) break;
  }
  return [...out];
}

/**
 * The sale job of a gateway payment with its customer filled in from the order's registration:
 * by the exact code the gateway parsed (`orderLookup.orderCode`), else by a registered code
 * appearing as a word of the transfer content (`orderLookup.text`; several: the longest, then the
 * first registered). `null` when no registration matches (the event is `order_not_registered`;
 * registering the order and replaying the event records it). Jobs without a lookup, and test
 * jobs (they never attribute), are returned as they are.
 */
export async function resolveOrder(deps: CoreDeps, job: SaleJob): Promise<SaleJob | null> {
  const lookup = job.orderLookup;
  if (!lookup || job.test) return job;
  const em = deps.em;
  let row: IOrderRegistration | null = null;
  const exact = lookup.orderCode ? [...new Set([lookup.orderCode, lookup.orderCode.toUpperCase()])] : [];
  if (exact.length) row = await em.findOne(OrderRegistration, { program: job.programId, orderCode: { $in: exact } });
  if (!row && lookup.text) {
    const candidates = orderCodeCandidates(lookup.text);
    const rows = candidates.length
      ? await em.find(
          OrderRegistration,
          { program: job.programId, orderCode: { $in: candidates } },
          { orderBy: { id: 'asc' }, limit: MAX_CANDIDATES },
        )
      : [];
    row = rows.reduce<IOrderRegistration | null>(
      (best, r) => (!best || r.orderCode.length > best.orderCode.length ? r : best),
      null,
    );
  }
  if (!row) return null;
  return { ...job, customerKey: row.customerKey ?? null, clickId: row.clickId ?? null };
}
