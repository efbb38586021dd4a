/**
 * Small readers of a source's row fields, shared by the source readers: text, dates, amounts in
 * minor units (whole numbers only: every source here states cents), which
 * customer id is a payment provider's, and the problem a row becomes when it cannot be read.
 */
import type { ImportProblem, ImportRecord } from '../core/imports/import-records.ts';

export type Row = Record<string, unknown>;

export const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A non-empty trimmed string (numbers as their text), else null. */
export function text(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t ? t : null;
}

/** An ISO 8601 time from ISO text or epoch milliseconds, else null. */
export function isoTime(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v).toISOString();
  const t = text(v);
  if (!t) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** An amount the source states in minor units (an integer, or integer text such as `"4900"`), else null. */
export function integerMinor(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  const t = text(v);
  if (!t || !/^-?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/** Upper-case currency code when it looks like one (three letters), else null. */
export function currencyCode(v: unknown): string | null {
  const t = text(v);
  return t && /^[a-z]{3}$/i.test(t) ? t.toUpperCase() : null;
}

const PROVIDER_CUSTOMER = /^(cus_|ctm_)[A-Za-z0-9]+$/;

/**
 * A customer id the source keeps, split: a payment provider's (Stripe `cus_…`, Paddle `ctm_…`)
 * becomes `providerCustomerId`, anything else the merchant's own `customerKey`.
 */
export function splitCustomerId(id: unknown): { providerCustomerId: string | null; customerKey: string | null } {
  const t = text(id);
  if (!t) return { providerCustomerId: null, customerKey: null };
  return PROVIDER_CUSTOMER.test(t)
    ? { providerCustomerId: t, customerKey: null }
    : { providerCustomerId: null, customerKey: t };
}

export function problem(of: ImportProblem['of'], sourceId: unknown, reason: string): ImportProblem {
  return { kind: 'problem', of, sourceId: text(sourceId), reason };
}

/** The list of rows of an answer, or an error naming what was expected. */
export function rowsOf(value: unknown, what: string): Row[] {
  if (!Array.isArray(value)) throw new Error(`expected a list of ${what} in the answer`);
  return value.map((r) => (isRow(r) ? r : {}));
}

/** Records as an async stream (readers gather a source whole, then yield in dependency order). */
export async function* streamOf(load: () => Promise<ImportRecord[]>): AsyncIterable<ImportRecord> {
  for (const record of await load()) yield record;
}

/** `partner` > `customer` > `commission` > `payout`: the dependency order, problems beside their kind. */
const ORDER = { partner: 0, customer: 1, commission: 2, payout: 3 } as const;

export function inDependencyOrder(records: ImportRecord[]): ImportRecord[] {
  const rank = (r: ImportRecord) => ORDER[r.kind === 'problem' ? r.of : r.kind];
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map((x) => x.r);
}

/**
 * Tolt, FirstPromoter, PartnerStack and Dub publish no column layout for their CSV exports, so
 * their readers take the API only and refuse a file with a clear message rather than guess at it
 * (Rewardful's reader also reads the one layout Rewardful publishes: rewardful/rewardful-csv.ts).
 */
export function refuseCsv(source: string, csv: Record<string, string> | undefined): void {
  if (csv && Object.keys(csv).length) {
    throw new Error(
      `${source} publishes no layout for its CSV exports: the import reads ${source}'s API (give the API key)`,
    );
  }
}
