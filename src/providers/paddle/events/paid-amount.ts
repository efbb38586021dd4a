/**
 * What the customer paid for a Paddle transaction, and the tax in it.
 * https://developer.paddle.com/api-reference/transactions/overview (`details.totals`)
 *
 * `total` is after discounts with tax; `grand_total` is `total` minus credit applied from the
 * customer's balance (a credited upgrade), so it is what was actually charged. `grand_total_tax`
 * is the tax inside `grand_total`. The core takes `taxCents` out of `amountCents` for the
 * tax-excluded commission base (record-sale.ts), so the two must describe the same payment:
 * `grand_total` goes with `grand_total_tax`. Where a payload has `grand_total` without
 * `grand_total_tax`, the tax is scaled by `grand_total / total` (the whole tax when no credit);
 * payloads without `grand_total` keep `total` and `tax`.
 */
import { at, readMinorUnits } from '../../read-payload.ts';

export function readPaddlePaidAmount(transaction: Record<string, unknown>): {
  amountCents: number | null;
  taxCents: number | null;
} {
  const totals = at(transaction, 'details', 'totals');
  const total = readMinorUnits(at(totals, 'total'));
  const tax = readMinorUnits(at(totals, 'tax'));
  const rawGrandTotal = at(totals, 'grand_total');
  if (rawGrandTotal === undefined || rawGrandTotal === null) return { amountCents: total, taxCents: tax };
  // Present but unreadable: no amount (`missing_amount`), never a silent fall back to `total`.
  const grandTotal = readMinorUnits(rawGrandTotal);
  if (grandTotal === null) return { amountCents: null, taxCents: null };
  const grandTotalTax = readMinorUnits(at(totals, 'grand_total_tax'));
  if (grandTotalTax !== null) return { amountCents: grandTotal, taxCents: grandTotalTax };
  if (tax === null || total === null || total <= 0 || grandTotal >= total)
    return { amountCents: grandTotal, taxCents: tax };
  return { amountCents: grandTotal, taxCents: Math.round((tax * grandTotal) / total) };
}
