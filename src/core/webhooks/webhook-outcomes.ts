import type { Logger } from '../deps.ts';
import type { ProviderJob } from '../jobs/normalised-event.ts';
import type { SaleJob } from '../jobs/sale-job.ts';
import type { IWebhookEvent } from '../entities/webhook-event.ts';
import { ignoredReasonInfo } from './ignored-reasons.ts';
import type { SaleResult } from '../sales/record-sale.ts';
import type { RefundResult } from '../refunds/apply-refund.ts';
import type { LinkResult } from '../refunds/link-payment.ts';
import type { DisputeWonResult } from '../refunds/review-won-dispute.ts';
import type { ParkedResult } from '../refunds/parked-refunds.ts';
import type { TransferReversedResult } from '../payouts/reverse-transfer.ts';
import { formatMoney } from '../shared/money.ts';

/** What one job of a provider event ended with: its use-case's result, or a final error. */
export type WebhookJobOutcome =
  | SaleResult
  | RefundResult
  | ParkedResult
  | LinkResult
  | DisputeWonResult
  | TransferReversedResult
  | { kind: 'error'; code: string; message: string };

export type IgnoredEvent = { reason: string; job: ProviderJob };

/**
 * The reason an event's jobs recorded nothing (every job ended in a rejection or an expired
 * window), or null when at least one job was recorded (duplicates and skips count: they are
 * prior successes; a stored link and a dispute review, requested or not needed, are results too).
 */
export function nothingRecordedReason(jobs: ProviderJob[], outcome: WebhookJobOutcome[]): IgnoredEvent | null {
  let first: IgnoredEvent | null = null;
  for (const [i, job] of jobs.entries()) {
    const o = outcome[i];
    let reason: string | null = null;
    if (o?.kind === 'window_expired') reason = 'attribution_window_expired';
    else if (o?.kind === 'error') {
      if (job.kind === 'refund' && o.code === 'not_found') reason = 'sale_not_recorded';
      else if (o.code === 'invalid_request') reason = 'unstorable_value';
      else if (job.kind === 'sale' && o.code === 'no_attribution') {
        reason = job.clickId ? 'unknown_click_id' : job.customerKey ? 'unknown_customer' : 'no_tracker_metadata';
      } else reason = o.code || 'rejected';
    }
    if (reason === null) return null;
    first ??= { reason, job };
  }
  return first;
}

/** The advertiser's notice of a payment that reached the merchant without reaching a partner. */
export function unattributedPaymentPayload(
  row: Pick<IWebhookEvent, 'id' | 'provider' | 'eventType'>,
  reason: string,
  job: SaleJob,
): Record<string, unknown> {
  const amount = job.amountCents === null ? job.currency : formatMoney(job.amountCents, job.currency);
  const what = `A ${row.provider} payment of ${amount} (transaction ${job.transactionId})`;
  const message =
    reason === 'unsupported_currency'
      ? `${what} was not attributed: only USD, EUR and VND are recorded, and the currencies the service's CURRENCIES setting adds. If a partner should earn on it, report it in a supported currency with POST /api/v1/track/sale.`
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

/** Nothing recorded is never silent: the log says why, at the reason's level. */
export function logIgnored(
  log: Logger,
  row: Pick<IWebhookEvent, 'id' | 'provider' | 'program' | 'eventType'>,
  ignored: IgnoredEvent,
): void {
  const info = ignoredReasonInfo(ignored.reason);
  log[info.level](
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
