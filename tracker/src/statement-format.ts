/**
 * The statement file's format, as the verifier reads it (docs/statement-verification.md): its
 * columns, the canonical line hash, the causes digest, the checkpoint message and the decimal form
 * of amounts. Written here again, apart from the service, so a partner checks the service's file
 * with code that shares nothing with it; test/tracker/statement-agree.test.ts checks both agree.
 */
import * as nodeCrypto from 'node:crypto';

/** The statement export's columns, in order (format v1). */
export const STATEMENT_COLUMNS = [
  ...['id', 'created_at', 'currency', 'kind', 'delta_cents', 'balance_cents', 'commission_id', 'sale_id'],
  ...['transaction_id', 'lead_customer_id', 'refund_id', 'payout_id', 'delta', 'balance', 'hash'],
  ...['program_id', 'partner_id', 'checkpoint_lines', 'checkpoint_digest', 'checkpoint_balances'],
  ...['checkpoint_signed_at', 'checkpoint_key_id', 'checkpoint_signature'],
] as const;

export type StatementColumn = (typeof STATEMENT_COLUMNS)[number];

/** The column positions, by name. */
export const COL = Object.fromEntries(STATEMENT_COLUMNS.map((name, i) => [name, i])) as Record<StatementColumn, number>;

/** The checkpoint's own cells: all empty on a line without one, all given on the line it signed. */
export const CHECKPOINT_COLUMNS = [
  'checkpoint_lines',
  'checkpoint_digest',
  'checkpoint_balances',
  'checkpoint_signed_at',
  'checkpoint_key_id',
  'checkpoint_signature',
] as const satisfies readonly StatementColumn[];

// The one-shot `crypto.hash` (Node 20.12+) is about twice as fast as a Hash object per line.
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** `hash_0`: the hash before a partner's first line. */
export function genesisHash(programId: string, partnerId: string): string {
  return sha256Hex(`statement|${programId}|${partnerId}`);
}

/** `hash_n` from `hash_(n-1)` and the line's cells (id, created_at, currency, kind, delta_cents, commission_id, refund_id, payout_id). */
export function lineHash(previous: string, cells: readonly string[]): string {
  return sha256Hex(
    `${previous}|${cells[COL.id]}|${cells[COL.created_at]}|${cells[COL.currency]}|${cells[COL.kind]}|` +
      `${cells[COL.delta_cents]}|${cells[COL.commission_id]}|${cells[COL.refund_id]}|${cells[COL.payout_id]}`,
  );
}

/** `digest_n` from `digest_(n-1)`, the line's hash and the cells naming its cause (the transaction id last). */
export function causeDigest(previous: string, hash: string, cells: readonly string[]): string {
  return sha256Hex(
    `${previous}|${hash}|${cells[COL.sale_id]}|${cells[COL.lead_customer_id]}|${cells[COL.transaction_id]}`,
  );
}

/** What a checkpoint's signature covers, as UTF-8 text. */
export function checkpointText(c: {
  programId: string;
  partnerId: string;
  entryId: string;
  lines: string;
  hash: string;
  digest: string;
  balances: string;
  signedAt: string;
}): string {
  const fields = [c.programId, c.partnerId, c.entryId, c.lines, c.hash, c.digest, c.balances, c.signedAt];
  return `statement-checkpoint|v1|${fields.join('|')}`;
}

/** Balances as a checkpoint states them: `CUR:cents` by currency in code-point order, joined by `;`. */
export function balancesText(balances: ReadonlyMap<string, bigint>): string {
  return [...balances.keys()]
    .sort()
    .map((c) => `${c}:${balances.get(c)!.toString()}`)
    .join(';');
}

const digitsByCode = new Map<string, number>();

/** Digits of a currency's minor unit, from the platform's currency data (USD 2, VND 0; unknown 2). */
function minorDigits(currency: string): number {
  let digits = digitsByCode.get(currency);
  if (digits !== undefined) return digits;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
  digitsByCode.set(currency, digits);
  return digits;
}

/** Minor units as the file's decimal: `-12345` USD is `-123.45`, `50000` VND is `50000`. */
export function decimalText(cents: bigint, currency: string): string {
  const digits = minorDigits(currency);
  const abs = (cents < 0n ? -cents : cents).toString().padStart(digits + 1, '0');
  const whole = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return cents < 0n ? `-${whole}` : whole;
}
