/**
 * The bulk-payment file of a payout run, in the rail's own published format (sources in
 * docs/payouts.md):
 * - `paypal_csv`: the PayPal Payouts web upload. No header; per row: recipient (PayPal email),
 *   amount, currency, customer id, note to recipient, recipient wallet (`PAYPAL`). One currency per
 *   file (a run has one).
 * - `paypal_json`: the body of the PayPal Payouts API (`POST /v1/payments/payouts`);
 *   `sender_batch_id` is stable per run, so PayPal refuses a second submission of the same run.
 * - `wise_csv`: Wise batch payments, the "send by email" template (Wise mails each recipient for
 *   their bank details): `name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,
 *   sourceCurrency,targetCurrency`, with `amountCurrency` `target` (the partner receives the exact
 *   amount; fees are the merchant's).
 * Amounts are decimal strings in the currency's minor-unit precision (none for JPY, VND...).
 * The file lists the run's processing and paid payouts (not failed ones). Merchants open the CSV
 * files in a spreadsheet before uploading them: a cell it would run as a formula (a name entered as
 * `=HYPERLINK(...)`) is written with a `'` first, as the exports are (csv-formulas.ts).
 */
import { stringify, type Options } from 'csv-stringify/sync';
import { defuseFormula } from '../shared/csv-formulas.ts';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { formatMinorUnits } from '../shared/money.ts';
import { getPayoutRun } from './payout-runs.ts';
import { openPayoutDetails, type PayoutDetails } from './payout-methods.ts';
import type { PayoutRail } from '../shared/vocabulary.ts';

export const PAYOUT_FILE_FORMATS = ['paypal_csv', 'paypal_json', 'wise_csv'] as const;
export type PayoutFileFormat = (typeof PAYOUT_FILE_FORMATS)[number];

const RAIL_OF: Record<PayoutFileFormat, PayoutRail> = { paypal_csv: 'paypal', paypal_json: 'paypal', wise_csv: 'wise' };

export const WISE_COLUMNS = [
  'name',
  'recipientEmail',
  'paymentReference',
  'receiverType',
  'amountCurrency',
  'amount',
  'sourceCurrency',
  'targetCurrency',
] as const;

export type PayoutFile = { filename: string; contentType: string; body: string };

/** Every string cell of a bank CSV defused (names and emails come from partners). */
const SAFE_CSV: Options = { cast: { string: defuseFormula } };

/**
 * The run's file in `format` (default: the rail's first). @throws AppError `not_found`,
 * `invalid_request` (a format of another rail, or a partner whose details no longer fit the rail).
 */
export async function buildPayoutFile(
  deps: CoreDeps,
  programId: number,
  runId: number,
  format?: PayoutFileFormat,
): Promise<PayoutFile> {
  const { run, payouts } = await getPayoutRun(deps, programId, runId);
  const chosen = format ?? PAYOUT_FILE_FORMATS.find((f) => RAIL_OF[f] === run.rail);
  if (!chosen || RAIL_OF[chosen] !== run.rail)
    throw new AppError(
      'invalid_request',
      `Run ${runId} pays through ${run.rail}: it has no ${format ?? ''} file`.trim(),
      {
        field: 'format',
      },
    );
  const live = payouts.filter((p) => p.status === 'processing' || p.status === 'paid');
  const details = await openPayoutDetails(deps, programId, [...new Set(live.map((p) => p.partner))]);
  const lines = live.map((p) => {
    const d = details.get(p.partner);
    if (d?.kind !== run.rail)
      throw new AppError(
        'invalid_request',
        `Partner ${p.partner} (payout ${p.id}) no longer has ${run.rail} payout details: fail that payout, or ask the partner to enter them`,
      );
    return { payout: p, details: d, amount: formatMinorUnits(p.amountCents, p.currency)! };
  });
  const base = `payout-run-${run.id}-${run.currency.toLowerCase()}`;
  const note = `Partner payout ${run.id}`;
  switch (chosen) {
    case 'paypal_csv':
      return {
        filename: `${base}-paypal.csv`,
        contentType: 'text/csv; charset=utf-8',
        body: stringify(
          lines.map((l) => [email(l.details), l.amount, l.payout.currency, `P${l.payout.id}`, note, 'PAYPAL']),
          SAFE_CSV,
        ),
      };
    case 'paypal_json':
      return {
        filename: `${base}-paypal.json`,
        contentType: 'application/json',
        body: JSON.stringify(
          {
            sender_batch_header: {
              sender_batch_id: `program-${programId}-run-${run.id}`,
              email_subject: 'You have a payout',
              email_message: note,
            },
            items: lines.map((l) => ({
              recipient_type: 'EMAIL',
              amount: { value: l.amount, currency: l.payout.currency },
              note,
              sender_item_id: `payout-${l.payout.id}`,
              receiver: email(l.details),
              recipient_wallet: 'PAYPAL',
            })),
          },
          null,
          2,
        ),
      };
    case 'wise_csv':
      return {
        filename: `${base}-wise.csv`,
        contentType: 'text/csv; charset=utf-8',
        body: stringify(
          lines.map((l) => {
            const d = l.details as Extract<PayoutDetails, { kind: 'wise' }>;
            return [
              d.name,
              d.email,
              `Payout ${l.payout.id}`,
              d.receiver_type,
              'target',
              l.amount,
              run.currency,
              run.currency,
            ];
          }),
          { ...SAFE_CSV, header: true, columns: [...WISE_COLUMNS] },
        ),
      };
  }
}

const email = (d: PayoutDetails) => ('email' in d ? d.email : '');
