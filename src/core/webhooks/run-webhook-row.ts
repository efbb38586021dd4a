import type { CoreDeps } from '../deps.ts';
import { type ProviderJob, inboxJobsSchema } from '../jobs/normalised-event.ts';
import { parseWith } from '../jobs/job.ts';
import type { WebhookEventStatus } from '../entities/webhook-event.ts';
import { ignoredReasonInfo } from './ignored-reasons.ts';
import { AppError, RetryableError } from '../shared/errors.ts';
import { recordSale } from '../sales/record-sale.ts';
import { applyRefund, type SaleNotRecorded } from '../refunds/apply-refund.ts';
import { linkPayment } from '../refunds/link-payment.ts';
import { lookUpSaleAlias } from '../refunds/alias-lookup.ts';
import { applyRefundAgain, lookUpRefundedSale } from '../refunds/refund-sale-lookup.ts';
import { reviewWonDispute } from '../refunds/review-won-dispute.ts';
import { reverseTransfer } from '../payouts/reverse-transfer.ts';
import { applyParkedRefundsFor, closeParkedRefunds, parkRefund, type Effects } from '../refunds/parked-refunds.ts';
import { isDataError } from '../db/data-error.ts';
import { resolveOrder } from '../attribution/order-registrations.ts';
import {
  nothingRecordedReason,
  unattributedPaymentPayload,
  type IgnoredEvent,
  type WebhookJobOutcome,
} from './webhook-outcomes.ts';
import { saleEventRecordedNoSale, type InboxRow, type RowWrite } from './webhook-rows.ts';

/**
 * What running an inbox row did; `notificationIds` and `deliveryIds` (outbound events) are outbox
 * rows to deliver after commit.
 */
export type ProcessedWebhook = Effects & {
  status: WebhookEventStatus;
  outcome: WebhookJobOutcome[];
};

export type RowRun =
  | {
      kind: 'done';
      result: ProcessedWebhook;
      ignored: IgnoredEvent | null;
      /** How to write the row back; null when it was not run (missing, or already done). */
      write: RowWrite | null;
    }
  | { kind: 'failed'; error: RetryableError; write: RowWrite };

