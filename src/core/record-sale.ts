import type { CoreDeps } from './deps.ts';
import { CURRENCIES, type Currency } from './vocabulary.ts';
import type { SaleJob } from './jobs/sale-job.ts';
import { AppError } from './errors.ts';
import { isUniqueViolation } from './data-error.ts';
import { calculateCommission, calculatePlatformFee } from './money.ts';
import { Program, type IProgram } from './entities/program.ts';
import { Sale } from './entities/sale.ts';
import { Commission } from './entities/commission.ts';
import { PlatformFee } from './entities/platform-fee.ts';
import { TestEvent } from './entities/test-event.ts';
import { resolveAttribution, type Attribution } from './resolve-attribution.ts';
import { settingsCache } from './settings-cache.ts';
import { recordAttributionConflict } from './record-attribution-conflict.ts';

/**
 * Outcome of a sale call. Expected outcomes are values; failures are thrown.
 * - `attributed`: sale recorded; `commissionId` is null when the recurring policy excludes it.
 * - `window_expired`: the click is older than the window; nothing was recorded.
 * - `duplicate`: the transaction id was already recorded as `saleId`.
 * - `test`: recorded as test traffic only.
 */
export type SaleResult =
  | { kind: 'attributed'; saleId: number; commissionId: number | null; commissionCents: number | null }
  | { kind: 'window_expired'; clickAgeDays: number; windowDays: number }
  | { kind: 'duplicate'; saleId: number }
  | { kind: 'test'; eventId: number; programId: number };

/**
 * Records a sale and its commission in one transaction (the one path for API and provider sales).
 * @throws AppError `unsupported_currency` (nothing created), `no_attribution`.
 */
export async function recordSale(deps: CoreDeps, job: SaleJob): Promise<SaleResult> {
  const currency = job.currency.toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) {
    throw new AppError('unsupported_currency', `Currency "${job.currency}" is not supported; use USD, EUR or VND`, {
      currency: job.currency,
      supported: CURRENCIES,
    });
  }
  if (job.test) return recordTestSale(deps, job, currency as Currency);
  if (!job.transactionId || !job.amountCents)
    throw new AppError('invalid_request', 'transaction_id and amount_cents are required');
  try {
    const result = await deps.em
      .fork()
      .transactional((em) => recordLiveSale({ ...deps, em }, job, currency as Currency));
    if (result.kind === 'attributed')
      deps.events?.saleRecorded({
        provider: job.provider,
        currency,
        amountCents: job.amountCents,
        commissionCents: result.commissionCents,
      });
    return result;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The transaction id was already recorded (a retry, or a concurrent call that committed first):
    // the unique key decided, the transaction rolled back, report the first sale.
    const first = await findSaleId(deps.em.fork(), job.programId, job.transactionId);
    if (first === null) throw err;
    return { kind: 'duplicate', saleId: first };
  }
}

