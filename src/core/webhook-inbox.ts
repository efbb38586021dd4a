import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CoreDeps } from './deps.ts';
import type { NormalisedEvent, ProviderJob } from './jobs/normalised-event.ts';
import { inboxJobsSchema } from './jobs/normalised-event.ts';
import { parseWith } from './jobs/job.ts';
import type { SaleJob } from './jobs/sale-job.ts';
import type { WebhookProvider } from './vocabulary.ts';
import { Notification } from './entities/notification.ts';
import { ignoredReasonInfo } from './ignored-reasons.ts';
import { AppError, RetryableError } from './errors.ts';
import { WebhookEvent, type IWebhookEvent, type WebhookEventStatus } from './entities/webhook-event.ts';
import { Sale } from './entities/sale.ts';
import { TestEvent } from './entities/test-event.ts';
import { recordSale, type SaleResult } from './record-sale.ts';
import { applyRefund, type RefundResult } from './apply-refund.ts';
import { findLinkedTransactionId, type LinkResult, linkPayment } from './link-payment.ts';
import { type DisputeWonResult, reviewWonDispute } from './review-won-dispute.ts';
import { isDataError } from './data-error.ts';

/** Width of the inbox's and the jobs' identifier columns (varchar(255)). */
const ID_COLUMN_CHARS = 255;

/**
 * Over-long provider ids still deduplicate: a longer key is replaced by its digest (unique in
 * practice, stable across redeliveries), never truncated into a collision with another event.
 */
