import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { requireAcceptedCurrency } from '../shared/currencies.ts';
import { Sale } from '../entities/sale.ts';
import { Commission } from '../entities/commission.ts';
import { Payout } from '../entities/payout.ts';
import type { CommissionStatus } from '../shared/vocabulary.ts';
import { posting, postToLedger } from '../ledger/ledger.ts';
import type { ImportedCommission, ImportedPayout } from './import-records.ts';
import { mappedRow, mapRow, type ImportScope } from './source-rows.ts';
import { problem, SKIPPED, type Applied } from './apply-partners.ts';

/** The source's commission status as ours: due is approved and credited, voided is reversed. */
const STATUS: Record<ImportedCommission['status'], CommissionStatus> = {
  pending: 'pending',
  due: 'approved',
  paid: 'paid',
  voided: 'reversed',
};

/** The currency in our form, or why it cannot be taken. */
function currencyOf(deps: CoreDeps, currency: string): string | Applied {
  try {
    return requireAcceptedCurrency(deps.currencies, currency);
  } catch (err) {
    if (err instanceof AppError) return problem(`currency "${currency}" is not accepted: ${err.message}`);
    throw err;
  }
}

function minor(n: number | null): boolean {
  return n !== null && Number.isSafeInteger(n) && n >= 0;
}

function dateOf(iso: string | null, fallback: Date): Date {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? d : fallback;
}

/**
 * A commission and its sale (an imported sale: no provider, the transaction id names the source),
 * in the caller's transaction. Due and paid ones are credited to the partner's balance through the
 * ledger; the paid amounts leave it through the imported payouts.
 */
export async function applyCommission(deps: CoreDeps, s: ImportScope, r: ImportedCommission): Promise<Applied> {
  const em = deps.em;
  if (await mappedRow(em, s, 'commission', r.sourceId)) return SKIPPED;
  const partnerId = await mappedRow(em, s, 'partner', r.partnerSourceId);
  if (!partnerId) return problem(`unknown partner ${r.partnerSourceId}: the commission was not brought`);
  const currency = currencyOf(deps, r.currency);
  if (typeof currency !== 'string') return currency;
  if (!minor(r.amountMinor) || (r.saleAmountMinor !== null && !minor(r.saleAmountMinor)))
    return problem('amount is not a whole number of minor units ≥ 0');
  const customerId = r.customerSourceId ? await mappedRow(em, s, 'customer', r.customerSourceId) : null;
  const at = dateOf(r.createdAt, s.now);
  const saleCents = r.saleAmountMinor ?? 0;
  const sale = em.create(Sale, {
    program: s.programId,
    transactionId: `import:${s.source}:${r.sourceId}`,
    amountCents: saleCents,
    taxCents: null,
    paidCents: null,
    currency,
    saleType: 'payment',
    lineItems: null,
    isRecurring: false,
    subscriptionId: null,
    subscriptionInterval: null,
    productId: null,
    occurredAt: at,
    provider: null,
    providerPaymentId: null,
    customer: customerId,
    partner: partnerId,
    clickId: null,
    attributedVia: null,
    partnerCode: null,
    visitorId: null,
    refundedCents: 0,
    receivedAt: at,
  });
  await em.flush();
  const status = STATUS[r.status];
  const credited = status === 'approved' || status === 'paid';
  const commission = em.create(Commission, {
    program: s.programId,
    sale: sale.id,
    leadCustomer: null,
    partner: partnerId,
    amountCents: r.amountMinor,
    reversedCents: status === 'reversed' ? r.amountMinor : 0,
    currency,
    rateBps: saleCents > 0 ? Math.round((r.amountMinor * 10_000) / saleCents) : 0,
    reward: null,
    status,
    reason: `imported from ${s.source}`,
    creditedAt: credited ? at : null,
    paidAt: status === 'paid' ? at : null,
    heldForReview: false,
    hold: null,
    payout: null,
    // A pending commission waits the program's hold period from the import (its sale keeps the date).
    createdAt: status === 'pending' ? s.now : at,
  });
  await em.flush();
  if (credited && r.amountMinor > 0)
    await postToLedger(
      em,
      posting({
        partnerId,
        currency,
        deltaCents: r.amountMinor,
        kind: 'commission_credit',
        commissionId: commission.id,
        at,
      }),
    );
  await mapRow(em, s, 'sale', r.sourceId, sale.id);
  await mapRow(em, s, 'commission', r.sourceId, commission.id);
  return { created: true, problems: [] };
}

/** A payout the source made: a paid payout whose amount leaves the partner's balance through the ledger. */
export async function applyPayout(deps: CoreDeps, s: ImportScope, r: ImportedPayout): Promise<Applied> {
  const em = deps.em;
  if (await mappedRow(em, s, 'payout', r.sourceId)) return SKIPPED;
  const partnerId = await mappedRow(em, s, 'partner', r.partnerSourceId);
  if (!partnerId) return problem(`unknown partner ${r.partnerSourceId}: the payout was not brought`);
  const currency = currencyOf(deps, r.currency);
  if (typeof currency !== 'string') return currency;
  if (!minor(r.amountMinor) || r.amountMinor === 0) return problem('amount is not a whole number of minor units > 0');
  const at = dateOf(r.paidAt, s.now);
  const payout = em.create(Payout, {
    program: s.programId,
    partner: partnerId,
    currency,
    status: 'paid',
    requestedCents: null,
    amountCents: r.amountMinor,
    commissionsCents: r.amountMinor,
    nettedCents: 0,
    createdAt: at,
    paidAt: at,
    run: null,
    rail: 'manual',
    externalId: null,
    failedAt: null,
    failureReason: null,
  });
  await em.flush();
  await postToLedger(
    em,
    posting({ partnerId, currency, deltaCents: -r.amountMinor, kind: 'payout', payoutId: payout.id, at }),
  );
  await mapRow(em, s, 'payout', r.sourceId, payout.id);
  return { created: true, problems: [] };
}
