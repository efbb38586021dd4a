/**
 * Stripe Connect runs: each processing payout becomes a transfer from the merchant's Stripe
 * balance to the partner's connected account, through core's `sendTransfer` port (implemented
 * with the `stripe` SDK in providers/stripe/transfers.ts) and the restricted API key stored on
 * the program's Stripe connection. The idempotency key is the payout's own (`payout-<program>-<id>`):
 * a retried request, a second send of the run, or a crash between the transfer and its
 * confirmation never pays twice, because Stripe answers a repeated key with the first transfer.
 */
import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Payout } from './entities/payout.ts';
import { getPayoutRun } from './payout-runs.ts';
import { openPayoutDetails } from './payout-methods.ts';
import { openProviderApiKey } from './provider-api-keys.ts';
import { confirmPayout } from './settle-payouts.ts';

export type TransferRequest = {
  amountCents: number;
  currency: string;
  /** The connected account, `acct_...`. */
  destination: string;
  idempotencyKey: string;
  transferGroup: string;
  metadata: Record<string, string>;
};

/** `ok`: the transfer's id. Otherwise the rail's message; the payout stays processing. */
export type TransferResult = { ok: true; transferId: string } | { ok: false; error: string };

export type SendTransfer = (apiKey: string, t: TransferRequest) => Promise<TransferResult>;

export type TransferReport = {
  sent: Array<{ payoutId: number; transferId: string }>;
  errors: Array<{ payoutId: number; error: string }>;
};

/** The stable idempotency key of a payout's transfer. */
export const transferKey = (programId: number, payoutId: number) => `payout-${programId}-${payoutId}`;

/**
 * Sends a transfer for each processing payout of a Stripe Connect run and confirms each one
 * Stripe accepted (`external_id`: the transfer). Safe to call again: paid payouts are passed by,
 * and a payout whose transfer was made but not confirmed gets the same transfer back.
 * @throws AppError `not_found`, `invalid_request` (another rail; no API key on the Stripe connection).
 */
export async function sendRunTransfers(deps: CoreDeps, programId: number, runId: number): Promise<TransferReport> {
  const { run, payouts } = await getPayoutRun(deps, programId, runId);
  if (run.rail !== 'stripe_connect')
    throw new AppError('invalid_request', `Run ${runId} pays through ${run.rail}, not Stripe Connect`);
  if (!deps.sendTransfer) throw new AppError('invalid_request', 'Stripe transfers are not available in this process');
  const apiKey = await openProviderApiKey(deps, programId, 'stripe');
  if (!apiKey)
    throw new AppError(
      'invalid_request',
      'Set a Stripe API key with write access to Transfers on the stripe connection (admin providers:api-key) first',
      { field: 'api_key' },
    );
  const pending = payouts.filter((p) => p.status === 'processing');
  const details = await openPayoutDetails(
    deps,
    programId,
    pending.map((p) => p.partner),
  );
  const report: TransferReport = { sent: [], errors: [] };
  for (const payout of pending) {
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
      transferGroup: `payout_run_${run.id}`,
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
    await confirmPayout(deps, programId, payout.id, result.transferId);
    report.sent.push({ payoutId: payout.id, transferId: result.transferId });
  }
  return report;
}

/** The payout a Stripe transfer paid, if it is one of the program's. */
export async function payoutOfTransfer(deps: CoreDeps, programId: number, transferId: string) {
  return deps.em.findOne(Payout, { program: programId, externalId: transferId });
}