/** Runs one row's jobs with `deps` and says how to write the row back. Never throws. */
export async function runRow(deps: CoreDeps, row: InboxRow | undefined): Promise<RowRun> {
  const done = (result: ProcessedWebhook, written: InboxRow | null): RowRun => ({
    kind: 'done',
    result,
    ignored: null,
    write: written && { row: written, note: null },
  });
  if (!row) return done({ status: 'failed', outcome: [], notificationIds: [], deliveryIds: [] }, null);
  if (row.status === 'processed' || row.status === 'ignored') {
    return done(
      {
        status: row.status,
        // As stored by an earlier run of this code.
        outcome: Array.isArray(row.outcome) ? (row.outcome as WebhookJobOutcome[]) : [],
        notificationIds: [],
        deliveryIds: [],
      },
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
    return done({ status: 'failed', outcome: [], notificationIds: [], deliveryIds: [] }, row);
  }
  const jobs = parsed.value;
  const outcome: WebhookJobOutcome[] = [];
  // A row that fails after some of its jobs committed returns none of their outbox rows: those
  // notifications and event deliveries are committed and wait for the outbox sweepers.
  const effects: Effects = { notificationIds: [], deliveryIds: [] };
  try {
    for (const [i, given] of jobs.entries()) {
      // A gateway payment naming only an order takes its customer from the order's registration
      // (the resolved job also decides the ignored reason below).
      const job = given.kind === 'sale' ? await resolveOrder(deps, given) : given;
      if (!job) {
        outcome.push({ kind: 'error', code: 'order_not_registered', message: ORDER_NOT_REGISTERED });
        continue;
      }
      jobs[i] = job;
      let saleMissing = false;
      try {
        const result = await runProviderJob(deps, job);
        if (result.kind === 'sale_not_recorded') {
          saleMissing = true;
        } else {
          // A refund naming the alias that arrived before the link was parked: its sale is known now.
          if (result.kind === 'linked' && job.kind === 'link')
            addEffects(effects, await applyParkedRefundsFor(deps, job.programId, [job.alias]));
          // A sale recorded under an id refunds do not name: the provider's API may link it now
          // (a retry finds it `duplicate` and asks again; a RetryableError fails the row).
          if (job.kind === 'sale' && (result.kind === 'attributed' || result.kind === 'duplicate'))
            addEffects(effects, await lookUpSaleAlias(deps, job));
          // Applied refunds, requested dispute reviews and sales that applied parked refunds write
          // notifications; sales, refunds and failed payouts may write outbound events.
          addEffects(effects, result);
          outcome.push(result);
        }
      } catch (err) {
        if (isDataError(err)) {
          // A value the database refuses fails identically on every retry: a final outcome.
          deps.log.warn({ inboxId, err: (err as Error).message }, 'webhook job holds a value that cannot be stored');
          outcome.push({ kind: 'error', code: 'invalid_request', message: 'A value of this event cannot be stored' });
          continue;
        }
        if (!(err instanceof AppError)) throw err;
        outcome.push({ kind: 'error', code: err.code, message: err.message });
      }
      // Outside the job's own error handling: a failure here fails the row, which is retried.
      if (saleMissing) outcome.push(await refundBeforeItsSale(deps, row, job, effects));
    }
  } catch (err) {
    row.error = err instanceof Error ? err.message : String(err);
    return {
      kind: 'failed',
      error: err instanceof RetryableError ? err : new RetryableError(row.error),
      write: { row, note: null },
    };
  }
  // A sale event that recorded no sale marks the refunds parked for it `not_recorded` (off the
  // unmatched list; a sale recorded later, e.g. by a replay, still applies them).
  for (const [i, job] of jobs.entries()) {
    const o = outcome[i];
    if (job.kind === 'sale' && job.transactionId && (o?.kind === 'error' || o?.kind === 'window_expired'))
      await closeParkedRefunds(deps, job.programId, job.transactionId);
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
  return { kind: 'done', result: { status: row.status, outcome, ...effects }, ignored, write: { row, note } };
}

const ORDER_NOT_REGISTERED =
  'No order registered with POST /api/v1/track/checkout matches this payment; register the order, then replay the event';

/** Runs one job of a provider event with the use-case of its kind. */
function runProviderJob(
  deps: CoreDeps,
  job: ProviderJob,
): Promise<Exclude<WebhookJobOutcome, { kind: 'error' }> | SaleNotRecorded> {
  switch (job.kind) {
    case 'sale':
      return recordSale(deps, job);
    case 'refund':
      return applyRefund(deps, job);
    case 'link':
      return linkPayment(deps, job);
    case 'dispute_won':
      return reviewWonDispute(deps, job);
    case 'transfer_reversed':
      return reverseTransfer(deps, job);
  }
}

/**
 * A provider refund whose sale is not recorded: applied after all when the provider's API names
 * the sale its payment paid; else finished as `not_found` when that sale's event recorded no sale,
 * or parked until the sale arrives. Its notifications and deliveries go to `effects`.
 */
async function refundBeforeItsSale(
  deps: CoreDeps,
  row: InboxRow,
  job: ProviderJob,
  effects: Effects,
): Promise<WebhookJobOutcome> {
  if (job.kind !== 'refund') throw new Error(`a ${job.kind} job has no refund to park`);
  // The provider's API may name the sale the refunded payment paid, linked now.
  const again = (await lookUpRefundedSale(deps, job)) ? await applyRefundAgain(deps, job) : null;
  if (again) {
    addEffects(effects, again);
    return again;
  }
  if (await saleEventRecordedNoSale(deps.em, row, job.transactionId)) {
    // Most checkouts are not referred: their sale event ends without a sale, and waiting for
    // one would only fill the parked list. Same answer as the API's refund of an unknown sale.
    return {
      kind: 'error',
      code: 'not_found',
      message: 'The sale event of this transaction was processed without recording a sale',
    };
  }
  // Its sale has not arrived (providers do not order their deliveries): kept, and applied
  // once when the sale is recorded.
  const parked = await parkRefund(deps, job, { webhookEventId: row.id, provider: row.provider });
  addEffects(effects, parked);
  return parked;
}

/** Adds what a use-case's result says it wrote (`notificationIds`, `deliveryIds`, when it has them). */
function addEffects(into: Effects, from: object): void {
  if ('notificationIds' in from && Array.isArray(from.notificationIds))
    into.notificationIds.push(...from.notificationIds);
  if ('deliveryIds' in from && Array.isArray(from.deliveryIds)) into.deliveryIds.push(...from.deliveryIds);
}
