/**
 * PartnerStack's vendor REST API (v2, https://api.partnerstack.com/api/v2): partnerships (the
 * partners, with their group and partner key), customers, rewards (the commissions) and the
 * transactions they were earned on. Every answer is `{ data, message, status }`; lists page with
 * `limit` (1–250) and `starting_after` (the last item's `key`), `data.has_more` saying whether
 * more follow. Times are epoch milliseconds; amounts are in cents. The key is the public and
 * secret key as `<public>:<secret>` (HTTP Basic), or a single bearer key.
 */
import type { ImportReader, ImportRecord, ImportedCommission } from '../../core/imports/import-records.ts';
import { createSourceHttp, readCursorPages, type SourceHttp } from '../fetch-pages.ts';
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

export const PARTNERSTACK_BASE_URL = 'https://api.partnerstack.com/api/v2';

export type PartnerStackReaderOptions = ReaderOptions;

/** A reward's payment state once approved: paid out (or on its way), owed, or gone. */
const PAID = new Set(['withdrawn', 'in_transit', 'paid_externally', 'paid_and_refunded']);

function status(row: Row): ImportedCommission['status'] | null {
  const s = text(row.status);
  if (s === 'declined' || s === 'rejected') return 'voided';
  if (s === 'pending' || s === 'hold') return 'pending';
  if (s !== 'approved') return null;
  const payment = text(row.payment_status);
  if (payment && PAID.has(payment)) return 'paid';
  if (payment === 'expired') return 'voided';
  return 'due';
}

function authorization(apiKey: string | undefined): string {
  if (!apiKey) throw new Error('PartnerStack needs its public and secret keys as "<public key>:<secret key>"');
  return apiKey.includes(':') ? `Basic ${Buffer.from(apiKey).toString('base64')}` : `Bearer ${apiKey}`;
}

const list = (http: SourceHttp, path: string) =>
  readCursorPages<Row>(
    http,
    path,
    {},
    (body) => {
      const data = isRow(body) && isRow(body.data) ? body.data : {};
      return {
        items: rowsOf(data.items, path.slice(1)),
        hasMore: data.has_more === true,
        cursor: (last) => String(last.key),
      };
    },
    250,
  );

const keyOf = (v: unknown): string | null => (isRow(v) ? text(v.key) : text(v));

function partner(row: Row): ImportRecord {
  const key = text(row.key);
  if (!key) return problem('partner', null, 'a partnership without a key');
  const name = [text(row.first_name), text(row.last_name)].filter(Boolean).join(' ');
  const code = text(row.partner_key);
  return {
    kind: 'partner',
    sourceId: key,
    name: name || null,
    email: text(row.email),
    codes: code ? [code] : [],
    group: isRow(row.group) ? text(row.group.name) : null,
    payoutEmail: null,
    createdAt: isoTime(row.joined_at) ?? isoTime(row.created_at),
  };
}

function reward(
  row: Row,
  partners: Set<string>,
  customers: Map<string, string>,
  sales: Map<string, Row>,
): ImportRecord {
  const key = text(row.key);
  if (!key) return problem('commission', null, 'a reward without a key');
  const customer = keyOf(row.customer) ?? text(row.customer_key);
  const partner =
    keyOf(row.partnership) ?? text(row.partnership_key) ?? (customer ? customers.get(customer) : undefined);
  const transaction = keyOf(row.transaction) ?? text(row.transaction_key);
  const sale = transaction ? sales.get(transaction) : undefined;
  const s = status(row);
  const amount = integerMinor(row.amount);
  const currency = currencyCode(row.currency) ?? 'USD';
  const createdAt = isoTime(row.created_at);
  if (!partner || !partners.has(partner)) return problem('commission', key, 'names no imported partnership');
  if (!s) return problem('commission', key, `unknown PartnerStack status "${text(row.status) ?? ''}"`);
  if (amount === null)
    return problem('commission', key, `the amount "${String(row.amount)}" is not a whole number of cents`);
  if (!createdAt) return problem('commission', key, 'has no creation time');
  return {
    kind: 'commission',
    sourceId: key,
    partnerSourceId: partner,
    customerSourceId: customer && customers.has(customer) ? customer : null,
    saleSourceId: transaction,
    currency,
    saleAmountMinor: sale ? integerMinor(sale.amount) : null,
    amountMinor: amount,
    status: s,
    createdAt,
  };
}

/** PartnerStack pays partners itself and lists no payouts: each paid reward is paid by one of its own. */
function payoutOf(record: ImportRecord, row: Row): ImportRecord | null {
  if (record.kind !== 'commission' || record.status !== 'paid') return null;
  return {
    kind: 'payout',
    sourceId: `paid:${record.sourceId}`,
    partnerSourceId: record.partnerSourceId,
    currency: record.currency,
    amountMinor: record.amountMinor,
    paidAt: isoTime(row.updated_at) ?? record.createdAt,
  };
}

async function readPartnerStack(http: SourceHttp): Promise<ImportRecord[]> {
  const records = (await list(http, '/partnerships')).map(partner);
  const partners = new Set(records.flatMap((r) => (r.kind === 'partner' ? [r.sourceId] : [])));
  const customers = new Map<string, string>();
  for (const row of await list(http, '/customers')) {
    const key = text(row.key);
    const partnership = keyOf(row.partnership) ?? text(row.partnership_key);
    if (!key) records.push(problem('customer', null, 'a customer without a key'));
    else if (!partnership || !partners.has(partnership))
      records.push(problem('customer', key, 'names no imported partnership'));
    else {
      customers.set(key, partnership);
      const customerKey = text(row.customer_key);
      const providerCustomerId =
        splitCustomerId(row.provider_key).providerCustomerId ?? splitCustomerId(customerKey).providerCustomerId;
      records.push({
        kind: 'customer',
        sourceId: key,
        partnerSourceId: partnership,
        providerCustomerId,
        customerKey: customerKey === providerCustomerId ? null : customerKey,
        email: text(row.email),
        createdAt: isoTime(row.created_at),
      });
    }
  }
  const sales = new Map((await list(http, '/transactions')).map((t) => [text(t.key) ?? '', t]));
  const rewards = await list(http, '/rewards');
  const commissions = rewards.map((row) => reward(row, partners, customers, sales));
  records.push(...commissions);
  records.push(...commissions.flatMap((r, i) => payoutOf(r, rewards[i]!) ?? []));
  return inDependencyOrder(records);
}

export function createPartnerStackReader(options: PartnerStackReaderOptions): ImportReader {
  refuseCsv('PartnerStack', options.csv);
  const http = createSourceHttp({
    fetch: options.fetch,
    label: 'PartnerStack',
    baseUrl: options.baseUrl ?? PARTNERSTACK_BASE_URL,
    headers: { authorization: authorization(options.apiKey) },
  });
  return {
    source: 'partnerstack',
    records: () => streamOf(() => readPartnerStack(http)),
    balances: async () => null,
  };
}
