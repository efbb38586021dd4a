/**
 * Dub's REST API (https://api.dub.co): partners with their links, customers with the partner
 * who referred them (`includeExpandedFields=true`), commissions and payouts. Requests carry
 * `Authorization: Bearer <key>`; lists page with `page` and `pageSize` (at most 100) and answer
 * a plain array, so the reader asks for the next page until one comes back empty. Amounts are in
 * cents; a 429 comes with Retry-After (600 requests a minute).
 */
import type { ImportReader, ImportRecord, ImportedCommission } from '../../core/imports/import-records.ts';
import { createSourceHttp, readNumberedPages, type Query, type SourceHttp } from '../fetch-pages.ts';
import {
  currencyCode,
  inDependencyOrder,
  integerMinor,
  isoTime,
  isRow,
  problem,
  refuseCsv,
  rowsOf,
  splitCustomerId,
  streamOf,
  text,
  type Row,
} from '../rows.ts';
import type { ReaderOptions } from '../reader-options.ts';

export const DUB_BASE_URL = 'https://api.dub.co';

export type DubReaderOptions = ReaderOptions;

/** Dub's commission statuses: processed is in a payout not yet paid; the rest of the unpaid never pay. */
const STATUS: Record<string, ImportedCommission['status']> = {
  pending: 'pending',
  processed: 'due',
  paid: 'paid',
  refunded: 'voided',
  duplicate: 'voided',
  fraud: 'voided',
  canceled: 'voided',
};

/** Payouts that have left Dub for the partner. */
const PAID_OUT = new Set(['sent', 'completed']);

const list = (http: SourceHttp, path: string, query: Query = {}) =>
  readNumberedPages(http, path, query, (body) => rowsOf(body, path.slice(1)), { page: 'page', size: 'pageSize' });

const idOf = (v: unknown): string | null => (isRow(v) ? text(v.id) : null);

function partner(row: Row): ImportRecord {
  const id = text(row.id);
  if (!id) return problem('partner', null, 'a partner without an id');
  const links = (Array.isArray(row.links) ? row.links : []).filter(isRow);
  return {
    kind: 'partner',
    sourceId: id,
    name: text(row.name) ?? text(row.companyName),
    email: text(row.email),
    codes: [...new Set(links.map((l) => text(l.key)).filter((k): k is string => !!k))],
    group: text(row.groupId),
    payoutEmail: text(row.paypalEmail),
    createdAt: isoTime(row.createdAt),
  };
}

function commission(row: Row, partners: Set<string>, customers: Set<string>): ImportRecord {
  const id = text(row.id);
  if (!id) return problem('commission', null, 'a commission without an id');
  const partnerId = idOf(row.partner) ?? text(row.partnerId);
  const customerId = idOf(row.customer) ?? text(row.customerId);
  const status = STATUS[text(row.status) ?? ''];
  const earnings = integerMinor(row.earnings);
  const currency = currencyCode(row.currency);
  const createdAt = isoTime(row.createdAt);
  if (!partnerId || !partners.has(partnerId)) return problem('commission', id, 'names no imported partner');
  if (!status) return problem('commission', id, `unknown Dub status "${text(row.status) ?? ''}"`);
  if (earnings === null)
    return problem('commission', id, `the earnings "${String(row.earnings)}" are not a whole number of cents`);
  if (!currency) return problem('commission', id, 'states no currency');
  if (!createdAt) return problem('commission', id, 'has no creation time');
  return {
    kind: 'commission',
    sourceId: id,
    partnerSourceId: partnerId,
    customerSourceId: customerId && customers.has(customerId) ? customerId : null,
    saleSourceId: text(row.invoiceId),
    currency,
    saleAmountMinor: text(row.type) === 'sale' ? integerMinor(row.amount) : null,
    amountMinor: earnings,
    status,
    createdAt,
  };
}

function payout(row: Row, partners: Set<string>): ImportRecord | null {
  const id = text(row.id);
  if (!PAID_OUT.has(text(row.status) ?? '')) return null; // not paid yet: its commissions are still due
  const partnerId = idOf(row.partner) ?? text(row.partnerId);
  const amount = integerMinor(row.amount);
  const currency = currencyCode(row.currency);
  const paidAt = isoTime(row.paidAt) ?? isoTime(row.initiatedAt);
  if (!id) return problem('payout', null, 'a payout without an id');
  if (!partnerId || !partners.has(partnerId)) return problem('payout', id, 'names no imported partner');
  if (amount === null)
    return problem('payout', id, `the amount "${String(row.amount)}" is not a whole number of cents`);
  if (!currency) return problem('payout', id, 'states no currency');
  if (!paidAt) return problem('payout', id, 'has no payment time');
  return { kind: 'payout', sourceId: id, partnerSourceId: partnerId, currency, amountMinor: amount, paidAt };
}

async function readDub(http: SourceHttp): Promise<ImportRecord[]> {
  const records = (await list(http, '/partners', { sortBy: 'createdAt', sortOrder: 'asc' })).map(partner);
  const partners = new Set(records.flatMap((r) => (r.kind === 'partner' ? [r.sourceId] : [])));
  const customers = new Set<string>();
  const customerRows = await list(http, '/customers', {
    includeExpandedFields: 'true',
    sortBy: 'createdAt',
    sortOrder: 'asc',
  });
  for (const row of customerRows) {
    const id = text(row.id);
    const partnerId = idOf(row.partner);
    if (!id) records.push(problem('customer', null, 'a customer without an id'));
    else if (!partnerId)
      records.push(problem('customer', id, 'referred by no partner (a customer of a plain short link)'));
    else if (!partners.has(partnerId)) records.push(problem('customer', id, 'names no imported partner'));
    else {
      customers.add(id);
      const external = splitCustomerId(row.externalId);
      const stripe = splitCustomerId(row.stripeCustomerId).providerCustomerId;
      records.push({
        kind: 'customer',
        sourceId: id,
        partnerSourceId: partnerId,
        providerCustomerId: stripe ?? external.providerCustomerId,
        customerKey: text(row.externalId) === (stripe ?? external.providerCustomerId) ? null : text(row.externalId),
        email: text(row.email),
        createdAt: isoTime(row.createdAt),
      });
    }
  }
  const commissionRows = await list(http, '/commissions', { sortBy: 'createdAt', sortOrder: 'asc' });
  records.push(...commissionRows.map((row) => commission(row, partners, customers)));
  for (const row of await list(http, '/payouts', { sortBy: 'paidAt', sortOrder: 'asc' })) {
    const r = payout(row, partners);
    if (r) records.push(r);
  }
  return inDependencyOrder(records);
}

export function createDubReader(options: DubReaderOptions): ImportReader {
  refuseCsv('Dub', options.csv);
  if (!options.apiKey) throw new Error('Dub needs an API key (dub_…)');
  const http = createSourceHttp({
    fetch: options.fetch,
    label: 'Dub',
    baseUrl: options.baseUrl ?? DUB_BASE_URL,
    headers: { authorization: `Bearer ${options.apiKey}` },
  });
  return {
    source: 'dub',
    records: () => streamOf(() => readDub(http)),
    balances: async () => null,
  };
}
