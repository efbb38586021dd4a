import type { CoreDeps } from '../deps.ts';
import type { Currency } from '../shared/vocabulary.ts';
import { requireAcceptedCurrency } from '../shared/currencies.ts';
import type { SaleJob } from '../jobs/sale-job.ts';
import { AppError } from '../shared/errors.ts';
import { isUniqueViolation } from '../db/data-error.ts';
import { calculatePlatformFee } from '../shared/money.ts';
import { computeSaleReward } from '../rewards/sale-reward.ts';
import { checkFraud } from '../rewards/fraud-rules.ts';
import { computeSaleAmount } from './sale-amount.ts';
import { Sale } from '../entities/sale.ts';
import { TestEvent, type ITestEvent } from '../entities/test-event.ts';
import { resolveAttribution, type Attribution } from '../attribution/resolve-attribution.ts';
import { findProgramSettings } from '../settings-cache.ts';
import { recordAttributionConflict } from '../attribution/record-attribution-conflict.ts';
import { insertSaleRows } from './sale-statements.ts';
import { applyParkedRefundsFor } from '../refunds/parked-refunds.ts';
import { wantsEvents } from '../outbound/emit-events.ts';
import { emitSaleEvents } from '../outbound/use-case-events.ts';

/**
 * Outcome of a sale call. Expected outcomes are values; failures are thrown.
 * - `attributed`: sale recorded; `commissionId` is null when the recurring policy excludes it.
 * - `window_expired`: the click is older than the window; nothing was recorded.
 * - `duplicate`: the transaction id was already recorded as `saleId`.
 * - `test`: recorded as test traffic only.
 */
export type SaleResult =
  | {
      kind: 'attributed';
      saleId: number;
      commissionId: number | null;
      commissionCents: number | null;
      /** Notifications of refunds that were parked for this sale and applied with it (parked-refunds.ts). */
      notificationIds?: number[];
      /** Outbound event deliveries of the sale and of those refunds, to enqueue after commit. */
      deliveryIds?: number[];
    }
  | { kind: 'window_expired'; clickAgeDays: number; windowDays: number }
  | { kind: 'duplicate'; saleId: number }
  | { kind: 'test'; eventId: number; programId: number };

/**
 * Records a sale and its commission in one transaction (the one path for API and provider sales).
 * @throws AppError `unsupported_currency` (nothing created), `no_attribution`.
 */
export async function recordSale(deps: CoreDeps, job: SaleJob): Promise<SaleResult> {
  const currency = requireAcceptedCurrency(deps.currencies, job.currency);
  if (job.test) return recordTestSale(deps, job, currency);
  if (!job.transactionId || !job.amountCents)
    throw new AppError('invalid_request', 'transaction_id and amount_cents are required');
  try {
    // Most sales need reads and one atomic insert statement: no transaction (BEGIN and COMMIT were
    // a third of a sale's database round trips). A resolution that must write runs in one.
    // `clear`: the transaction re-reads under its own snapshot and locks, never what the read-only
    // pass (or an earlier use-case sharing the caller's context) loaded.
    // Outbound events are written with the sale, so a program with endpoints runs it in one.
    const emit = await wantsEvents(deps, job.programId, ['sale.created', 'commission.created']);
    const first = emit
      ? ({ kind: 'needs_writes' } as const)
      : await recordLiveSale(deps, job, currency, { readOnly: true });
    const result =
      first.kind !== 'needs_writes'
        ? first
        : await deps.em.transactional(
            (em) => recordLiveSale({ ...deps, em }, job, currency, { readOnly: false, emit }),
            { clear: true },
          );
    if (result.kind === 'needs_writes') throw new Error('sale attribution needed writes inside its transaction');
    if (result.kind !== 'attributed') return result;
    const { parkedRefunds, ...sale } = result;
    deps.events?.saleRecorded({
      provider: job.provider,
      currency,
      amountCents: job.amountCents,
      commissionCents: result.commissionCents,
    });
    // A provider refund of this sale that arrived first is applied now that the sale exists; its
    // notifications and deliveries go out with the sale's result (never part of a response).
    if (!parkedRefunds) return sale;
    const late = await applyParkedRefundsFor(deps, job.programId, [job.transactionId]);
    return { ...sale, ...late, deliveryIds: [...(sale.deliveryIds ?? []), ...late.deliveryIds] };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The transaction id was already recorded (a retry, or a concurrent call that committed first):
    // the unique key decided, the transaction rolled back, report the first sale.
    const first = await findSaleId(deps.em, job.programId, job.transactionId);
    if (first === null) throw err;
    return { kind: 'duplicate', saleId: first };
  }
}

/** A sale's result inside this module: whether refunds parked for it wait (`parkedRefunds`), or that it needs writes. */
type LiveSale =
  | Exclude<SaleResult, { kind: 'attributed' }>
  | (Extract<SaleResult, { kind: 'attributed' }> & { parkedRefunds: boolean })
  | { kind: 'needs_writes' };

/**
 * Resolves the sale's attribution and records the sale, its platform fee and its commission.
 * `readOnly`: outside a transaction; answers `needs_writes` when the attribution needs writes
 * (the caller then runs it again in a transaction).
 */
