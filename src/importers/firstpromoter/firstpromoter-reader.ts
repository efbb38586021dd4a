/**
 * FirstPromoter's admin REST API (v2, https://api.firstpromoter.com/api/v2/company): promoters
 * with their campaigns (ref tokens and coupons), referrals, commissions and payouts. Requests
 * carry `Authorization: Bearer <key>` and `Account-ID`; lists page with `page` and `per_page`
 * (at most 100) and answer a plain array, so the reader asks for the next page until one comes
 * back short. Amounts are in cents of the account's one currency, which no row names: the key is
 * given as `<account id>:<API key>:<currency>` (`12345:fp_key:USD`).
 */
import type { ImportReader, ImportRecord, ImportedCommission } from '../../core/imports/import-records.ts';
import { createSourceHttp, readNumberedPages, type SourceHttp } from '../fetch-pages.ts';
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

export const FIRSTPROMOTER_BASE_URL = 'https://api.firstpromoter.com/api/v2/company';

export type FirstPromoterReaderOptions = ReaderOptions;

export function splitFirstPromoterKey(apiKey: string | undefined): {
  accountId: string;
  key: string;
  currency: string;
} {
  const parts = apiKey?.split(':') ?? [];
  const currency = currencyCode(parts[2]);
  if (parts.length !== 3 || !parts[0] || !parts[1] || !currency) {
    throw new Error(
      'FirstPromoter needs the account id, the API key and the account currency as "<account id>:<API key>:<currency>"',
    );
  }
  return { accountId: parts[0], key: parts[1], currency };
}

const list = (http: SourceHttp, path: string) =>
  readNumberedPages(http, path, {}, (body) => rowsOf(body, path.slice(1)), { page: 'page', size: 'per_page' });

/** The promoter a row names, directly or through its promoter campaign. */
function promoterOf(row: Row): string | null {
  const pc = isRow(row.promoter_campaign) ? row.promoter_campaign : {};
  const promoter = isRow(row.promoter) ? row.promoter : isRow(pc.promoter) ? pc.promoter : {};
  return text(row.promoter_id) ?? text(pc.promoter_id) ?? text(promoter.id);
}

function partners(rows: Row[]): ImportRecord[] {
  return rows.map((row): ImportRecord => {
    const id = text(row.id);
    if (!id) return problem('partner', null, 'a promoter without an id');
    const profile = isRow(row.profile) ? row.profile : {};
    const campaigns = (Array.isArray(row.promoter_campaigns) ? row.promoter_campaigns : []).filter(isRow);
    const codes = campaigns.flatMap((pc) => [text(pc.ref_token), text(pc.coupon)].filter((c): c is string => !!c));
    const first = campaigns[0];
    const name =
      text(row.name) ?? ([text(profile.first_name), text(profile.last_name)].filter(Boolean).join(' ') || null);
    return {
      kind: 'partner',
      sourceId: id,
      name,
      email: text(row.email),
      codes: [...new Set(codes)],
      group: first && isRow(first.campaign) ? text(first.campaign.name) : null,
      payoutEmail: null,
      createdAt: isoTime(row.joined_at) ?? isoTime(row.created_at),
    };
  });
}

/** FirstPromoter's statuses with its paid flag: approved and unpaid is owed; denied never pays. */
function status(row: Row): ImportedCommission['status'] | null {
  const s = text(row.status);
  if (s === 'denied') return 'voided';
  if (s === 'pending') return 'pending';
  if (s === 'approved') return row.is_paid === true ? 'paid' : 'due';
  return null;
}