export function storableDedupeKey(key: string): string {
  return key.length <= ID_COLUMN_CHARS ? key : `sha256-${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * Why a signed event's jobs could not be stored (an id or a metadata value longer than its
 * column), or null. Such an event is kept in the inbox as `ignored` with this reason: retrying
 * would fail the same way forever.
 */
export function unstorableJobsReason(event: NormalisedEvent): string | null {
  for (const job of event.jobs) {
    for (const [field, value] of Object.entries(job)) {
      if (field !== 'refundReason' && typeof value === 'string' && value.length > ID_COLUMN_CHARS) {
        return `unstorable_${field}: longer than ${ID_COLUMN_CHARS} characters`;
      }
    }
  }
  return null;
}

export type StoredWebhook = {
  inboxId: number;
  duplicate: boolean;
  status: WebhookEventStatus;
  ignoredReason?: string | null;
};

/**
 * Persists a verified webhook in the inbox. A redelivery (same provider, program and dedupe key)
 * returns the first row with `duplicate: true` and changes nothing.
 */
export async function storeWebhookEvent(
  deps: CoreDeps,
  input: {
    provider: WebhookProvider;
    programId: number;
    event: NormalisedEvent;
    payload: unknown;
    receivedAt: Date;
  },
): Promise<StoredWebhook> {
  const unstorable = input.event.ignoredReason ? null : unstorableJobsReason(input.event);
  const event: NormalisedEvent = {
    ...input.event,
    dedupeKey: storableDedupeKey(input.event.dedupeKey),
    eventType: input.event.eventType.slice(0, ID_COLUMN_CHARS),
    ...(unstorable ? { jobs: [], ignoredReason: unstorable } : {}),
  };
  const key = { provider: input.provider, program: input.programId, dedupeKey: event.dedupeKey };
  const status: WebhookEventStatus = event.ignoredReason ? 'ignored' : 'pending';
  // Insert first, no lookup: redeliveries are rare and the unique key decides. A plain statement,
  // not `em.insert`: the ORM walks every key of the two JSON documents before writing them, which
  // was a third of the acknowledgement's CPU (the webhook hot path, see `npm run bench`).
  try {
    const [row] = await deps.em.fork().execute<Array<{ id: number }>>(
      `insert into webhook_event (provider, program_id, dedupe_key, event_type, payload, normalised, status, outcome, error, attempts, received_at, processed_at)
       values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, null, ?, 0, ?, ?) returning id`,
      [
        input.provider,
        input.programId,
        event.dedupeKey,
        event.eventType,
        JSON.stringify(input.payload ?? null),
        JSON.stringify(event),
        status,
        event.ignoredReason ?? null,
        input.receivedAt,
        status === 'ignored' ? input.receivedAt : null,
      ],
    );
    return { inboxId: row!.id, duplicate: false, status, ignoredReason: event.ignoredReason };
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const first = await deps.em.fork().findOneOrFail(WebhookEvent, key, { fields: ['id', 'status'] });
    return { inboxId: first.id, duplicate: true, status: first.status };
  }
}

/** What running an inbox row did; `notificationIds` are outbox rows to deliver after commit. */
export type ProcessedWebhook = { status: WebhookEventStatus; outcome: unknown[]; notificationIds: number[] };

/**
 * Runs an inbox row's normalised jobs through the same use-cases as the API. Every job is
 * idempotent, so re-running a half-processed row is safe. Expected failures (`no_attribution`,
 * `unsupported_currency`...) are final outcomes; a refund whose sale is missing throws
 * RetryableError so the queue retries it with backoff. Jobs that no longer parse (a row written
 * by an older release) fail the row with the reason: retrying cannot help.
 */
export async function processWebhookEvent(deps: CoreDeps, inboxId: number): Promise<ProcessedWebhook> {
  const em = deps.em.fork();
  // The raw payload is kept for people, never read here: not loading it spares parsing and
  // change-tracking a large document per event (drain rate, `npm run bench`).
  const row = await em.findOne(WebhookEvent, { id: inboxId }, { exclude: ['payload'] });
  if (!row) return { status: 'failed', outcome: [], notificationIds: [] };
  if (row.status === 'processed' || row.status === 'ignored') {
    return { status: row.status, outcome: Array.isArray(row.outcome) ? row.outcome : [], notificationIds: [] };
  }
  row.attempts += 1;
  const parsed = parseWith(inboxJobsSchema, row.normalised?.jobs);
  if (!parsed.ok) {
    row.status = 'failed';
    row.error = `unreadable jobs: ${parsed.reason}`;
    await em.flush();
    deps.log.error({ inboxId, err: row.error }, 'webhook event failed: its jobs do not parse');
    return { status: 'failed', outcome: [], notificationIds: [] };
  }
  const jobs = parsed.value;
  const outcome: unknown[] = [];
  const notificationIds: number[] = [];
  try {
    for (const job of jobs) {
      try {
        const result = await runProviderJob(deps, job);
        // Applied refunds and requested dispute reviews write notifications.
        if ('notificationIds' in result) notificationIds.push(...result.notificationIds);
        outcome.push(result);
      } catch (err) {
        if (
          err instanceof RetryableError &&
          job.kind === 'refund' &&
          (await saleEventRecordedNoSale(em, row, job.transactionId))
        ) {
          // Most checkouts are not referred: their sale event ends without a sale, and waiting for
          // one would only fill the failed list. Same answer as the API's refund of an unknown sale.
          outcome.push({
            kind: 'error',
            code: 'not_found',
            message: 'The sale event of this transaction was processed without recording a sale',
          });
          continue;
        }
        if (isDataError(err)) {
          // A value the database refuses fails identically on every retry: a final outcome.
          deps.log.warn({ inboxId, err: (err as Error).message }, 'webhook job holds a value that cannot be stored');
          outcome.push({ kind: 'error', code: 'invalid_request', message: 'A value of this event cannot be stored' });
          continue;
        }
        if (!(err instanceof AppError)) throw err;
        outcome.push({ kind: 'error', code: err.code, message: err.message });
      }
    }
  } catch (err) {
    row.error = err instanceof Error ? err.message : String(err);
    await em.flush();
    throw err instanceof RetryableError ? err : new RetryableError(row.error);
  }
  // Nothing recorded is never silent: the row says why, the log warns, and money that reached
  // the merchant without reaching a partner is put in front of the advertiser.
  const ignored = nothingRecordedReason(jobs, outcome);
  row.status = ignored ? 'ignored' : 'processed';
  row.outcome = outcome;
  row.error = ignored?.reason ?? null;
  row.processedAt = deps.clock();
  const note =
    ignored && ignoredReasonInfo(ignored.reason).notify && ignored.job.kind === 'sale'
      ? em.create(Notification, {
          program: row.program,
          kind: 'advertiser_unattributed_payment',
          partnerId: null,
          commissionId: null,
          payload: unattributedPaymentPayload(row, ignored.reason, ignored.job),
          createdAt: row.processedAt,
        })
      : null;
  await em.flush();
  if (note) notificationIds.push(note.id);
  if (ignored) {
    const info = ignoredReasonInfo(ignored.reason);
    deps.log[info.level](
      {
        inboxId,
        provider: row.provider,
        programId: row.program,
        eventType: row.eventType,
        reason: ignored.reason,
        transactionId: ignored.job.transactionId,
      },
      'provider event recorded no sale or refund',
    );
  }
  return { status: row.status, outcome, notificationIds };
}

/**
 * The reason an event's jobs recorded nothing (every job ended in a rejection or an expired
 * window), or null when at least one job was recorded (duplicates and skips count: they are
 * prior successes; a stored link and a dispute review, requested or not needed, are results too).
 */
export function nothingRecordedReason(
  jobs: ProviderJob[],
  outcome: unknown[],
): { reason: string; job: ProviderJob } | null {
  let first: { reason: string; job: ProviderJob } | null = null;
  for (const [i, job] of jobs.entries()) {
    const o = outcome[i] as { kind?: string; code?: string } | undefined;
    let reason: string | null = null;
    if (o?.kind === 'window_expired') reason = 'attribution_window_expired';
    else if (o?.kind === 'error') {
      if (job.kind === 'refund' && o.code === 'not_found') reason = 'sale_not_recorded';
      else if (o.code === 'invalid_request') reason = 'unstorable_value';
      else if (job.kind === 'sale' && o.code === 'no_attribution') {
        reason = job.clickId ? 'unknown_click_id' : job.customerKey ? 'unknown_customer' : 'no_tracker_metadata';
      } else reason = o.code ?? 'rejected';
    }
    if (reason === null) return null;
    first ??= { reason, job };
  }
  return first;
}

function unattributedPaymentPayload(
  row: Pick<IWebhookEvent, 'id' | 'provider' | 'eventType'>,
  reason: string,
  job: SaleJob,
): Record<string, unknown> {
  const what = `A ${row.provider} payment of ${job.amountCents} ${job.currency} (minor units; transaction ${job.transactionId})`;
  const message =
    reason === 'unsupported_currency'
      ? `${what} was not attributed: only USD, EUR and VND are recorded. If a partner should earn on it, report it in a supported currency with POST /api/v1/track/sale.`
      : `${what} was not attributed: its tracker_click_id "${job.clickId}" matches no click of this program. Check what your checkout puts into the metadata (a click id from another program or environment, or an altered value); no partner was credited.`;
  return {
    reason,
    message,
    provider: row.provider,
    event_type: row.eventType,
    webhook_event_id: row.id,
    transaction_id: job.transactionId,
    amount_cents: job.amountCents,
    currency: job.currency,
    click_id: job.clickId,
    customer_key: job.customerKey,
  };
}

type ProviderJobResult = SaleResult | RefundResult | LinkResult | DisputeWonResult;

/** Runs one job of a provider event with the use-case of its kind. */
function runProviderJob(deps: CoreDeps, job: ProviderJob): Promise<ProviderJobResult> {
  switch (job.kind) {
    case 'sale':
      return recordSale(deps, job);
    case 'refund':
      return applyRefund(deps, job);
    case 'link':
      return linkPayment(deps, job);
    case 'dispute_won':
      return reviewWonDispute(deps, job);
  }
}

/**
 * Whether a processed inbox row of the same provider and program carried the sale `transactionId`
 * and no sale (live or test) exists: that event recorded none (`no_attribution`,
 * `window_expired`...). The sales are re-checked after the inbox because one may have committed
 * since the refund looked for it.
 */
async function saleEventRecordedNoSale(
  em: CoreDeps['em'],
  refundRow: Pick<IWebhookEvent, 'provider' | 'program'>,
  named: string,
): Promise<boolean> {
  // A refund naming a linked alias (a Stripe PaymentIntent) refunds the sale the link names.
  const transactionId = (await findLinkedTransactionId(em, refundRow.program, named)) ?? named;
  const saleEvents = await em.execute(
    `select id from webhook_event where provider = ? and program_id = ? and status in ('processed', 'ignored') and normalised -> 'jobs' @> ?::jsonb limit 1`,
    [refundRow.provider, refundRow.program, JSON.stringify([{ kind: 'sale', transactionId }])],
  );
  if (!saleEvents.length) return false;
  const where = { program: refundRow.program, transactionId };
  return (await em.count(Sale, where)) === 0 && (await em.count(TestEvent, where)) === 0;
}

/** After the last retry: the row stays visible as failed (and can be replayed). */
export async function markWebhookFailed(deps: CoreDeps, inboxId: number, error: string): Promise<void> {
  await deps.em.fork().nativeUpdate(WebhookEvent, { id: inboxId, status: 'pending' }, { status: 'failed', error });
}

/** Puts failed (or all of a program's failed) rows back to pending for a replay; returns their ids. */
export async function resetWebhookEventsForReplay(
  deps: CoreDeps,
  programId: number,
  inboxId?: number,
): Promise<number[]> {
  const em = deps.em.fork();
  const rows = await em.find(
    WebhookEvent,
    inboxId ? { id: inboxId, program: programId } : { program: programId, status: 'failed' },
    { fields: ['id', 'status', 'normalised'] },
  );
  if (inboxId && !rows.length) throw new AppError('not_found', 'No such webhook event in this program');
  // An event ignored while running its jobs (`unknown_customer` before the lead was tracked...)
  // can be replayed by id; one ignored while normalising has no jobs to run.
  for (const r of rows) if (r.status !== 'ignored' || r.normalised.jobs.length > 0) r.status = 'pending';
  await em.flush();
  return rows.filter((r) => r.status === 'pending').map((r) => r.id);
}

/**
 * Pending rows the sweeper should (re-)enqueue: never run and older than `neverRunBefore`
 * (acknowledged, but the enqueue failed), or already tried and still pending past `stuckBefore`
 * (longer than every retry could take: the job was lost, or its failure was never recorded).
 */
export async function findStalePendingWebhooks(
  deps: CoreDeps,
  cutoffs: { neverRunBefore: Date; stuckBefore: Date },
  limit = 500,
): Promise<Array<{ id: number; attempts: number }>> {
  const rows = await deps.em.fork().find(
    WebhookEvent,
    {
      status: 'pending',
      $or: [
        { attempts: 0, receivedAt: { $lte: cutoffs.neverRunBefore } },
        { attempts: { $gt: 0 }, receivedAt: { $lte: cutoffs.stuckBefore } },
      ],
    },
    { fields: ['id', 'attempts'], limit, orderBy: { id: 'asc' } },
  );
  return rows.map((r) => ({ id: r.id, attempts: r.attempts }));
}
