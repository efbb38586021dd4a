import { forkDeps, type CoreDeps } from '../deps.ts';
import type { Settled } from '../shared/micro-batch.ts';
import { logIgnored } from './webhook-outcomes.ts';
import { readInboxRows, writeRows } from './webhook-rows.ts';
import { runRow, type ProcessedWebhook, type RowRun } from './run-webhook-row.ts';

export type { ProcessedWebhook } from './run-webhook-row.ts';

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
  // A unit of work per row (forkDeps): rows run concurrently, and concurrent transactions must not
  // share one (a row's jobs share theirs, as one job per row had).
  const runs = await Promise.all(ids.map((id) => runRow(forkDeps(deps), byId.get(id))));
  await writeRows(
    em,
    runs.flatMap((r) => (r.write ? [r.write] : [])),
  );
  const settled = new Map<number, Settled<ProcessedWebhook>>();
  ids.forEach((id, i) => {
    const run = runs[i] as RowRun;
    if (run.kind === 'failed') {
      settled.set(id, { ok: false, error: run.error });
      return;
    }
    if (run.write?.note?.id) run.result.notificationIds.push(run.write.note.id);
    if (run.ignored) logIgnored(deps.log, run.write!.row, run.ignored);
    settled.set(id, { ok: true, value: run.result });
  });
  return inboxIds.map((id) => settled.get(id) as Settled<ProcessedWebhook>);
}
