import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CoreDeps } from './deps.ts';
import { CURRENCIES, type Currency, type SaleJob } from './jobs.ts';
import { AppError } from './errors.ts';
import { calculateCommission, calculatePlatformFee } from './money.ts';
import { Program, type IProgram } from './entities/program.ts';
import { Sale } from './entities/sale.ts';
import { Commission } from './entities/commission.ts';
import { PlatformFee } from './entities/platform-fee.ts';
import { TestEvent } from './entities/test-event.ts';
import { resolveAttribution } from './resolve-attribution.ts';

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
    throw new AppError('unsupported_currency', `Currency "${job.currency}" is not supported; use USD, EUR or VND`, { currency: job.currency, supported: CURRENCIES });
  }
  if (job.test) return recordTestSale(deps, job, currency as Currency);
  if (!job.transactionId || !job.amountCents) throw new AppError('invalid_request', 'transaction_id and amount_cents are required');
  try {
    return await deps.em.fork().transactional((em) => recordLiveSale({ ...deps, em }, job, currency as Currency));
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    // A concurrent call with the same transaction id committed first: report it as the duplicate.
    const first = await deps.em.fork().findOne(Sale, { program: job.programId, transactionId: job.transactionId });
    if (!first) throw err;
    return { kind: 'duplicate', saleId: first.id };
  }
}

async function recordLiveSale(deps: CoreDeps, job: SaleJob, currency: Currency): Promise<SaleResult> {
  const em = deps.em;
  const transactionId = job.transactionId as string;
  const amountCents = job.amountCents as number;
  const existing = await em.findOne(Sale, { program: job.programId, transactionId }, { fields: ['id'] });
  if (existing) return { kind: 'duplicate', saleId: existing.id };

  const program = await em.findOneOrFail(Program, { id: job.programId });
  const now = new Date(job.receivedAt);
  const attribution = await resolveAttribution(deps, program, job, now);
  if (attribution.kind === 'window_expired') return attribution;

  const sale = em.create(Sale, {
    program: program.id,
    transactionId,
    amountCents,
    taxCents: job.taxCents,
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
    receivedAt: now,
  });
  await em.flush();
  const feeBps = program.platformFeeBps;
  em.create(PlatformFee, { program: program.id, sale: sale.id, amountCents: calculatePlatformFee(amountCents, feeBps), currency, rateBps: feeBps, createdAt: now });

  let commission = null;
  if (attribution.earnsCommission) {
    const rateBps = commissionRate(program, job.productId);
    commission = em.create(Commission, {
      program: program.id,
      sale: sale.id,
      partner: attribution.partnerId,
      amountCents: calculateCommission(amountCents, rateBps),
      currency,
      rateBps,
      status: 'pending',
      createdAt: now,
    });
  }
  await em.flush();
  deps.log.info({ programId: program.id, saleId: sale.id, commissionId: commission?.id ?? null, partnerId: attribution.partnerId, via: attribution.via }, 'sale recorded');
  return { kind: 'attributed', saleId: sale.id, commissionId: commission?.id ?? null, commissionCents: commission?.amountCents ?? null };
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
    if (!(err instanceof UniqueConstraintViolationException) || !job.transactionId) throw err;
    const prior = await deps.em.fork().findOneOrFail(TestEvent, { program: job.programId, transactionId: job.transactionId });
    return { kind: 'test', eventId: prior.id, programId: job.programId };
  }
  return { kind: 'test', eventId: event.id, programId: job.programId };
}

