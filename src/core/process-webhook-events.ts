import type { CoreDeps } from './deps.ts';
import type { ProviderJob } from './jobs/normalised-event.ts';
import { inboxJobsSchema } from './jobs/normalised-event.ts';
import { parseWith } from './jobs/job.ts';
import type { SaleJob } from './jobs/sale-job.ts';
import { Notification, type INotification } from './entities/notification.ts';
import { ignoredReasonInfo } from './ignored-reasons.ts';
import { AppError, RetryableError } from './errors.ts';
import type { IWebhookEvent, WebhookEventStatus } from './entities/webhook-event.ts';
import { Sale } from './entities/sale.ts';
import { TestEvent } from './entities/test-event.ts';
import { recordSale, type SaleResult } from './record-sale.ts';
import { applyRefund, type RefundResult } from './apply-refund.ts';
import { findLinkedTransactionId, type LinkResult, linkPayment } from './link-payment.ts';
import { type DisputeWonResult, reviewWonDispute } from './review-won-dispute.ts';
import { isDataError } from './data-error.ts';
import type { Settled } from './micro-batch.ts';

/** What running an inbox row did; `notificationIds` are outbox rows to deliver after commit. */
export type ProcessedWebhook = { status: WebhookEventStatus; outcome: unknown[]; notificationIds: number[] };

/**
 * Runs inbox rows' normalised jobs through the same use-cases as the API, several rows at once
 * (the webhook worker batches the jobs it holds): one read of the rows, their jobs run
 * concurrently (each sale or refund in its own transaction, as from the API), then one flush
 * writes every row's status and outcome. Each row is answered on its own: a row whose jobs
 * failed unexpectedly fails alone (the queue retries it) while the others are recorded.
 *
 * Every job is idempotent, so re-running a half-processed row is safe. Expected failures
 * (`no_attribution`, `unsupported_currency`...) are final outcomes; a refund whose sale is missing
 * throws RetryableError so the queue retries it with backoff. Jobs that no longer parse (a row
 * written by an older release) fail the row with the reason: retrying cannot help. When the
 * final flush fails, every row of the batch fails with that error and is retried.
 */
export async function processWebhookEvents(
  deps: CoreDeps,
  inboxIds: number[],
): Promise<Array<Settled<ProcessedWebhook>>> {
  const em = deps.em;
  // A replay job and the row's first job may meet in one batch: a row runs once per batch.
  const ids = [...new Set(inboxIds)];
  const byId = await readInboxRows(em, ids);
  // A fork per row: rows run concurrently, and concurrent transactions must not share one unit
  // of work (a row's jobs share theirs, as one job per row had).
  const runs = await Promise.all(ids.map((id) => runRow({ ...deps, em: deps.em.fork() }, byId.get(id))));
  await writeRows(em, runs);
  const settled = new Map<number, Settled<ProcessedWebhook>>();
  ids.forEach((id, i) => {
    const run = runs[i] as RowRun;
    if (run.kind === 'failed') {
      settled.set(id, { ok: false, error: run.error });
      return;
    }
    if (run.note?.id) run.result.notificationIds.push(run.note.id);
    if (run.ignored) logIgnored(deps, byId.get(id) as InboxRow, run.ignored);
    settled.set(id, { ok: true, value: run.result });
  });
  return inboxIds.map((id) => settled.get(id) as Settled<ProcessedWebhook>);
}

/**
 * Writes the rows that ran (status, outcome, error, attempts, processed time) in one statement;
 * with the advertiser notifications some of them created, in one transaction.
 */
async function writeRows(em: CoreDeps['em'], runs: RowRun[]): Promise<void> {
  const rows = runs.flatMap((r) => (r.written ? [r.written] : []));
  if (!rows.length) return;
  const sql = `update webhook_event as w
       set status = v.status, outcome = v.outcome, error = v.error, attempts = v.attempts, processed_at = v.processed_at
      from (values ${rows.map(() => '(?::int, ?, ?::jsonb, ?, ?::int, ?::timestamptz)').join(', ')})
        as v(id, status, outcome, error, attempts, processed_at)
     where w.id = v.id`;
  const params = rows.flatMap((r) => [
    r.id,
    r.status,
    r.outcome === null || r.outcome === undefined ? null : JSON.stringify(r.outcome),
    r.error ?? null,
    r.attempts,
    r.processedAt ?? null,
  ]);
  const notes = runs.flatMap((r) => (r.kind === 'done' && r.note ? [r.note] : []));
  if (!notes.length) {
    await em.execute(sql, params);
    return;
  }
  await em.transactional(async (tx) => {
    for (const note of notes) note.id = (await tx.insert(Notification, note.data)) as number;
    await tx.execute(sql, params);
  });
}