async function recordLiveSale(
  deps: CoreDeps,
  job: SaleJob,
  currency: Currency,
  o: { readOnly: boolean; emit?: boolean },
): Promise<LiveSale> {
  const em = deps.em;
  const transactionId = job.transactionId as string;
  const program = await findProgramSettings(deps, job.programId);
  const { amountCents, paidCents } = computeSaleAmount(program, job);
  const now = new Date(job.receivedAt);
  // No duplicate lookup before the insert: the unique key (program, transaction_id) decides and
  // the caller reports the first sale. Only when nothing would be inserted is the lookup needed,
  // so that a reused transaction id still answers 409 whatever attribution says now.
  let attribution: Attribution;
  try {
    attribution = await resolveAttribution(deps, program, job, now, { readOnly: o.readOnly });
  } catch (err) {
    const first = err instanceof AppError ? await findSaleId(em, program.id, transactionId) : null;
    if (first !== null) return { kind: 'duplicate', saleId: first };
    throw err;
  }
  if (attribution.kind === 'needs_writes') return attribution;
  if (attribution.kind === 'window_expired') {
    const first = await findSaleId(em, program.id, transactionId);
    return first === null ? attribution : { kind: 'duplicate', saleId: first };
  }

  const feeBps = program.platformFeeBps;
  const reward = await computeSaleReward(deps, program, {
    partnerId: attribution.partnerId,
    customerId: attribution.customerId,
    firstSaleAt: attribution.firstSaleAt,
    productId: job.productId,
    amountCents,
    currency,
    now,
  });
  const hold = reward
    ? await checkFraud(deps, program.fraudRules, {
        partnerId: attribution.partnerId,
        customerId: attribution.customerId,
        clickAt: attribution.clickAt,
        at: now,
      })
    : null;
  const { saleId, commissionId, parked } = await insertSaleRows(em, {
    sale: {
      program_id: program.id,
      transaction_id: transactionId,
      amount_cents: amountCents,
      tax_cents: job.taxCents ?? null,
      paid_cents: paidCents,
      currency,
      sale_type: job.saleType,
      line_items: job.lineItems == null ? null : JSON.stringify(job.lineItems),
      is_recurring: job.isRecurring,
      subscription_id: job.subscriptionId ?? null,
      subscription_interval: job.subscriptionInterval ?? null,
      product_id: job.productId ?? null,
      occurred_at: job.occurredAt ? new Date(job.occurredAt) : null,
      provider: job.provider ?? null,
      provider_payment_id: job.providerPaymentId ?? null,
      customer_id: attribution.customerId,
      partner_id: attribution.partnerId,
      click_id: attribution.clickId,
      attributed_via: attribution.via,
      partner_code_id: attribution.partnerCodeId,
      visitor_id: job.visitorId ?? null,
      refunded_cents: 0,
      received_at: now,
    },
    fee: { amountCents: calculatePlatformFee(amountCents, feeBps), rateBps: feeBps },
    commission: reward && {
      amountCents: reward.cents,
      rateBps: reward.rateBps,
      reward: reward.applied,
      held: attribution.held || hold !== null,
      hold,
    },
    at: now,
  });
  const commission = commissionId === null || !reward ? null : { id: commissionId, amountCents: reward.cents };
  const deliveryIds = !o.emit
    ? undefined
    : await emitSaleEvents(deps, program.id, job, attribution, {
        saleId,
        commission: commission && { ...commission, held: attribution.held || hold !== null },
        amountCents,
        currency,
        now,
      });
  if (attribution.conflict) {
    recordAttributionConflict(deps, {
      programId: program.id,
      kind: 'sale_click_mismatch',
      ...attribution.conflict,
      saleId,
      at: now,
    });
    await em.flush();
  }
  deps.log.info(
    {
      programId: program.id,
      saleId,
      commissionId: commission?.id ?? null,
      partnerId: attribution.partnerId,
      via: attribution.via,
      ...(hold ? { heldBy: hold.rules.map((r) => r.rule) } : {}),
    },
    'sale recorded',
  );
  return {
    kind: 'attributed',
    saleId,
    commissionId: commission?.id ?? null,
    commissionCents: commission?.amountCents ?? null,
    parkedRefunds: parked,
    ...(deliveryIds && { deliveryIds }),
  };
}

async function findSaleId(em: CoreDeps['em'], programId: number, transactionId: string): Promise<number | null> {
  const sale = await em.findOne(Sale, { program: programId, transactionId }, { fields: ['id'] });
  return sale?.id ?? null;
}

async function recordTestSale(deps: CoreDeps, job: SaleJob, currency: Currency): Promise<SaleResult> {
  const em = deps.em;
  if (job.transactionId) {
    const prior = await em.findOne(TestEvent, { program: job.programId, transactionId: job.transactionId });
    if (prior) return { kind: 'test', eventId: prior.id, programId: job.programId };
  }
  let event: ITestEvent;
  try {
    // In the transaction's own context: a duplicate's refused insert is not left queued in the
    // caller's (the jobs of a webhook row share it).
    event = await em.transactional(async (tx) => {
      const created = tx.create(TestEvent, {
        program: job.programId,
        kind: job.transactionId || job.amountCents ? 'sale' : 'event',
        transactionId: job.transactionId,
        amountCents: job.amountCents,
        currency,
        payload: { ...job, kind: undefined },
        createdAt: new Date(job.receivedAt),
      });
      await tx.flush();
      return created;
    });
  } catch (err) {
    if (!isUniqueViolation(err) || !job.transactionId) throw err;
    const prior = await em.findOneOrFail(TestEvent, { program: job.programId, transactionId: job.transactionId });
    return { kind: 'test', eventId: prior.id, programId: job.programId };
  }
  // A test refund that arrived first answers as a test refund now (rare: no check in the statement).
  if (job.transactionId) await applyParkedRefundsFor(deps, job.programId, [job.transactionId]);
  return { kind: 'test', eventId: event.id, programId: job.programId };
}
