/**
 * Stripe Connect runs: each processing payout becomes a transfer from the merchant's Stripe
 * balance to the partner's connected account, through core's `sendTransfer` port (implemented
 * with the `stripe` SDK in providers/stripe/transfers.ts) and the restricted API key stored on
 * the program's Stripe connection. The idempotency key is the payout's own (`payout-<program>-<id>`),
 * and Stripe answers a repeated key with the first transfer, but only for 24 hours
 * (https://docs.stripe.com/api/idempotent_requests). So before sending, the run's transfers are
 * listed (`listTransfers`: its transfer group, `payout_run_<id>`, and each transfer's
 * `metadata.payout_id`): a payout Stripe already paid is confirmed with that transfer and never
 * sent again, however late the send is repeated. A run a crash left half done is resumed by the
 * worker's sweeper (`resumeStripeTransfers`) the same way.
 */
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Payout } from '../entities/payout.ts';
import { getPayoutRun } from './payout-runs.ts';
import { openPayoutDetails } from './payout-methods.ts';
import { openProviderApiKey } from '../integrations/provider-api-keys.ts';
import { confirmPayout, failPayout } from './settle-payouts.ts';
import type { MadeTransfer } from '../ports.ts';

/** A Stripe run's payout still `processing` this long after the run made it is resumed by the sweeper. */
export const RESUME_AFTER_MS = 15 * 60_000;

export type TransferReport = {
  sent: Array<{ payoutId: number; transferId: string }>;
  errors: Array<{ payoutId: number; error: string }>;
  /** Outbound event deliveries of the payouts it settled, to enqueue after it returned. */
  deliveryIds: number[];
};

/** The stable idempotency key of a payout's transfer. */
export const transferKey = (programId: number, payoutId: number) => `payout-${programId}-${payoutId}`;

/**
 * Sends a transfer for each processing payout of a Stripe Connect run and confirms each one
 * Stripe accepted (`external_id`: the transfer). Safe to call again, at any time: paid payouts
 * are passed by, and a payout whose transfer Stripe already made (listed by the run's transfer
 * group) is confirmed with it (failed, when that transfer was reversed) instead of being sent.
 * When the list cannot be read nothing is sent: the payouts stay processing for a later call.
 * @throws AppError `not_found`, `invalid_request` (another rail; no API key on the Stripe connection).
 */
export async function sendRunTransfers(deps: CoreDeps, programId: number, runId: number): Promise<TransferReport> {
  const { run, payouts } = await getPayoutRun(deps, programId, runId);
  if (run.rail !== 'stripe_connect')
    throw new AppError('invalid_request', `Run ${runId} pays through ${run.rail}, not Stripe Connect`);
  if (!deps.sendTransfer || !deps.listTransfers)
    throw new AppError('invalid_request', 'Stripe transfers are not available in this process');
  const apiKey = await openProviderApiKey(deps, programId, 'stripe');
  if (!apiKey)
    throw new AppError(
      'invalid_request',
      'Set a Stripe API key with write access to Transfers on the stripe connection (admin providers:api-key) first',
      { field: 'api_key' },
    );
  const report: TransferReport = { sent: [], errors: [], deliveryIds: [] };
  const pending = payouts.filter((p) => p.status === 'processing');
  if (!pending.length) return report;
  const transferGroup = `payout_run_${run.id}`;
  const listed = await deps.listTransfers(apiKey, { transferGroup, programId });
  if (!listed.ok) {
    deps.log.warn(
      { programId, runId, err: listed.error },
      'stripe transfers not listed; nothing sent, payouts stay processing',
    );
    const error = `the run's transfers could not be read from Stripe, so none was sent: ${listed.error}`;
    return { sent: [], errors: pending.map((p) => ({ payoutId: p.id, error })), deliveryIds: [] };
  }
  const made = new Map(listed.transfers.map((t) => [t.payoutId, t]));
  const details = await openPayoutDetails(
    deps,
    programId,
    pending.map((p) => p.partner),
  );
  for (const payout of pending) {
    const existing = made.get(payout.id);
    if (existing) {
      report.deliveryIds.push(...(await settleMadeTransfer(deps, programId, payout.id, existing)));
      if (!existing.reversed) report.sent.push({ payoutId: payout.id, transferId: existing.transferId });
      else report.errors.push({ payoutId: payout.id, error: `Stripe transfer ${existing.transferId} reversed` });
      continue;
    }
    const d = details.get(payout.partner);
    if (d?.kind !== 'stripe_connect') {
      report.errors.push({ payoutId: payout.id, error: 'the partner has no Stripe connected account now' });
      continue;
    }
    const result = await deps.sendTransfer(apiKey, {
      amountCents: payout.amountCents,
      currency: payout.currency.toLowerCase(),
      destination: d.account_id,
      idempotencyKey: transferKey(programId, payout.id),
      transferGroup,
      metadata: { program_id: String(programId), payout_id: String(payout.id), partner_id: String(payout.partner) },
    });
    if (!result.ok) {
      deps.log.warn(
        { programId, runId, payoutId: payout.id, err: result.error },
        'stripe transfer refused; the payout stays processing',
      );
      report.errors.push({ payoutId: payout.id, error: result.error });
      continue;
    }
    report.deliveryIds.push(...(await whileProcessing(confirmPayout(deps, programId, payout.id, result.transferId))));
    report.sent.push({ payoutId: payout.id, transferId: result.transferId });
  }
  return report;
}