function commission(
  row: Row,
  currency: string,
  partnerIds: Set<string>,
  partnerOfReferral: Map<string, string>,
): ImportRecord {
  const id = text(row.id);
  if (!id) return problem('commission', null, 'a commission without an id');
  const referral = isRow(row.referral) ? text(row.referral.id) : text(row.referral_id);
  const partner = promoterOf(row) ?? (referral ? partnerOfReferral.get(referral) : undefined) ?? null;
  const unit = text(row.unit) ?? 'cash';
  const s = status(row);
  const amount = integerMinor(row.amount);
  const createdAt = isoTime(row.created_at);
  if (!partner || !partnerIds.has(partner)) return problem('commission', id, 'names no imported promoter');
  if (unit !== 'cash') return problem('commission', id, `a non-cash reward (${unit}), not a commission in money`);
  if (!s) return problem('commission', id, `unknown FirstPromoter status "${text(row.status) ?? ''}"`);
  if (amount === null)
    return problem('commission', id, `the amount "${String(row.amount)}" is not a whole number of cents`);
  if (!createdAt) return problem('commission', id, 'has no creation time');
  return {
    kind: 'commission',
    sourceId: id,
    partnerSourceId: partner,
    customerSourceId: referral,
    saleSourceId: text(row.event_id),
    currency,
    saleAmountMinor: integerMinor(row.sale_amount),
    amountMinor: amount,
    status: s,
    createdAt,
  };
}

function payout(row: Row, currency: string, partnerIds: Set<string>): ImportRecord | null {
  const id = text(row.id);
  if (text(row.status) !== 'completed') return null; // pending payouts are still owed: their commissions say so
  const partner = promoterOf(row);
  const amount = integerMinor(row.amount);
  const paidAt = isoTime(row.paid_at) ?? isoTime(row.updated_at);
  if (!id) return problem('payout', null, 'a payout without an id');
  if (!partner || !partnerIds.has(partner)) return problem('payout', id, 'names no imported promoter');
  if ((text(row.unit) ?? 'cash') !== 'cash') return problem('payout', id, `a non-cash payout (${text(row.unit)})`);
  if (amount === null)
    return problem('payout', id, `the amount "${String(row.amount)}" is not a whole number of cents`);
  if (!paidAt) return problem('payout', id, 'has no payment time');
  return { kind: 'payout', sourceId: id, partnerSourceId: partner, currency, amountMinor: amount, paidAt };
}

async function readFirstPromoter(http: SourceHttp, currency: string): Promise<ImportRecord[]> {
  const records = partners(await list(http, '/promoters'));
  const partnerIds = new Set(records.flatMap((r) => (r.kind === 'partner' ? [r.sourceId] : [])));
  const partnerOfReferral = new Map<string, string>();
  for (const row of await list(http, '/referrals')) {
    const id = text(row.id);
    const partner = promoterOf(row);
    if (!id) records.push(problem('customer', null, 'a referral without an id'));
    else if (!partner || !partnerIds.has(partner)) records.push(problem('customer', id, 'names no imported promoter'));
    else {
      partnerOfReferral.set(id, partner);
      records.push({
        kind: 'customer',
        sourceId: id,
        partnerSourceId: partner,
        ...splitCustomerId(row.uid),
        email: text(row.email),
        createdAt: isoTime(row.created_at),
      });
    }
  }
  for (const row of await list(http, '/commissions'))
    records.push(commission(row, currency, partnerIds, partnerOfReferral));
  for (const row of await list(http, '/payouts')) {
    const r = payout(row, currency, partnerIds);
    if (r) records.push(r);
  }
  return inDependencyOrder(records);
}

export function createFirstPromoterReader(options: FirstPromoterReaderOptions): ImportReader {
  refuseCsv('FirstPromoter', options.csv);
  const { accountId, key, currency } = splitFirstPromoterKey(options.apiKey);
  const http = createSourceHttp({
    fetch: options.fetch,
    label: 'FirstPromoter',
    baseUrl: options.baseUrl ?? FIRSTPROMOTER_BASE_URL,
    headers: { authorization: `Bearer ${key}`, 'account-id': accountId },
  });
  return {
    source: 'firstpromoter',
    records: () => streamOf(() => readFirstPromoter(http, currency)),
    balances: async () => null,
  };
}
