/**
 * A SePay transfer into the merchant's bank account (`transferType: "in"`): a sale when it pays a
 * registered order. SePay carries no checkout metadata; the order is found by `code` (the payment
 * code SePay parsed from the content, per the company's payment-code settings), else by a
 * registered order code written as a word of `content` (core, order-registrations.ts).
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { readId, readInteger, readString } from '../../read-payload.ts';

/** Longest transfer content kept for the order search (bank memos are far shorter). */
const MAX_CONTENT = 500;

export const transferIn: EventHandler = (transfer, ctx) => {
  const id = readId(transfer.id);
  if (!id) return ignore('missing_transaction_id');
  const code = readString(transfer.code);
  const content = readString(transfer.content) ?? readString(transfer.description);
  if (!code && !content) return ignore('missing_order_id');
  // Vietnamese bank accounts hold VND, which has no minor unit: `transferAmount` is whole đồng.
  const basics = readPaymentBasics(readInteger(transfer.transferAmount), 'VND', [], ctx.programId);
  if (!basics.ok) return basics.outcome;
  return emit(
    providerSale(ctx, basics, {
      // SePay's transaction id, prefixed: a bare number could be any other source's transaction id.
      transactionId: `sepay_${id}`,
      providerPaymentId: readString(transfer.referenceCode),
      orderLookup: { orderCode: code, text: content ? content.slice(0, MAX_CONTENT) : null },
    }),
  );
};