/** A payout whose transfer Stripe had made already (a crash before its confirmation): paid, or failed if reversed. */
async function settleMadeTransfer(
  deps: CoreDeps,
  programId: number,
  payoutId: number,
  t: MadeTransfer,
): Promise<number[]> {
  deps.log.info({ programId, payoutId, transferId: t.transferId }, 'stripe transfer found for a processing payout');
  if (t.reversed)
    return (await failPayout(deps, programId, payoutId, `Stripe transfer ${t.transferId} reversed`)).deliveryIds;
  return whileProcessing(confirmPayout(deps, programId, payoutId, t.transferId));
}

/**
 * A confirmation that another process (a sweeper on another worker) made first is done, not an
 * error. Returns the confirmation's outbound event deliveries (none when it was made elsewhere).
 */
async function whileProcessing(confirmation: Promise<{ deliveryIds: number[] }>): Promise<number[]> {
  try {
    return (await confirmation).deliveryIds;
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'invalid_request')) throw err;
    return [];
  }
}

/**
 * The sweeper's part: Stripe Connect payouts still `processing` RESUME_AFTER_MS after their run
 * made them (the worker was killed mid-run, or Stripe refused or could not be reached) are sent
 * again through `sendRunTransfers`, run by run, which first looks for a transfer already made.
 * A run that cannot be sent (no API key) is logged and tried again at the next sweep.
 */
export async function resumeStripeTransfers(deps: CoreDeps): Promise<TransferReport[]> {
  const before = new Date(deps.clock().getTime() - RESUME_AFTER_MS);
  const stale = await deps.em.find(
    Payout,
    { status: 'processing', rail: 'stripe_connect', run: { $ne: null }, createdAt: { $lt: before } },
    { fields: ['program', 'run'], orderBy: { id: 'asc' }, disableIdentityMap: true },
  );
  const runs = new Map(stale.map((p) => [p.run!, p.program]));
  const reports: TransferReport[] = [];
  for (const [runId, programId] of runs) {
    try {
      const report = await sendRunTransfers(deps, programId, runId);
      deps.log.info({ programId, runId, sent: report.sent.length, errors: report.errors }, 'stripe run resumed');
      reports.push(report);
    } catch (err) {
      deps.log.warn(
        { programId, runId, err: err instanceof Error ? err.message : String(err) },
        'stripe run not resumed; tried again at the next sweep',
      );
    }
  }
  return reports;
}

/** The payout a Stripe transfer paid, if it is one of the program's. */
export async function payoutOfTransfer(deps: CoreDeps, programId: number, transferId: string) {
  return deps.em.findOne(Payout, { program: programId, externalId: transferId });
}