async function recordLiveSale(deps: CoreDeps, job: SaleJob, currency: Currency): Promise<SaleResult> {
  const em = deps.em;
  const transactionId = job.transactionId as string;
  const program = await em.findOneOrFail(
    Program,
    { id: job.programId },
    { cache: settingsCache.program(job.programId) },
  );
  const { amountCents, paidCents } = computeSaleAmount(program, job);
  const now = new Date(job.receivedAt);
  // No duplicate lookup before the insert: the unique key (program, transaction_id) decides and
  // the caller reports the first sale. Only when nothing would be inserted is the lookup needed,
  // so that a reused transaction id still answers 409 whatever attribution says now.
  let attribution: Attribution;
  try {
    attribution = await resolveAttribution(deps, program, job, now);
  } catch (err) {
    const first = err instanceof AppError ? await findSaleId(em, program.id, transactionId) : null;
    if (first !== null) return { kind: 'duplicate', saleId: first };
    throw err;
  }
  if (attribution.kind === 'window_expired') {
    const first = await findSaleId(em, program.id, transactionId);
    return first === null ? attribution : { kind: 'duplicate', saleId: first };
  }

  // Plain inserts, not the unit of work: these rows are written once and not touched again in
  // this transaction, and change-set computation was a third of a sale's ORM time (bench).
  const saleId = (await em.insert(Sale, {
    program: program.id,
    transactionId,
    amountCents,
    taxCents: job.taxCents,
    paidCents,
    currency,
    saleType: job.saleType,
    lineItems: job.lineItems,
    isRecurring: job.isRecurring,
    subscriptionId: job.subscriptionId,
    subscriptionInterval: job.subscriptionInterval,
    productId: job.productId,
    occurredAt: job.occurredAt ? new Date(job.occurredAt) : null,
    provider: job.provider,
    providerPaymentId: job.providerPaymentId,
    customer: attribution.customerId,
    partner: attribution.partnerId,
    clickId: attribution.clickId,
    visitorId: job.visitorId,
    refundedCents: 0,
    receivedAt: now,
  })) as number;
  const feeBps = program.platformFeeBps;
  await em.insert(PlatformFee, {
    program: program.id,
    sale: saleId,
    amountCents: calculatePlatformFee(amountCents, feeBps),
    currency,
    rateBps: feeBps,
    createdAt: now,
  });

  let commission: { id: number; amountCents: number } | null = null;
  if (attribution.earnsCommission) {
    const rateBps = commissionRate(program, job.productId);
    const commissionCents = calculateCommission(amountCents, rateBps);
    const id = (await em.insert(Commission, {
      program: program.id,
      sale: saleId,
      partner: attribution.partnerId,
      amountCents: commissionCents,
      reversedCents: 0,
      currency,
      rateBps,
      status: 'pending',
      heldForReview: attribution.held,
      createdAt: now,
      updatedAt: now,
    })) as number;
    commission = { id, amountCents: commissionCents };
  }
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
    },
    'sale recorded',
  );
  return {
    kind: 'attributed',
    saleId,
    commissionId: commission?.id ?? null,
    commissionCents: commission?.amountCents ?? null,
  };
}

/**
 * The commission base. API sales: `amount_cents` as sent (spec). Provider sales (origin
 * `provider`, SaleJob.origin) carry what the customer paid with its tax; unless the program opts
 * in to tax (`providerAmountIncludesTax`), the tax is taken out and the payment kept as
 * `paidCents`, against which provider refunds are scaled (apply-refund.ts).
 */
function computeSaleAmount(program: IProgram, job: SaleJob): { amountCents: number; paidCents: number | null } {
  const paid = job.amountCents as number;
  const tax = job.taxCents ?? 0;
  if (job.origin !== 'provider' || program.providerAmountIncludesTax || tax <= 0 || tax >= paid)
    return { amountCents: paid, paidCents: null };
  return { amountCents: paid - tax, paidCents: paid };
}

async function findSaleId(em: CoreDeps['em'], programId: number, transactionId: string): Promise<number | null> {
  const sale = await em.findOne(Sale, { program: programId, transactionId }, { fields: ['id'] });
  return sale?.id ?? null;
}

/** The per-product policy wins over the program rate when the sale names a product. */
function commissionRate(program: IProgram, productId: string | null): number {
  const byProduct = productId ? program.productRatesBps?.[productId] : undefined;
  return typeof byProduct === 'number' ? byProduct : program.commissionRateBps;
}

async function recordTestSale(deps: CoreDeps, job: SaleJob, currency: Currency): Promise<SaleResult> {
  const em = deps.em.fork();
  if (job.transactionId) {
    const prior = await em.findOne(TestEvent, { program: job.programId, transactionId: job.transactionId });
    if (prior) return { kind: 'test', eventId: prior.id, programId: job.programId };
  }
  const event = em.create(TestEvent, {
    program: job.programId,
    kind: job.transactionId || job.amountCents ? 'sale' : 'event',
    transactionId: job.transactionId,
    amountCents: job.amountCents,
    currency,
    payload: { ...job, kind: undefined },
    createdAt: new Date(job.receivedAt),
  });
  try {
    await em.flush();
  } catch (err) {
    if (!isUniqueViolation(err) || !job.transactionId) throw err;
    const prior = await deps.em
      .fork()
      .findOneOrFail(TestEvent, { program: job.programId, transactionId: job.transactionId });
    return { kind: 'test', eventId: prior.id, programId: job.programId };
  }
  return { kind: 'test', eventId: event.id, programId: job.programId };
}