/**
 * The rows by id, read by one plain statement. The raw payload is kept for people, never read
 * here: not loading it spares parsing a large document per event. Not through the ORM: `em.find`
 * cost about 95 µs of CPU per row against 15 for the same select (hydration of the two JSON
 * documents; `npm run bench`). The rows are written back by one statement too (`writeRows`).
 */
async function readInboxRows(em: CoreDeps['em'], ids: number[]): Promise<Map<number, InboxRow>> {
  const rows = await em.execute<
    Array<{
      id: number;
      provider: string;
      program_id: number;
      event_type: string;
      normalised: IWebhookEvent['normalised'];
      status: WebhookEventStatus;
      outcome: unknown;
      error: string | null;
      attempts: number;
      processed_at: Date | string | null;
    }>
  >(
    `select id, provider, program_id, event_type, normalised, status, outcome, error, attempts, processed_at
       from webhook_event where id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        provider: r.provider,
        program: Number(r.program_id),
        eventType: r.event_type,
        normalised: typeof r.normalised === 'string' ? JSON.parse(r.normalised) : r.normalised,
        status: r.status,
        outcome: typeof r.outcome === 'string' ? JSON.parse(r.outcome) : r.outcome,
        error: r.error,
        attempts: Number(r.attempts),
        processedAt: r.processed_at === null ? null : new Date(r.processed_at),
      },
    ]),
  );
}

/** One inbox row (the batched path with a batch of one). */
export async function processWebhookEvent(deps: CoreDeps, inboxId: number): Promise<ProcessedWebhook> {
  const [r] = await processWebhookEvents(deps, [inboxId]);
  if (!r?.ok) throw r?.error;
  return r.value;
}

/** An inbox row as read here: without its raw payload. */
type InboxRow = Pick<
  IWebhookEvent,
  | 'id'
  | 'provider'
  | 'program'
  | 'eventType'
  | 'normalised'
  | 'status'
  | 'outcome'
  | 'error'
  | 'attempts'
  | 'processedAt'
>;

type NoteData = Pick<INotification, 'program' | 'kind' | 'partnerId' | 'commissionId' | 'payload' | 'createdAt'>;

type RowRun = (
  | {
      kind: 'done';
      result: ProcessedWebhook;
      /** An advertiser notification written with the row (its id is set then). */
      note: { data: NoteData; id?: number } | null;
      ignored: { reason: string; job: ProviderJob } | null;
    }
  | { kind: 'failed'; error: RetryableError }
) & {
  /** The row as it is to be written; null when it was not run (missing, or already done). */
  written: InboxRow | null;
};

/** Runs one row's jobs with `deps` and says how to write the row back. Never throws. */
async function runRow(deps: CoreDeps, row: InboxRow | undefined): Promise<RowRun> {
  const done = (result: ProcessedWebhook, written: InboxRow | null): RowRun => ({
    kind: 'done',
    result,
    note: null,
    ignored: null,
    written,
  });
  if (!row) return done({ status: 'failed', outcome: [], notificationIds: [] }, null);
  if (row.status === 'processed' || row.status === 'ignored') {
    return done(
      { status: row.status, outcome: Array.isArray(row.outcome) ? row.outcome : [], notificationIds: [] },
      null,
    );
  }
  const inboxId = row.id;
  row.attempts += 1;
  const parsed = parseWith(inboxJobsSchema, row.normalised?.jobs);
  if (!parsed.ok) {
    row.status = 'failed';
    row.error = `unreadable jobs: ${parsed.reason}`;
    deps.log.error({ inboxId, err: row.error }, 'webhook event failed: its jobs do not parse');
    return done({ status: 'failed', outcome: [], notificationIds: [] }, row);
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
          (await saleEventRecordedNoSale(deps.em, row, job.transactionId))
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
    return {
      kind: 'failed',
      error: err instanceof RetryableError ? err : new RetryableError(row.error),
      written: row,
    };
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
      ? {
          data: {
            program: row.program,
            kind: 'advertiser_unattributed_payment' as const,
            partnerId: null,
            commissionId: null,
            payload: unattributedPaymentPayload(row, ignored.reason, ignored.job),
            createdAt: row.processedAt,
          },
        }
      : null;
  return { kind: 'done', result: { status: row.status, outcome, notificationIds }, note, ignored, written: row };
}

function logIgnored(deps: CoreDeps, row: InboxRow, ignored: { reason: string; job: ProviderJob }): void {
  const info = ignoredReasonInfo(ignored.reason);
  deps.log[info.level](
    {
      inboxId: row.id,
      provider: row.provider,
      programId: row.program,
      eventType: row.eventType,
      reason: ignored.reason,
      transactionId: ignored.job.transactionId,
    },
    'provider event recorded no sale or refund',
  );
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
