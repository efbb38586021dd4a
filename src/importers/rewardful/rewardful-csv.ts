/**
 * The one CSV layout Rewardful publishes for affiliates and the customers they referred: the sheet
 * of its help article "How do I import data into Rewardful?"
 * (https://help.rewardful.com/en/articles/1988486-how-do-i-import-data-into-rewardful), one row per
 * referred customer, or per affiliate with the customer left blank. Its columns, by the names the
 * article has given them over time: `stripe_customer_id` (earlier `Imported ID`, `Stripe Customer
 * ID`), `first_name`, `last_name`, `email` (earlier `Affiliate Email`), `paypal_email`, `wise_email`,
 * `token` (the `?via=` link token). Rewardful publishes no column layout for the CSV exports of its
 * dashboard (referrals, commissions, payouts), so commissions, payouts and balances come only
 * through the API (rewardful-reader.ts).
 *
 * An affiliate is keyed by its email (the sheet has no affiliate id), a customer by its Stripe id.
 * A row that cannot be taken is reported with its line in the file and why.
 */
import { parse } from 'csv-parse/sync';
import type { ImportReader, ImportRecord, ImportedPartner } from '../../core/imports/import-records.ts';
import { inDependencyOrder, problem, splitCustomerId, streamOf, text } from '../rows.ts';

/** The file the reader takes (`--csv-dir` holds `affiliates.csv`). */
export const REWARDFUL_CSV_FILES = ['affiliates'] as const;

/** Each field the sheet has, with the header names the article has used for it (normalised). */
const COLUMNS = {
  stripeCustomerId: ['stripe_customer_id', 'imported_id'],
  firstName: ['first_name', 'affiliate_first_name'],
  lastName: ['last_name', 'affiliate_last_name'],
  email: ['email', 'affiliate_email'],
  paypalEmail: ['paypal_email', 'affiliate_paypal_email'],
  wiseEmail: ['wise_email', 'affiliate_wise_email'],
  token: ['token'],
} as const;
type Field = keyof typeof COLUMNS;
/** A row of the sheet: its line in the file, why it cannot be read (else null), its fields by name. */
type SheetRow = { line: number; bad: string | null; get(field: Field): string | null };

/** `Stripe Customer ID` → `stripe_customer_id`. */
const normalise = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/**
 * The sheet's rows with their line in the file; a row whose field count differs from the header's
 * is kept with why (`bad`) and reported. @throws Error when the file is not CSV or has no email column.
 */
export function readSheet(file: string, textOfFile: string): SheetRow[] {
  // With `info`, each row comes as { record, info } (the typings do not say so).
  let parsed: Array<{ record: string[]; info: { lines: number } }>;
  try {
    parsed = parse(textOfFile, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof parsed;
  } catch (err) {
    throw new Error(`${file}.csv is not a CSV file this import can read: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const header = (parsed[0]?.record ?? []).map(normalise);
  const index = (field: Field) => header.findIndex((h) => (COLUMNS[field] as readonly string[]).includes(h));
  if (index('email') < 0)
    throw new Error(
      `${file}.csv has no email column: it must have the columns of Rewardful's import sheet (stripe_customer_id, first_name, last_name, email, paypal_email, token)`,
    );
  const at = Object.fromEntries((Object.keys(COLUMNS) as Field[]).map((f) => [f, index(f)])) as Record<Field, number>;
  return parsed.slice(1).map(({ record, info }) => ({
    line: info.lines,
    bad: record.length === header.length ? null : `${record.length} fields where the header has ${header.length}`,
    get: (field: Field) => (at[field] < 0 ? null : text(record[at[field]])),
  }));
}

/** The records of the sheet, in dependency order: each affiliate once, each customer once, bad rows as problems. */
export function sheetRecords(rows: SheetRow[]): ImportRecord[] {
  const partners = new Map<string, ImportedPartner>();
  const tokenOwner = new Map<string, { email: string; line: number }>();
  const customerLine = new Map<string, number>();
  const out: ImportRecord[] = [];
  for (const row of rows) {
    const at = `line ${row.line}`;
    if (row.bad) {
      out.push(problem('partner', null, `${at}: ${row.bad}: the row was not read`));
      continue;
    }
    const customerId = row.get('stripeCustomerId');
    const email = row.get('email')?.toLowerCase() ?? null;
    if (!email) {
      const what = customerId ? ` and its customer ${customerId}` : '';
      out.push(problem('partner', customerId, `${at}: no affiliate email: the affiliate${what} not brought`));
      continue;
    }
    let partner = partners.get(email);
    if (!partner) {
      const name = [row.get('firstName'), row.get('lastName')].filter(Boolean).join(' ') || null;
      partner = {
        kind: 'partner',
        sourceId: email,
        name,
        email,
        codes: [],
        group: null,
        payoutEmail: null,
        createdAt: null,
      };
      partners.set(email, partner);
      out.push(partner);
    }
    partner.payoutEmail ??= row.get('paypalEmail');
    const token = row.get('token');
    const owner = token ? tokenOwner.get(token.toLowerCase()) : undefined;
    if (token && owner && owner.email !== email) {
      out.push(
        problem(
          'partner',
          email,
          `${at}: token "${token}" is already ${owner.email}'s (line ${owner.line}): not brought`,
        ),
      );
    } else if (token && !owner) {
      tokenOwner.set(token.toLowerCase(), { email, line: row.line });
      partner.codes.push(token);
    }
    if (!customerId) continue;
    const seen = customerLine.get(customerId);
    if (seen !== undefined) {
      out.push(
        problem('customer', customerId, `${at}: customer ${customerId} is already on line ${seen}: not brought again`),
      );
      continue;
    }
    customerLine.set(customerId, row.line);
    out.push({
      kind: 'customer',
      sourceId: customerId,
      partnerSourceId: email,
      ...splitCustomerId(customerId),
      email: null,
      createdAt: null,
    });
  }
  return inDependencyOrder(out);
}

/**
 * A reader of the sheet (`csv.affiliates`, the file's text). The file is read when the reader is
 * made, so an unreadable one is refused before an import starts.
 */
export function createRewardfulCsvReader(csv: Record<string, string>): ImportReader {
  const unknown = Object.keys(csv).filter((k) => !(REWARDFUL_CSV_FILES as readonly string[]).includes(k));
  if (unknown.length || csv.affiliates === undefined)
    throw new Error(
      `Rewardful's CSV import takes one file, affiliates.csv (Rewardful's import sheet); got: ${
        Object.keys(csv)
          .map((k) => `${k}.csv`)
          .join(', ') || 'none'
      }`,
    );
  const records = sheetRecords(readSheet('affiliates', csv.affiliates));
  return {
    source: 'rewardful',
    records: () => streamOf(async () => records),
    async balances() {
      return null;
    },
  };
}
